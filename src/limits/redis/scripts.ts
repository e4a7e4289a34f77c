/**
 * The server-side scripts of the Redis store. Each runs atomically on the server with the
 * server's clock (`TIME`), so any number of gateway instances see one truth, and each is one
 * round trip (EVALSHA). Integers only: bucket levels are scaled so that a unit and a
 * millisecond's refill are both whole numbers (see `scaledBucket`), money is micro-USD.
 */

/**
 * Rate-limit buckets as leaky buckets in scaled integers (equivalent to GCRA): a bucket's level
 * rises by `step` per unit drawn and falls by `leak` per millisecond, and holds at most `cap`.
 * KEYS: one hash per bucket (`l` level, `t` last update). ARGV[1]: mode (`draw` all-or-nothing,
 * `take` without a check, `peek`), then per bucket: amount, step, leak, cap.
 * Returns: allowed (1/0), refused bucket index (0-based, -1 none), retry-after ms (-1: never),
 * then per bucket remaining units and ms until full.
 */
export const bucketsScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local mode = ARGV[1]
local count = #KEYS
local levels = {}
for i = 1, count do
  local base = 1 + (i - 1) * 4
  local leak = tonumber(ARGV[base + 3])
  local stored = redis.call('HMGET', KEYS[i], 'l', 't')
  local level = tonumber(stored[1]) or 0
  local last = tonumber(stored[2]) or now
  if now > last then
    level = level - (now - last) * leak
    if level < 0 then level = 0 end
  end
  levels[i] = level
end
local allowed = 1
local refused = -1
local retry = 0
if mode == 'draw' then
  for i = 1, count do
    local base = 1 + (i - 1) * 4
    local need = tonumber(ARGV[base + 1]) * tonumber(ARGV[base + 2])
    local cap = tonumber(ARGV[base + 4])
    if levels[i] + need > cap then
      allowed = 0
      refused = i - 1
      if need > cap then retry = -1
      else retry = math.ceil((levels[i] + need - cap) / tonumber(ARGV[base + 3])) end
      break
    end
  end
end
local reply = { allowed, refused, retry }
for i = 1, count do
  local base = 1 + (i - 1) * 4
  local step = tonumber(ARGV[base + 2])
  local leak = tonumber(ARGV[base + 3])
  local cap = tonumber(ARGV[base + 4])
  local level = levels[i]
  if allowed == 1 and mode ~= 'peek' then
    level = level + tonumber(ARGV[base + 1]) * step
    if level < 0 then level = 0 end
    if level == 0 then
      redis.call('DEL', KEYS[i])
    else
      redis.call('HSET', KEYS[i], 'l', string.format('%.0f', level), 't', now)
      redis.call('PEXPIRE', KEYS[i], math.ceil(level / leak) + 1000)
    end
  end
  local remaining = math.floor((cap - level) / step)
  if remaining < 0 then remaining = 0 end
  reply[#reply + 1] = remaining
  reply[#reply + 1] = math.ceil(level / leak)
end
return reply
`;

/**
 * Reserves a budget hold. KEYS: the key's budget hash (`spent`, `held`), its holds (sorted set,
 * score = expiry ms), the holds' amounts (hash). ARGV: budget, amount, hold id, hold TTL ms, the
 * spend to start from when Redis has none yet (all micro-USD but the TTL). Expired holds are freed
 * first. Admits while spent + held < budget. Returns: admitted (1/0), spent, held.
 */
export const reserveScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
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
if spent + held >= tonumber(ARGV[1]) then return { 0, spent, held } end
redis.call('HINCRBY', KEYS[1], 'held', ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[2])
return { 1, spent, held + tonumber(ARGV[2]) }
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
