-- settle.lua — replace a reservation by the call's actual tokens and cost,
-- exactly once per request id.
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
-- KEYS[1]    tw:{T}:res:<request_id>       reservation record (deleted)
-- KEYS[2]    tw:{T}:settled:<request_id>   settled marker (written)
-- KEYS[3]    tw:{T}:res-deadlines          deadline index (request id removed)
-- KEYS[3+i]  the counters of the record's "c" list, in its order
--
-- ARGV[1]    request id
-- ARGV[2]    actual tokens (prompt + completion)
-- ARGV[3]    actual cost, micro-USD
-- ARGV[4]    settled marker lifetime, ms
--
-- Returns {status, reserved_tokens, reserved_cost, slot_released}
-- (slot_released: 1 if this call removed a slot holder; an expired one was
-- already pruned by admit):
--   status  "settled" | "already_settled" | "unknown" | "stale"
--           already_settled: the marker exists; reserved_* are the settled
--           actuals recorded in it. unknown: no record (never admitted, or
--           its record outlived its retention); nothing done.

local marker = redis.call('GET', KEYS[2])
if marker then
  local t, m = marker:match('^(%d+):(%d+)$')
  return {'already_settled', tonumber(t) or 0, tonumber(m) or 0, 0}
end
local rec = redis.call('HMGET', KEYS[1], 'tokens', 'cost', 'slot', 'c')
if not rec[1] then return {'unknown', 0, 0, 0} end
local c = cjson.decode(rec[4])
if #KEYS ~= 3 + #c then return {'stale', 0, 0, 0} end
for i, e in ipairs(c) do
  if e[2] ~= KEYS[3 + i] then return {'stale', 0, 0, 0} end
end

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

redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], rid)
redis.call('SET', KEYS[2], string.format('%d:%d', actual_tokens, actual_cost), 'PX', ARGV[4])
return {'settled', tokens, cost, released > 0 and 1 or 0}
