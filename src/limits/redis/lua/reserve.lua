-- Reserves a budget hold (after server-now.lua and budget-functions.lua; KEYS and ARGV as there).
-- Returns: admitted (1/0), spent, held.
local spent, held, room = budgetState(now)
if not room then return { 0, spent, held } end
takeHold(now)
return { 1, spent, held + tonumber(ARGV[2]) }
