-- Rate-limit buckets of two kinds. Bucket `i` is KEYS[ko + i] with its ARGV from
-- `ao + (i - 1) * 5`: amount, kind (1 window, 0 GCRA), then three numbers of its kind:
-- - a window (requests): period ms, limit, and for a refund the time its admissions were recorded
--   (0: the newest). KEYS[ko + i] is a list of admission times, oldest first, at most `limit` long
--   (the newest `limit` are all the answers need), expiring one period after its newest entry. A
--   draw of n is admitted while the list, once the entries at or before now - period are popped,
--   holds at most limit - n;
-- - GCRA (tokens) as a leaky bucket in scaled integers: step, leak, cap; its level rises by `step`
--   per unit drawn and falls by `leak` per millisecond, and holds at most `cap`. KEYS[ko + i] is a
--   hash: `l` level, `t` last update.
-- The arguments are read through `bucketArgs` (ARGV unless a script replaces it: a lease raises
-- the amounts it draws once it knows how much room there is).
local bucketArgs = ARGV
local function arg(ao, i, k) return tonumber(bucketArgs[ao + (i - 1) * 5 + k]) end
local function isWindow(ao, i) return bucketArgs[ao + (i - 1) * 5 + 2] == '1' end
local function stamp(ms) return string.format('%.0f', ms) end
-- Per GCRA bucket, the time its level is stored at: now, or later when a lease recorded its level
-- at the lease's end (lease.lua); a draw keeps that later time, so the lease's refill is never given.
local bucketStamps = {}
-- Each bucket's level now: a window's admissions still in it, a GCRA bucket's level after its leak.
local function bucketLevels(now, ko, ao, count)
  local levels = {}
  for i = 1, count do
    local key = KEYS[ko + i]
    if isWindow(ao, i) then
      local cutoff = now - arg(ao, i, 3)
      local newest = tonumber(redis.call('LINDEX', key, -1))
      if newest and newest <= cutoff then
        redis.call('DEL', key)
      else
        -- One pop per admission, a period after it was pushed: O(1) per admission.
        while true do
          local oldest = tonumber(redis.call('LINDEX', key, 0))
          if not oldest or oldest > cutoff then break end
          redis.call('LPOP', key)
        end
      end
      levels[i] = redis.call('LLEN', key)
    else
      local stored = redis.call('HMGET', key, 'l', 't')
      local level = tonumber(stored[1]) or 0
      local last = tonumber(stored[2]) or now
      if now > last then
        level = level - (now - last) * arg(ao, i, 4)
        if level < 0 then level = 0 end
        last = now
      end
      levels[i] = level
      bucketStamps[i] = last
    end
  end
  return levels
end
-- allowed (1/0), refused bucket index (0-based, -1 none), retry-after ms (-1: never)
local function bucketCheck(levels, now, ko, ao, count)
  for i = 1, count do
    local amount = arg(ao, i, 1)
    if amount > 0 and isWindow(ao, i) then
      local limit = arg(ao, i, 4)
      if amount > limit then return 0, i - 1, -1 end
      if levels[i] + amount > limit then
        -- Admitted once the entry that has to leave first left the window.
        local leaves = tonumber(redis.call('LINDEX', KEYS[ko + i], levels[i] + amount - limit - 1))
        return 0, i - 1, leaves + arg(ao, i, 3) - now
      end
    elseif amount > 0 then
      local need = amount * arg(ao, i, 3)
      local cap = arg(ao, i, 5)
      if levels[i] + need > cap then
        if need > cap then return 0, i - 1, -1 end
        return 0, i - 1, math.ceil((levels[i] + need - cap) / arg(ao, i, 4))
      end
    end
  end
  return 1, -1, 0
end
-- When a draw's admissions are recorded: now, or a window's newest entry if later (the server's
-- clock stepped back): windows stay sorted, and a refund names this one time.
local function recordingTime(now, ko, ao, count)
  local at = now
  for i = 1, count do
    if isWindow(ao, i) and arg(ao, i, 1) > 0 then
      local newest = tonumber(redis.call('LINDEX', KEYS[ko + i], -1))
      if newest and newest > at then at = newest end
    end
  end
  return at
end
local function windowFinish(level, now, at, key, ao, i, apply, reply)
  local amount = arg(ao, i, 1)
  local period = arg(ao, i, 3)
  local limit = arg(ao, i, 4)
  if apply and amount > 0 then
    local entries = {}
    for _ = 1, math.min(amount, limit) do
      entries[#entries + 1] = stamp(at)
      if #entries == 1000 then
        redis.call('RPUSH', key, unpack(entries))
        entries = {}
      end
    end
    if #entries > 0 then redis.call('RPUSH', key, unpack(entries)) end
    level = level + amount
    if level > limit then
      redis.call('LTRIM', key, -limit, -1)
      level = limit
    end
    redis.call('PEXPIRE', key, at - now + period)
  elseif apply and amount < 0 then
    local admitted = arg(ao, i, 5)
    if admitted > 0 then
      redis.call('LREM', key, amount, stamp(admitted))
    else
      for _ = 1, -amount do redis.call('RPOP', key) end
    end
    level = redis.call('LLEN', key)
  end
  local remaining = limit - level
  if remaining < 0 then remaining = 0 end
  reply[#reply + 1] = remaining
  if level == 0 then
    reply[#reply + 1] = 0
    reply[#reply + 1] = 0
    return
  end
  reply[#reply + 1] = tonumber(redis.call('LINDEX', key, -1)) + period - now
  if level < limit then
    reply[#reply + 1] = 0
  else
    reply[#reply + 1] = tonumber(redis.call('LINDEX', key, level - limit)) + period - now
  end
end
-- A GCRA bucket's three reply values at `level`: whole units left, ms until empty, ms until one more
-- unit fits (also what lease.lua answers for the level a lease leaves).
local function gcraReply(level, step, leak, cap, reply)
  local remaining = math.floor((cap - level) / step)
  if remaining < 0 then remaining = 0 end
  reply[#reply + 1] = remaining
  reply[#reply + 1] = math.ceil(level / leak)
  local wait = math.ceil((level + step - cap) / leak)
  if wait < 0 then wait = 0 end
  reply[#reply + 1] = wait
end
local function gcraFinish(level, now, key, ao, i, apply, reply)
  local step = arg(ao, i, 3)
  local leak = arg(ao, i, 4)
  local cap = arg(ao, i, 5)
  if apply then
    local at = bucketStamps[i] or now
    level = level + arg(ao, i, 1) * step
    if level < 0 then level = 0 end
    if level == 0 then
      redis.call('DEL', key)
    else
      redis.call('HSET', key, 'l', string.format('%.0f', level), 't', at)
      redis.call('PEXPIRE', key, at - now + math.ceil(level / leak) + 1000)
    end
  end
  gcraReply(level, step, leak, cap, reply)
end
-- Draws every bucket when `apply`, then appends each one's remaining units, ms until full and ms
-- until one more unit fits.
local function bucketFinish(levels, now, at, ko, ao, count, apply, reply)
  for i = 1, count do
    if isWindow(ao, i) then
      windowFinish(levels[i], now, at, KEYS[ko + i], ao, i, apply, reply)
    else
      gcraFinish(levels[i], now, KEYS[ko + i], ao, i, apply, reply)
    end
  end
end
