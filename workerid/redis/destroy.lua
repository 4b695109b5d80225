-- floe workerid/redis: remove a named sequence with every owner, fence and
-- reservation key of its worker IDs, so its holders' next renewal or
-- reservation fails; record what the generation could have issued as the
-- name's retired generation, and announce the destruction.
--
-- KEYS[1]  the sequence hash: name -> "gen spec"
-- KEYS[2]  the retired hash: name -> "gen tick spec"
-- ARGV[1]  the name
-- ARGV[2]  the prefix of the sequence's generations: <prefix>seq/<name>/
-- ARGV[3]  the channel that hears the names of destroyed sequences
--
-- Reply: 1 if removed, 0 if there was no such sequence.
--
-- The retired tick is the highest of each worker ID's reservation R, or of
-- its last tick when it was released cleanly and is not held. Ticks are
-- compared as decimal strings (no leading zeros): Lua numbers are doubles.
--
-- Order of the writes (Redis does not roll a script back when a command
-- fails, so each prefix of them must be safe and retrying must finish):
--   1. HSET the retired generation, before anything is deleted;
--   2. HDEL the sequence: from here no claim or reservation of the
--      generation succeeds (claim.lua and reserve.lua check it), so no
--      holder raises R above the retired tick;
--   3. DEL the worker IDs' keys, the count of worker IDs ("ids") last;
--   4. PUBLISH the name.
-- A retry after step 2 finds the sequence gone but the retired generation's
-- "ids" key still there, and finishes steps 3 and 4. (A generation that
-- reserved nothing records no retired generation; if its destroy stops
-- after step 2, its fence keys and "ids" stay behind, harmless: nothing
-- claims or reserves under a generation the catalog no longer has.)

local function above(a, b)
  if #a ~= #b then
    return #a > #b
  end
  return a > b
end

-- clean deletes the keys of generation gen and announces the name.
local function clean(gen)
  local p = ARGV[2] .. gen .. '/'
  local n = tonumber(redis.call('GET', p .. 'ids') or '0')
  for id = 0, n - 1 do
    redis.call('DEL', p .. 'workers/' .. id, p .. 'fence/' .. id, p .. 'reserved/' .. id)
  end
  redis.call('DEL', p .. 'ids')
  redis.call('PUBLISH', ARGV[3], ARGV[1])
end

local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then
  -- A destroy that stopped after step 2: finish it.
  local old = redis.call('HGET', KEYS[2], ARGV[1])
  local gen = old and string.match(old, '^(%d+) ')
  if gen and redis.call('EXISTS', ARGV[2] .. gen .. '/ids') == 1 then
    clean(gen)
    return 1
  end
  return 0
end
local gen, spec = string.match(cur, '^(%d+) (.*)$')
if not gen then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('PUBLISH', ARGV[3], ARGV[1])
  return 1
end
local p = ARGV[2] .. gen .. '/'
local n = tonumber(redis.call('GET', p .. 'ids') or '0')
local top = '0'
for id = 0, n - 1 do
  local v = redis.call('GET', p .. 'reserved/' .. id)
  if v then
    local r, last = string.match(v, '^(%d+):(%d+):')
    if r then
      local tick = r
      if last ~= '0' and redis.call('EXISTS', p .. 'workers/' .. id) == 0 then
        tick = last
      end
      if above(tick, top) then
        top = tick
      end
    end
  end
end
if top ~= '0' then
  redis.call('HSET', KEYS[2], ARGV[1], gen .. ' ' .. top .. ' ' .. spec)
end
redis.call('HDEL', KEYS[1], ARGV[1])
clean(gen)
return 1
