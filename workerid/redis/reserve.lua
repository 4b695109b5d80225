-- floe workerid/redis: raise the reservation R if the owner key holds the
-- token. R only rises.
--
-- KEYS[1]  the owner key
-- KEYS[2]  the reservation key
-- ARGV[1]  the token
-- ARGV[2]  the new R, decimal
-- ARGV[3]  the owner name
--
-- Reply: 1 if R is at least ARGV[2] now, 0 if the key holds another token.

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
