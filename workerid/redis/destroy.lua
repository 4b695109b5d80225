-- floe workerid/redis: remove a named sequence with every owner, fence and
-- reservation key of its worker IDs, so its holders' next renewal or
-- reservation fails.
--
-- KEYS[1]  the sequence hash: name -> "gen spec"
-- ARGV[1]  the name
-- ARGV[2]  the prefix of the sequence's generations: <prefix>seq/<name>/
--
-- Reply: 1 if removed, 0 if there was no such sequence.

local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then
  return 0
end
local gen = string.match(cur, '^(%d+) ')
redis.call('HDEL', KEYS[1], ARGV[1])
if not gen then
  return 1
end
local p = ARGV[2] .. gen .. '/'
local n = tonumber(redis.call('GET', p .. 'ids') or '0')
for id = 0, n - 1 do
  redis.call('DEL', p .. 'workers/' .. id, p .. 'fence/' .. id, p .. 'reserved/' .. id)
end
redis.call('DEL', p .. 'ids')
return 1
