-- floe workerid/redis: give a worker ID back if the owner key holds the
-- token, recording the holder's last tick (capped at R) unless it is 0.
--
-- KEYS[1]  the owner key
-- KEYS[2]  the reservation key
-- ARGV[1]  the token
-- ARGV[2]  the last tick issued, decimal, or '0'
-- ARGV[3]  the owner name
--
-- Reply: 1 if released, 0 if the key holds another token or none.

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
if ARGV[2] ~= '0' then
  local old = redis.call('GET', KEYS[2])
  local r = '0'
  if old then
    r = string.match(old, '^(%d+):%d+:')
    if not r then
      return redis.error_reply('FLOE_BADRESERVATION ' .. KEYS[2])
    end
  end
  local last = ARGV[2]
  if greater(last, r) then
    last = r
  end
  redis.call('SET', KEYS[2], r .. ':' .. last .. ':' .. ARGV[3])
end
redis.call('DEL', KEYS[1])
return 1
