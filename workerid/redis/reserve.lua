-- floe workerid/redis: raise the reservation R if the owner key holds the
-- token. R only rises.
--
-- KEYS[1]  the owner key
-- KEYS[2]  the reservation key
-- ARGV[1]  the token
-- ARGV[2]  the new R, decimal
-- ARGV[3]  the owner name
-- ARGV[4]  the catalog's sequence hash, or '' outside a catalog
-- ARGV[5]  the sequence name
-- ARGV[6]  the sequence generation
--
-- Reply: 1 if R is at least ARGV[2] now, 0 if the key holds another token,
-- -2 if the sequence (this generation) is gone. The check of the sequence
-- keeps a destroy that stopped halfway (destroy.lua) safe: once the
-- sequence is gone, R stays at or below the retired tick.

-- greater compares two decimals without leading zeros; Lua numbers are
-- doubles and cannot hold every uint64.
local function greater(a, b)
  if #a ~= #b then
    return #a > #b
  end
  for i = 1, #a do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return false
end

if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
if ARGV[4] ~= '' then
  local seq = redis.call('HGET', ARGV[4], ARGV[5])
  if not seq or string.match(seq, '^(%d+) ') ~= ARGV[6] then
    return -2
  end
end
local old = redis.call('GET', KEYS[2])
local r = '0'
if old then
  r = string.match(old, '^(%d+):%d+:')
  if not r then
    return redis.error_reply('FLOE_BADRESERVATION ' .. KEYS[2])
  end
end
if greater(ARGV[2], r) then
  redis.call('SET', KEYS[2], ARGV[2] .. ':0:' .. ARGV[3])
end
return 1
