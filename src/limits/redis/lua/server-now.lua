-- The server's clock in milliseconds (every script decides on it, never on an instance's).
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
