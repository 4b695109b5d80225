-- floe workerid/redis: ask the server's ACL whether the calling user may
-- run each command the Source and Catalog run, with the keys and channels
-- they use (redis.acl_check_cmd, Redis 7.0 and later). It writes nothing.
--
-- ARGV  commands one after another, each as its argument count then the
--       command name and its arguments
--
-- Reply: one integer per command, 1 if permitted, 0 if not, 2 if the server
-- has no such command (renamed or disabled); or -1 when the server has no
-- redis.acl_check_cmd (before Redis 7.0).

if not redis.acl_check_cmd then
  return -1
end
local out = {}
local i = 1
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  local called, ok = pcall(redis.acl_check_cmd, unpack(ARGV, i + 1, i + n))
  if not called then
    out[#out + 1] = 2
  elseif ok then
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
  i = i + n + 1
end
return out
