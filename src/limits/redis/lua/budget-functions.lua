-- A key's budget: KEYS[1] its hash (`spent`, `held`), KEYS[2] its holds (sorted set, score =
-- expiry ms), KEYS[3] the holds' amounts (hash). ARGV[1..5]: budget, amount, hold id, hold TTL
-- ms, the spend to start from when Redis has none yet (all micro-USD but the TTL). Expired holds
-- are freed first; a hold is admitted while spent + held < budget.
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
