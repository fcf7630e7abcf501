-- seed.lua — create missing budget counters from the ledger's spend, once.
--
-- SET NX semantics per counter: a counter that exists (seeded by another
-- caller a moment ago, or live) is left untouched, so however many callers
-- race on a cold period, exactly one value is written and no reservation or
-- spend recorded since is overwritten.
--
-- KEYS[i]        tw:{T}:budget:<scope>:<period>:<start s>   (one tenant: one hash tag)
-- ARGV[2i-1]     spent to seed, micro-USD (the ledger's spend for that scope and period)
-- ARGV[2i]       counter lifetime, ms (until period end + grace, by the caller's clock)
--
-- Returns, per key, 1 if this call created it, 0 if it already existed.

local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 0 then
    redis.call('HSET', key, 'spent', ARGV[2 * i - 1], 'reserved', 0)
    redis.call('PEXPIRE', key, ARGV[2 * i])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
