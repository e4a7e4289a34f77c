-- Rate-limit buckets (after server-now.lua and bucket-functions.lua). KEYS: one per bucket.
-- ARGV[1]: mode (`draw` all-or-nothing, `take` without a check, `peek`), then five per bucket.
-- Returns: allowed (1/0), refused bucket index (0-based, -1 none), retry-after ms (-1: never), the
-- time admissions were recorded at, then per bucket remaining units, ms until full and ms until
-- one more unit fits.
local mode = ARGV[1]
local count = #KEYS
local levels = bucketLevels(now, 0, 1, count)
local allowed, refused, retry = 1, -1, 0
if mode == 'draw' then allowed, refused, retry = bucketCheck(levels, now, 0, 1, count) end
local apply = allowed == 1 and mode ~= 'peek'
local at = now
if apply then at = recordingTime(now, 0, 1, count) end
local reply = { allowed, refused, retry, at }
bucketFinish(levels, now, at, 0, 1, count, apply, reply)
return reply
