-- floe workerid/redis: define a named sequence unless it exists.
--
-- KEYS[1]  the sequence hash: name -> "gen spec"
-- KEYS[2]  the generation counter
-- KEYS[3]  the retired hash: name -> "gen tick spec"
-- ARGV[1]  the name
-- ARGV[2]  the spec
--
-- Reply: {gen, spec, retired} of the sequence now under the name, the
-- existing one if there was one; retired is the name's retired generation,
-- '' if none.

local retired = redis.call('HGET', KEYS[3], ARGV[1]) or ''
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local gen, spec = string.match(cur, '^(%d+) (.*)$')
  if not gen then
    return redis.error_reply('FLOE_BADSEQUENCE ' .. ARGV[1])
  end
  return {gen, spec, retired}
end
local gen = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], ARGV[1], gen .. ' ' .. ARGV[2])
return {tostring(gen), ARGV[2], retired}
