-- A settlement alone (after settle-functions.lua; KEYS and ARGV as there): 1 when charged now.
return settleOnce()
