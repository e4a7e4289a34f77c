/**
 * The server-side scripts of the Redis store. Each runs atomically on the server with the
 * server's clock (`TIME`), so any number of gateway instances see one truth, and each is one
 * round trip (EVALSHA). Integers only: window entries are milliseconds, GCRA levels are scaled so
 * that a unit and a millisecond's refill are both whole numbers (see `scaledBucket`), money is
 * micro-USD.
 */

/** The server's clock in milliseconds (every script decides on it, never on an instance's). */
const serverNow = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * Rate-limit buckets of two kinds. Bucket `i` is KEYS[ko + i] with its ARGV from
 * `ao + (i - 1) * 5`: amount, kind (1 window, 0 GCRA), then three numbers of its kind:
 * - a window (requests): period ms, limit, and for a refund the time its admissions were recorded
 *   (0: the newest). KEYS[ko + i] is a list of admission times, oldest first, at most `limit` long
 *   (the newest `limit` are all the answers need), expiring one period after its newest entry. A
 *   draw of n is admitted while the list, once the entries at or before now - period are popped,
 *   holds at most limit - n;
 * - GCRA (tokens) as a leaky bucket in scaled integers: step, leak, cap; its level rises by `step`
 *   per unit drawn and falls by `leak` per millisecond, and holds at most `cap`. KEYS[ko + i] is a
 *   hash: `l` level, `t` last update.
 */
const bucketFunctions = `
local function arg(ao, i, k) return tonumber(ARGV[ao + (i - 1) * 5 + k]) end
local function isWindow(ao, i) return ARGV[ao + (i - 1) * 5 + 2] == '1' end
local function stamp(ms) return string.format('%.0f', ms) end
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
      end
      levels[i] = level
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
local function gcraFinish(level, now, key, ao, i, apply, reply)
  local step = arg(ao, i, 3)
  local leak = arg(ao, i, 4)
  local cap = arg(ao, i, 5)
  if apply then
    level = level + arg(ao, i, 1) * step
    if level < 0 then level = 0 end
    if level == 0 then
      redis.call('DEL', key)
    else
      redis.call('HSET', key, 'l', string.format('%.0f', level), 't', now)
      redis.call('PEXPIRE', key, math.ceil(level / leak) + 1000)
    end
  end
  local remaining = math.floor((cap - level) / step)
  if remaining < 0 then remaining = 0 end
  reply[#reply + 1] = remaining
  reply[#reply + 1] = math.ceil(level / leak)
  local wait = math.ceil((level + step - cap) / leak)
  if wait < 0 then wait = 0 end
  reply[#reply + 1] = wait
end
-- Draws every bucket when \`apply\`, then appends each one's remaining units, ms until full and ms
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
`;

/**
 * Rate-limit buckets. KEYS: one per bucket. ARGV[1]: mode (`draw` all-or-nothing, `take`
 * without a check, `peek`), then five per bucket (see `bucketFunctions`).
 * Returns: allowed (1/0), refused bucket index (0-based, -1 none), retry-after ms (-1: never), the
 * time admissions were recorded at, then per bucket remaining units, ms until full and ms until
 * one more unit fits.
 */
export const bucketsScript = `${serverNow}${bucketFunctions}
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
`;

/**
 * A key's budget: KEYS[1] its hash (`spent`, `held`), KEYS[2] its holds (sorted set, score =
 * expiry ms), KEYS[3] the holds' amounts (hash). ARGV[1..5]: budget, amount, hold id, hold TTL
 * ms, the spend to start from when Redis has none yet (all micro-USD but the TTL). Expired holds
 * are freed first; a hold is admitted while spent + held < budget.
 */
const budgetFunctions = `
local function budgetState(now)
  redis.call('HSETNX', KEYS[1], 'spent', ARGV[5])
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
  for _, id in ipairs(expired) do
    local amount = tonumber(redis.call('HGET', KEYS[3], id)) or 0
    redis.call('HINCRBY', KEYS[1], 'held', -amount)
    redis.call('HDEL', KEYS[3], id)
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now) end
  local spent = tonumber(redis.call('HGET', KEYS[1], 'spent')) or 0
  local held = tonumber(redis.call('HGET', KEYS[1], 'held')) or 0
  return spent, held, spent + held < tonumber(ARGV[1])
end
local function takeHold(now)
  redis.call('HINCRBY', KEYS[1], 'held', ARGV[2])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
  redis.call('HSET', KEYS[3], ARGV[3], ARGV[2])
end
`;

/** Reserves a budget hold (KEYS and ARGV as `budgetFunctions`). Returns: admitted (1/0), spent, held. */
export const reserveScript = `${serverNow}${budgetFunctions}
local spent, held, room = budgetState(now)
if not room then return { 0, spent, held } end
takeHold(now)
return { 1, spent, held + tonumber(ARGV[2]) }
`;

/**
 * A request of a key with a budget, in one step: the budget hold and every rate-limit bucket
 * (KEYS[4..], ARGV from 6 as `bucketsScript`'s draw) are checked together and taken together, or
 * nothing is. Returns: budget admitted (1/0), spent, held, then `bucketsScript`'s reply (a budget
 * refusal draws nothing and reports the buckets as they are).
 */
export const admitScript = `${serverNow}${budgetFunctions}${bucketFunctions}
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
`;

/**
 * Settles a hold (or records spend without one) once: a marker per settlement id makes a retried
 * settle charge nothing twice. KEYS: budget hash, holds, hold amounts, the settlement marker.
 * ARGV: hold id, cost (micro-USD), marker TTL ms, spend to start from. Returns 1 when charged now.
 */
export const settleScript = `
if not redis.call('SET', KEYS[4], '1', 'NX', 'PX', ARGV[3]) then return 0 end
redis.call('HSETNX', KEYS[1], 'spent', ARGV[4])
local amount = redis.call('HGET', KEYS[3], ARGV[1])
if amount then
  redis.call('HINCRBY', KEYS[1], 'held', -tonumber(amount))
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
redis.call('HINCRBY', KEYS[1], 'spent', ARGV[2])
return 1
`;
