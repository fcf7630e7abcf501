-- settle.lua — replace a reservation by the call's actual tokens and cost,
-- exactly once per request id; a late usage event after a provisional
-- reconciliation still lands, once.
--
-- On every counter the reservation touched: tpm += actual - reserved tokens;
-- budget reserved -= reserved micro-USD and spent += actual micro-USD (a refund
-- or an extra charge). The concurrency slot is released if still held. Then the
-- record is deleted and the settled marker written; the marker outlives the
-- record, so a second settle (a redelivered usage event, a reconciler racing
-- the consumer) finds it and changes nothing. A counter that has expired (its
-- minute or period is long over) is not recreated. Settling works past the
-- reservation's deadline as long as the record exists (reconciliation).
--
-- Provisional settlement (ARGV[5] = "1"): reconciliation of an expired
-- reservation whose call has no terminal ledger row yet settles it with what
-- it knows (normally zero) but PROVISIONALLY: counters, slot and deadline index
-- as above, the marker is "<tokens>:<cost>:p", and the record is kept (slot
-- "0", "prov" "1") for the marker's lifetime, so its counter list is known
-- later. Merge rule, per request id:
--   final settle, no marker           -> settle (above); marker final
--   provisional settle, no marker     -> settle provisionally; marker ":p"
--   final settle, marker ":p"         -> the late event: on every counter that
--                                        still exists, tpm += actual - provisional
--                                        tokens, spent += actual - provisional
--                                        micro-USD (floored at 0); record deleted,
--                                        marker final; status "settled_late"
--   any settle, final marker          -> nothing ("already_settled")
--   provisional settle, marker ":p"   -> nothing ("already_settled")
-- so the call's spend lands on the counters exactly once whichever of the
-- usage event and the reconciler comes first, and however often either repeats.
--
-- KEYS[1]    tw:{T}:res:<request_id>       reservation record (deleted; kept if provisional)
-- KEYS[2]    tw:{T}:settled:<request_id>   settled marker (written)
-- KEYS[3]    tw:{T}:res-deadlines          deadline index (request id removed)
-- KEYS[3+i]  the counters of the record's "c" list, in its order
--
-- ARGV[1]    request id
-- ARGV[2]    actual tokens (prompt + completion)
-- ARGV[3]    actual cost, micro-USD
-- ARGV[4]    settled marker lifetime, ms
-- ARGV[5]    "1": provisional (reconciliation without a ledger row); absent or
--            "0": final (the usage event, or the ledger's terminal row)
--
-- Returns {status, reserved_tokens, reserved_cost, slot_released}
-- (slot_released: 1 if this call removed a slot holder; an expired one was
-- already pruned by admit):
--   status  "settled" | "settled_late" | "already_settled" | "unknown" | "stale"
--           already_settled: the marker exists; reserved_* are the settled
--           actuals recorded in it. settled_late: a final settle replaced a
--           provisional one; reserved_* are the provisional amounts replaced.
--           unknown: no record (never admitted, or its record outlived its
--           retention); nothing done.

local provisional = ARGV[5] == '1'
local function counters_match(c)
  if #KEYS ~= 3 + #c then return false end
  for i, e in ipairs(c) do
    if e[2] ~= KEYS[3 + i] then return false end
  end
  return true
end

local marker = redis.call('GET', KEYS[2])
if marker then
  local t, m, p = marker:match('^(%d+):(%d+)(:?p?)$')
  t, m = tonumber(t) or 0, tonumber(m) or 0
  if p ~= ':p' or provisional then return {'already_settled', t, m, 0} end
  -- The late final settle of a provisionally settled call: add the difference.
  local craw = redis.call('HGET', KEYS[1], 'c')
  if not craw then return {'already_settled', t, m, 0} end
  local c = cjson.decode(craw)
  if not counters_match(c) then return {'stale', 0, 0, 0} end
  local at, am = tonumber(ARGV[2]), tonumber(ARGV[3])
  local seen = {}
  for _, e in ipairs(c) do
    local kind, key = e[1], e[2]
    local fresh = not seen[key]
    seen[key] = true
    if fresh and redis.call('EXISTS', key) == 1 then
      if kind == 'tpm' then
        local v = redis.call('INCRBY', key, at - t)
        if v < 0 then redis.call('SET', key, 0, 'KEEPTTL') end
      elseif kind == 'budget' then
        local v = redis.call('HINCRBY', key, 'spent', am - m)
        if v < 0 then redis.call('HSET', key, 'spent', 0) end
      end
    end
  end
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], string.format('%d:%d', at, am), 'PX', ARGV[4])
  return {'settled_late', t, m, 0}
end
local rec = redis.call('HMGET', KEYS[1], 'tokens', 'cost', 'slot', 'c')
if not rec[1] then return {'unknown', 0, 0, 0} end
local c = cjson.decode(rec[4])
if not counters_match(c) then return {'stale', 0, 0, 0} end

local rid = ARGV[1]
local actual_tokens, actual_cost = tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens, cost = tonumber(rec[1]), tonumber(rec[2])
local slot_held = rec[3] == '1'

local written, released = {}, 0
for _, e in ipairs(c) do
  local kind, key = e[1], e[2]
  if not written[key] then
    written[key] = true
    if kind == 'tpm' then
      if redis.call('EXISTS', key) == 1 then
        local v = redis.call('INCRBY', key, actual_tokens - tokens)
        if v < 0 then redis.call('SET', key, 0, 'KEEPTTL') end
      end
    elseif kind == 'budget' then
      if redis.call('EXISTS', key) == 1 then
        local r = redis.call('HINCRBY', key, 'reserved', -cost)
        if r < 0 then redis.call('HSET', key, 'reserved', 0) end
        redis.call('HINCRBY', key, 'spent', actual_cost)
      end
    elseif kind == 'conc' and slot_held then
      released = released + redis.call('ZREM', key, rid)
    end
  end
end

redis.call('ZREM', KEYS[3], rid)
if provisional then
  redis.call('HSET', KEYS[1], 'slot', '0', 'prov', '1')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('SET', KEYS[2], string.format('%d:%d:p', actual_tokens, actual_cost), 'PX', ARGV[4])
else
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], string.format('%d:%d', actual_tokens, actual_cost), 'PX', ARGV[4])
end
return {'settled', tokens, cost, released > 0 and 1 or 0}
