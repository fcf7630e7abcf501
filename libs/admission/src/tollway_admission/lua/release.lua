-- release.lua — give back the concurrency slots of a reservation, once.
--
-- Called when the response ends (the edge). Idempotent: the record's "slot"
-- field goes from "1" to "0" exactly once, whoever calls and however often.
-- Settlement also releases the slot if it is still held; an expired
-- reservation's slot was already pruned by admit.
--
-- KEYS[1]    tw:{T}:res:<request_id>       reservation record
-- KEYS[2]    tw:{T}:settled:<request_id>   settled marker (unused, kept for a uniform KEYS layout)
-- KEYS[3]    tw:{T}:res-deadlines          deadline index (unused, idem)
-- KEYS[3+i]  the counters of the record's "c" list, in its order
--
-- ARGV[1]    request id
--
-- Returns 1 when this call released the slots, 0 when there was nothing to
-- release (already released, settled, expired and pruned, no concurrency
-- limit, or unknown), -1
-- when KEYS do not match the record (caller bug; nothing done).

local rec = redis.call('HMGET', KEYS[1], 'slot', 'c')
if not rec[1] or rec[1] ~= '1' then return 0 end
local c = cjson.decode(rec[2])
if #KEYS ~= 3 + #c then return -1 end
for i, e in ipairs(c) do
  if e[2] ~= KEYS[3 + i] then return -1 end
end
local removed = 0
for _, e in ipairs(c) do
  if e[1] == 'conc' then removed = removed + redis.call('ZREM', e[2], ARGV[1]) end
end
redis.call('HSET', KEYS[1], 'slot', '0')
if removed > 0 then return 1 end
return 0
