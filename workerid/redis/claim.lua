-- floe workerid/redis: claim the first free worker ID, preferring one this
-- owner held last. Standalone Redis only: the keys are built from the prefix.
--
-- ARGV[1]  the key prefix
-- ARGV[2]  how many worker IDs there are (n)
-- ARGV[3]  where to start the search, 0..n-1
-- ARGV[4]  the new owner token
-- ARGV[5]  the lease TTL, milliseconds
-- ARGV[6]  the owner name
-- ARGV[7]  the catalog's sequence hash, or '' outside a catalog
-- ARGV[8]  the sequence name
-- ARGV[9]  the sequence generation
-- ARGV[10] the key recording the most worker IDs the sequence used
--
-- Reply: {id, fence, reservation as it was ('' if none)}; {-1} when every
-- ID is held; {-2} when the sequence is gone. The reservation is rewritten
-- as "R:0:owner": a clean release's last tick serves this claim only.

local prefix, n, off = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local token, ttl, owner = ARGV[4], ARGV[5], ARGV[6]

if ARGV[7] ~= '' then
  local seq = redis.call('HGET', ARGV[7], ARGV[8])
  if not seq or string.match(seq, '^(%d+) ') ~= ARGV[9] then
    return {-2}
  end
  local used = tonumber(redis.call('GET', ARGV[10]) or '0')
  if n > used then
    redis.call('SET', ARGV[10], ARGV[2])
  end
end

local pick
for k = 0, n - 1 do
  local id = (off + k) % n
  if redis.call('EXISTS', prefix .. 'workers/' .. id) == 0 then
    if not pick then
      pick = id
    end
    local v = redis.call('GET', prefix .. 'reserved/' .. id)
    if v and string.match(v, '^%d+:%d+:(.*)$') == owner then
      pick = id
      break
    end
  end
end
if not pick then
  return {-1}
end

local rkey = prefix .. 'reserved/' .. pick
local old = redis.call('GET', rkey)
local r = '0'
if old then
  r = string.match(old, '^(%d+):%d+:')
  if not r then
    return redis.error_reply('FLOE_BADRESERVATION ' .. rkey)
  end
end
redis.call('SET', prefix .. 'workers/' .. pick, token, 'PX', ttl)
local fence = redis.call('INCR', prefix .. 'fence/' .. pick)
redis.call('SET', rkey, r .. ':0:' .. owner)
return {pick, fence, old or ''}
