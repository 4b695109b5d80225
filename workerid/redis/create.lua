-- floe workerid/redis: define a named sequence unless it exists.
--
-- KEYS[1]  the sequence hash: name -> "gen spec"
-- KEYS[2]  the generation counter
-- ARGV[1]  the name
-- ARGV[2]  the spec
--
-- Reply: {gen, spec} of the sequence now under the name, the existing one
-- if there was one.

local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local gen, spec = string.match(cur, '^(%d+) (.*)$')
  if not gen then
    return redis.error_reply('FLOE_BADSEQUENCE ' .. ARGV[1])
  end
  return {gen, spec}
end
local gen = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], ARGV[1], gen .. ' ' .. ARGV[2])
return {tostring(gen), ARGV[2]}
