-- Reserves a budget hold (after server-now.lua and budget-functions.lua; KEYS and ARGV as there,
-- plus ARGV[6]: when Redis may forget this account, Unix ms, 0 for never — a periodic budget's
-- account is of no use some time after its period ends). Returns: admitted (1/0), spent, held.
local spent, held, room = budgetState(now)
local admitted = 0
if room then
  takeHold(now)
  admitted = 1
  held = held + tonumber(ARGV[2])
end
local forgetAt = tonumber(ARGV[6] or '0') or 0
if forgetAt > 0 then
  for index = 1, 3 do redis.call('PEXPIREAT', KEYS[index], forgetAt) end
end
return { admitted, spent, held }
