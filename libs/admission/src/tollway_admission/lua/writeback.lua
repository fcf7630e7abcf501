-- writeback.lua — add the budget spend one edge process made in local mode
-- (Valkey unreachable) to the counters, once per write-back id.
--
-- Merge rule (libs/admission/README.md, "Local mode and write-back"):
--   * the write-back id ("<process id>:<split id>:<seq>") is applied at most
--     once: its marker is written with the first attempt, and a retried
--     write-back (a lost reply, a restarted probe) finds it and changes nothing;
--   * mode "add" (Valkey kept its data through the split: the epoch the
--     process saw before the split is unchanged): spent += amount on every
--     counter that exists; a missing counter (expired, or never seeded) is
--     skipped — its seed from the ledger will include the spend;
--   * mode "skip" (Valkey lost its data: the epoch changed): nothing is added
--     anywhere — every counter now present was, or will be, seeded from the
--     ledger, which holds the local calls (their usage events); the marker is
--     still written, so a later retry in "add" mode cannot count them again.
-- A journal replay of a local call's usage event settles nothing (the call
-- has no reservation record in Valkey: settle answers "unknown"), so the
-- local spend reaches the counters by exactly one of: this write-back (Valkey
-- kept) or the ledger seed (Valkey lost).
--
-- KEYS[1]    tw:{T}:writeback:<write-back id>   applied marker (written)
-- KEYS[1+i]  tw:{T}:budget:<scope>:<period>:<start s>   budget counters
--
-- ARGV[1]    marker lifetime, ms (longer than any retry: the budget grace)
-- ARGV[2]    "add" | "skip"
-- ARGV[2+i]  micro-USD spent locally on KEYS[1+i] (>= 0)
--
-- Returns {status, counters added to}: status "written" | "already_written".

if redis.call('EXISTS', KEYS[1]) == 1 then return {'already_written', 0} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
local n = 0
if ARGV[2] == 'add' then
  for i = 2, #KEYS do
    local amount = tonumber(ARGV[1 + i])
    if amount > 0 and redis.call('EXISTS', KEYS[i]) == 1 then
      redis.call('HINCRBY', KEYS[i], 'spent', amount)
      n = n + 1
    end
  end
end
return {'written', n}
