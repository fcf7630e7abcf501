-- extend.lua — reserve more tokens and micro-USD for an existing reservation
-- (a stream that outgrows its first allowance), on the same counters it was
-- admitted on, all or nothing.
--
-- Checked against the limits recorded at admission. A tpm or budget counter
-- that has already expired (its minute or period is long over) constrains
-- nothing and is skipped, here and at settlement alike.
--
-- KEYS[1]    tw:{T}:res:<request_id>       reservation record
-- KEYS[2]    tw:{T}:settled:<request_id>   settled marker
-- KEYS[3]    tw:{T}:res-deadlines          deadline index
-- KEYS[3+i]  the counters of the record's "c" list, in its order (the caller
--            reads "c" first; the script checks they match)
--
-- ARGV[1]    now, epoch ms
-- ARGV[2]    tokens to add
-- ARGV[3]    micro-USD to add
-- ARGV[4]    new deadline, epoch ms, or 0 to keep the current one
-- ARGV[5]    new record expiry, epoch ms (used only with a new deadline)
-- ARGV[6]    request id
--
-- Returns {status, flags, tokens, cost}:
--   status  "extended" | "refused" | "settled" | "unknown" | "expired" | "stale"
--           expired: past its deadline (its slot may be gone): not extended.
--           stale: KEYS do not match the record (caller bug): nothing done.
--   flags   per counter of "c": 0 fits, 1 refuses, 2 would refuse (shadow)
--   tokens, cost   the reservation's totals after the call

if redis.call('EXISTS', KEYS[2]) == 1 then return {'settled', {}, 0, 0} end
local rec = redis.call('HMGET', KEYS[1], 'tokens', 'cost', 'deadline', 'slot', 'c')
if not rec[1] then return {'unknown', {}, 0, 0} end

local now = tonumber(ARGV[1])
local add_tokens, add_cost = tonumber(ARGV[2]), tonumber(ARGV[3])
-- Expiries are relative (PEXPIRE of "at - now"), so the caller's clock, not
-- the server's, decides when a counter ends: the two may differ (skew, tests).
local function expire_at(key, at)
  local ttl = at - now
  if ttl < 1 then ttl = 1 end
  redis.call('PEXPIRE', key, ttl)
end
-- Push the key's expiry out to "at" if it ends earlier (never shorten).
local function expire_at_least(key, at)
  local pttl = redis.call('PTTL', key)
  if pttl < 0 or now + pttl < at then expire_at(key, at) end
end
local new_deadline, new_expire = tonumber(ARGV[4]), tonumber(ARGV[5])
local tokens, cost, deadline = tonumber(rec[1]), tonumber(rec[2]), tonumber(rec[3])
local c = cjson.decode(rec[5])

if #KEYS ~= 3 + #c then return {'stale', {}, tokens, cost} end
for i, e in ipairs(c) do
  if e[2] ~= KEYS[3 + i] then return {'stale', {}, tokens, cost} end
end
if deadline <= now then return {'expired', {}, tokens, cost} end

local flags, refused = {}, false
for i, e in ipairs(c) do
  local kind, key, limit, shadow = e[1], e[2], e[3], e[4] == 1
  local flag = 0
  if kind == 'tpm' then
    local v = redis.call('GET', key)
    if v and tonumber(v) + add_tokens > limit then flag = 1 end
  elseif kind == 'budget' then
    local v = redis.call('HMGET', key, 'spent', 'reserved')
    if v[1] and tonumber(v[1]) + tonumber(v[2] or '0') + add_cost > limit then flag = 1 end
  end
  if flag == 1 then
    if shadow then flag = 2 else refused = true end
  end
  flags[i] = flag
end
if refused then return {'refused', flags, tokens, cost} end

local written = {}
for _, e in ipairs(c) do
  local kind, key = e[1], e[2]
  if not written[key] then
    written[key] = true
    if kind == 'tpm' then
      if redis.call('EXISTS', key) == 1 then redis.call('INCRBY', key, add_tokens) end
    elseif kind == 'budget' then
      if redis.call('EXISTS', key) == 1 then redis.call('HINCRBY', key, 'reserved', add_cost) end
    elseif kind == 'conc' and new_deadline > 0 and rec[4] == '1' then
      redis.call('ZADD', key, 'XX', new_deadline, ARGV[6])
      expire_at_least(key, new_deadline)
    end
  end
end

tokens, cost = tokens + add_tokens, cost + add_cost
redis.call('HSET', KEYS[1], 'tokens', tokens, 'cost', cost)
if new_deadline > 0 then
  local rid = ARGV[6]
  redis.call('HSET', KEYS[1], 'deadline', new_deadline)
  expire_at(KEYS[1], new_expire)
  redis.call('ZADD', KEYS[3], 'XX', new_deadline, rid)
  expire_at_least(KEYS[3], new_expire)
end
return {'extended', flags, tokens, cost}
