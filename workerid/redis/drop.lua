-- floe workerid/redis: delete the owner key if it holds the token, after a
-- lease is lost, so the worker ID is free before its TTL runs out.
--
-- KEYS[1]  the owner key
-- ARGV[1]  the token
--
-- Reply: 1 if deleted, 0 otherwise.

if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
return redis.call('DEL', KEYS[1])
