-- A draw that may also take a lease (after server-now.lua and bucket-functions.lua). The draw is
-- checked as buckets.lua's `draw` (all or nothing); when admitted, the lease holds as many more
-- draws like it as every bucket can give within its wanted extra (ARGV[2 + 5 * count + i]) and
-- 1/ARGV[2] of the room it has left after the draw: leases shrink as a window fills, and none is
-- granted below one whole draw, so near the limit every admission comes here one by one. What a
-- lease takes is recorded ARGV[1] ms ahead (the lease's life): a window's entries carry that time
-- and leave the window a period after it, a GCRA bucket's level is the one it will have then, so
-- whenever the instance uses a unit within the lease's life, no window ever held more than the
-- limit. KEYS: one per bucket; ARGV[3..]: five per bucket as buckets.lua's. Returns buckets.lua's
-- `draw` reply (the states after the draw and the lease, as of now), then the units leased per
-- bucket.
local life = tonumber(ARGV[1])
local share = tonumber(ARGV[2])
local count = #KEYS
local ao = 2
local levels = bucketLevels(now, 0, ao, count)
local allowed, refused, retry = bucketCheck(levels, now, 0, ao, count)
-- How many more draws like this one the lease holds: what every bucket can give, in whole draws.
local extras = {}
local draws = 0
if allowed == 1 then
  draws = math.huge
  for i = 1, count do
    local amount = arg(ao, i, 1)
    local want = tonumber(ARGV[ao + 5 * count + i])
    if amount > 0 then
      local free
      if isWindow(ao, i) then
        free = arg(ao, i, 4) - levels[i] - amount
      else
        free = math.floor((arg(ao, i, 5) - levels[i]) / arg(ao, i, 3)) - amount
      end
      local room = math.floor(free / share)
      if want < room then room = want end
      local fit = math.floor(room / amount)
      if fit < draws then draws = fit end
    end
  end
  if draws == math.huge then draws = 0 end
end
local leased = draws >= 1
for i = 1, count do
  extras[i] = 0
  if leased then extras[i] = draws * arg(ao, i, 1) end
end
local at = now
if allowed == 1 then
  if leased then
    -- The lease's amounts replace the draw's: copied, ARGV itself stays as sent.
    local raised = {}
    for index = 1, #ARGV do raised[index] = ARGV[index] end
    for i = 1, count do
      local slot = ao + (i - 1) * 5 + 1
      raised[slot] = tostring(tonumber(ARGV[slot]) + extras[i])
    end
    bucketArgs = raised
    at = recordingTime(now + life, 0, ao, count)
  else
    at = recordingTime(now, 0, ao, count)
  end
end
local reply = { allowed, refused, retry, at }
if not leased then
  bucketFinish(levels, now, at, 0, ao, count, allowed == 1, reply)
else
  for i = 1, count do
    local key = KEYS[i]
    if isWindow(ao, i) then
      windowFinish(levels[i], now, at, key, ao, i, true, reply)
    else
      -- Stored as its level at the lease's end (the refill until then is not given away), the
      -- state told as of now.
      local step, leak, cap = arg(ao, i, 3), arg(ao, i, 4), arg(ao, i, 5)
      local from = bucketStamps[i] or now
      local atEnd = levels[i]
      if at > from then atEnd = atEnd - (at - from) * leak end
      if atEnd < 0 then atEnd = 0 end
      local drawn = arg(ao, i, 1) * step
      redis.call('HSET', key, 'l', string.format('%.0f', atEnd + drawn), 't', at)
      redis.call('PEXPIRE', key, at - now + math.ceil((atEnd + drawn) / leak) + 1000)
      gcraReply(levels[i] + drawn, step, leak, cap, reply)
    end
  end
end
for i = 1, count do reply[#reply + 1] = extras[i] end
return reply
