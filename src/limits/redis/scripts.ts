/**
 * The server-side scripts of the Redis store. Each runs atomically on the server with the
 * server's clock (`TIME`), so any number of gateway instances see one truth, and each is one
 * round trip (EVALSHA). Integers only: bucket levels are scaled so that a unit and a
 * millisecond's refill are both whole numbers (see `scaledBucket`), money is micro-USD.
 */

/** The server's clock in milliseconds (every script decides on it, never on an instance's). */
const serverNow = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * Rate-limit buckets as leaky buckets in scaled integers (equivalent to GCRA): a bucket's level
 * rises by `step` per unit drawn and falls by `leak` per millisecond, and holds at most `cap`.
 * Bucket `i` is KEYS[ko + i] (a hash: `l` level, `t` last update) with its ARGV from
 * `ao + (i - 1) * 4`: amount, step, leak, cap.
 */
const bucketFunctions = `
local function arg(ao, i, k) return tonumber(ARGV[ao + (i - 1) * 4 + k]) end
local function bucketLevels(now, ko, ao, count)
  local levels = {}
  for i = 1, count do
    local stored = redis.call('HMGET', KEYS[ko + i], 'l', 't')
    local level = tonumber(stored[1]) or 0
    local last = tonumber(stored[2]) or now
    if now > last then
      level = level - (now - last) * arg(ao, i, 3)
      if level < 0 then level = 0 end
    end
    levels[i] = level
  end
  return levels
end
-- allowed (1/0), refused bucket index (0-based, -1 none), retry-after ms (-1: never)
local function bucketCheck(levels, ao, count)
  for i = 1, count do
    local need = arg(ao, i, 1) * arg(ao, i, 2)
    local cap = arg(ao, i, 4)
    if levels[i] + need > cap then
      if need > cap then return 0, i - 1, -1 end
      return 0, i - 1, math.ceil((levels[i] + need - cap) / arg(ao, i, 3))
    end
  end
  return 1, -1, 0
end
-- Draws every bucket when \`apply\`, then appends each one's remaining units and ms until full.
local function bucketFinish(levels, now, ko, ao, count, apply, reply)
  for i = 1, count do
    local step = arg(ao, i, 2)
    local leak = arg(ao, i, 3)
    local cap = arg(ao, i, 4)
    local level = levels[i]
    if apply then
      level = level + arg(ao, i, 1) * step
      if level < 0 then level = 0 end
      if level == 0 then
        redis.call('DEL', KEYS[ko + i])
      else
        redis.call('HSET', KEYS[ko + i], 'l', string.format('%.0f', level), 't', now)
        redis.call('PEXPIRE', KEYS[ko + i], math.ceil(level / leak) + 1000)
      end
    end
    local remaining = math.floor((cap - level) / step)
    if remaining < 0 then remaining = 0 end
    reply[#reply + 1] = remaining
    reply[#reply + 1] = math.ceil(level / leak)
  end
end
`;

/**
 * Rate-limit buckets. KEYS: one hash per bucket. ARGV[1]: mode (`draw` all-or-nothing, `take`
 * without a check, `peek`), then per bucket: amount, step, leak, cap.
 * Returns: allowed (1/0), refused bucket index (0-based, -1 none), retry-after ms (-1: never),
 * then per bucket remaining units and ms until full.
 */
export const bucketsScript = `${serverNow}${bucketFunctions}
local mode = ARGV[1]
local count = #KEYS
local levels = bucketLevels(now, 0, 1, count)
local allowed, refused, retry = 1, -1, 0
if mode == 'draw' then allowed, refused, retry = bucketCheck(levels, 1, count) end
local reply = { allowed, refused, retry }
bucketFinish(levels, now, 0, 1, count, allowed == 1 and mode ~= 'peek', reply)
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
local allowed, refused, retry = bucketCheck(levels, 5, count)
local admit = room and allowed == 1
if admit then
  takeHold(now)
  held = held + tonumber(ARGV[2])
end
local reply = { room and 1 or 0, spent, held, allowed, refused, retry }
bucketFinish(levels, now, 3, 5, count, admit, reply)
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
