-- floe workerid/redis: extend the owner key's TTL if it holds the token.
--
-- KEYS[1]  the owner key
-- ARGV[1]  the token
-- ARGV[2]  the TTL, milliseconds
--
-- Reply: 1 if extended, 0 if the key holds another token or none.

if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
