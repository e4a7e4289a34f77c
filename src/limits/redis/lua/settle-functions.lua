-- Settles a hold (or records spend without one) once: a marker per settlement id makes a retried
-- settle charge nothing twice. KEYS[1..4]: budget hash, holds, hold amounts, the settlement marker.
-- ARGV[1..4]: hold id, cost (micro-USD), marker TTL ms, spend to start from. Returns 1 when charged
-- now, 0 when this settlement was made before.
local function settleOnce()
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
end
