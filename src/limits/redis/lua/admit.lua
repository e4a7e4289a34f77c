-- A request of a key with a budget, in one step (after server-now.lua, budget-functions.lua and
-- bucket-functions.lua): the budget hold and every rate-limit bucket (KEYS[4..], ARGV from 6 as
-- buckets.lua's draw) are checked together and taken together, or nothing is. Returns: budget
-- admitted (1/0), spent, held, then buckets.lua's reply (a budget refusal draws nothing and reports
-- the buckets as they are).
local count = #KEYS - 3
local spent, held, room = budgetState(now)
local levels = bucketLevels(now, 3, 5, count)
local allowed, refused, retry = bucketCheck(levels, now, 3, 5, count)
local admit = room and allowed == 1
local at = now
if admit then
  takeHold(now)
  held = held + tonumber(ARGV[2])
  at = recordingTime(now, 3, 5, count)
end
local reply = { room and 1 or 0, spent, held, allowed, refused, retry, at }
bucketFinish(levels, now, at, 3, 5, count, admit, reply)
return reply
