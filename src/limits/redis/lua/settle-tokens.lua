-- A request's whole settlement in one step (after server-now.lua, bucket-functions.lua and
-- settle-functions.lua): its key's spend settled as settle.lua does (KEYS[1..4], ARGV[1..4]), then
-- its token reconciliation, one bucket's draw without a check as buckets.lua's `take` (KEYS[5],
-- ARGV[5..9]). The marker guards both: a retry after a lost reply changes neither twice. Returns 1
-- when done now, 0 for a replay.
if settleOnce() == 0 then return 0 end
local levels = bucketLevels(now, 4, 4, 1)
bucketFinish(levels, now, recordingTime(now, 4, 4, 1), 4, 4, 1, true, {})
return 1
