-- floe redisgen: reserve up to ARGV[6] sequence numbers of the current tick
-- for this server's shard, by Redis's own clock.
--
-- KEYS[1]  the shard key: this server's shard ID, set by `floe redis init`
-- KEYS[2]  the state hash: the last tick and sequence issued, and the layout
--          they were issued under
-- ARGV[1]  the layout's epoch, Unix microseconds
-- ARGV[2]  the layout's tick unit, microseconds
-- ARGV[3]  the last tick the layout holds
-- ARGV[4]  the highest sequence number
-- ARGV[5]  the highest shard ID
-- ARGV[6]  how many IDs the caller wants (at least 1)
--
-- Reply: {shard, tick, first sequence, count}; count may be below ARGV[6]
-- at the end of a tick. The client composes the IDs: Lua numbers are
-- doubles and cannot hold 64-bit integers.
--
-- Error replies start with a code: FLOE_NOSHARD, FLOE_BADSHARD, FLOE_LAYOUT,
-- FLOE_BEFORE_EPOCH, FLOE_TIME_EXHAUSTED, FLOE_BACKWARDS <microseconds
-- behind>, FLOE_EXHAUSTED <microseconds to the next tick>. Every number
-- below stays under 2^53, where doubles are exact.

local epoch = tonumber(ARGV[1])
local unit = tonumber(ARGV[2])
local max_tick = tonumber(ARGV[3])
local max_seq = tonumber(ARGV[4])
local max_shard = tonumber(ARGV[5])
local want = tonumber(ARGV[6])
local layout = ARGV[1] .. '/' .. ARGV[2] .. '/' .. ARGV[3] .. '/' .. ARGV[4]

local raw = redis.call('GET', KEYS[1])
if not raw then
  return redis.error_reply('FLOE_NOSHARD shard key ' .. KEYS[1] .. ' is not set: run floe redis init --shard N')
end
local shard = tonumber(raw)
if not shard or shard ~= math.floor(shard) or shard < 0 or shard > max_shard then
  return redis.error_reply('FLOE_BADSHARD shard key ' .. KEYS[1] .. ' holds ' .. raw .. ', not a shard ID in 0..' .. max_shard)
end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) - epoch
if now < 0 then
  return redis.error_reply('FLOE_BEFORE_EPOCH the Redis clock reads before the layout epoch')
end
local tick = math.floor(now / unit)
if tick > max_tick then
  return redis.error_reply('FLOE_TIME_EXHAUSTED the layout time has run out')
end

local state = redis.call('HMGET', KEYS[2], 'tick', 'seq', 'layout')
local last_tick = tonumber(state[1])
local last_seq = tonumber(state[2])
if state[3] and state[3] ~= layout then
  return redis.error_reply('FLOE_LAYOUT state key ' .. KEYS[2] .. ' was written under layout ' .. state[3] .. ', not ' .. layout)
end

local first = 0
if last_tick then
  if tick < last_tick then
    return redis.error_reply('FLOE_BACKWARDS ' .. string.format('%d', (last_tick - tick) * unit - (now - tick * unit)) .. ' the Redis clock is behind the last tick issued')
  end
  if tick == last_tick then
    if last_seq >= max_seq then
      return redis.error_reply('FLOE_EXHAUSTED ' .. string.format('%d', (tick + 1) * unit - now) .. ' the sequence of this tick is spent')
    end
    first = last_seq + 1
  end
end

local last = math.min(first + want - 1, max_seq)
redis.call('HSET', KEYS[2], 'tick', string.format('%d', tick), 'seq', last, 'layout', layout)
return {shard, tick, first, last - first + 1}
