-- admit.lua — reserve a call on every applicable limit of every scope, or on none.
--
-- One call of this script is the whole admission of one request (one round
-- trip). It reads every counter, decides, and only then writes, so a refusal
-- by any enforced limit (for instance the tenant's budget) reserves nothing
-- anywhere (not on the key's rpm, not a concurrency slot). Shadow limits are
-- counted like enforced ones but never refuse: they report "would refuse".
-- Key layout: tollway_admission/keys.py. All keys share the tenant hash tag.
--
-- KEYS[1]    tw:{T}:res:<request_id>       reservation record (hash), written on admit
-- KEYS[2]    tw:{T}:settled:<request_id>   settled marker (string), only read
-- KEYS[3]    tw:{T}:res-deadlines          deadline index (zset), request id added
-- KEYS[3+i]  counter of check i, i = 1..N, in the order of the checks below:
--              rpm    tw:{T}:rpm:<scope>:<minute s>             string
--              tpm    tw:{T}:tpm:<scope>:<minute s>             string
--              conc   tw:{T}:conc:<scope>                       zset
--              budget tw:{T}:budget:<scope>:<period>:<start s>  hash {spent, reserved}
--            Two checks may name the same counter (two limits on one scope);
--            each is checked, the counter is written once.
--
-- ARGV[1]    request id
-- ARGV[2]    now, epoch ms (the caller's injectable clock)
-- ARGV[3]    reservation deadline, epoch ms: the concurrency slot is freed
--            and the reservation listed for reconciliation after it
-- ARGV[4]    record expiry, epoch ms (> deadline; the record outlives its
--            deadline so a late settlement still refunds exactly)
-- ARGV[5]    tokens to reserve (tpm)
-- ARGV[6]    micro-USD to reserve (budget)
-- ARGV[7]    N, number of checks
-- ARGV[8+4(i-1) .. 11+4(i-1)]  check i:
--            kind ("rpm" | "tpm" | "conc" | "budget"),
--            limit (integer), shadow ("1" | "0"),
--            counter expiry, epoch ms (rpm/tpm: minute end + 60 s; budget:
--            unused here, the seed script sets it; conc: unused)
--
-- Returns {status, used, flags}:
--   status  "admitted" | "refused" | "seed" | "duplicate"
--           seed: a budget counter of the current period is missing; nothing
--           was reserved; the caller seeds it (seed.lua) and calls again.
--           duplicate: this request id already has a record or was settled.
--   used    per check, the counter's value before this call (rpm: calls,
--           tpm: tokens, conc: slots held after pruning, budget: spent +
--           reserved micro-USD)
--   flags   per check: 0 fits, 1 refuses, 2 would refuse (shadow), 3 seed needed

local rid = ARGV[1]
local now = tonumber(ARGV[2])
local deadline = tonumber(ARGV[3])
local record_expire_at = tonumber(ARGV[4])
local tokens = tonumber(ARGV[5])
local cost = tonumber(ARGV[6])
local n = tonumber(ARGV[7])

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

if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then
  return {'duplicate', {}, {}}
end

local used, flags = {}, {}
local refused, seed = false, false

-- Phase 1: read and decide. The only write is pruning expired slot holders,
-- which is correct whatever the outcome.
for i = 1, n do
  local b = 8 + 4 * (i - 1)
  local kind, limit, shadow = ARGV[b], tonumber(ARGV[b + 1]), ARGV[b + 2] == '1'
  local key = KEYS[3 + i]
  local cur, need = 0, 0
  local flag = nil
  if kind == 'rpm' then
    cur = tonumber(redis.call('GET', key) or '0'); need = 1
  elseif kind == 'tpm' then
    cur = tonumber(redis.call('GET', key) or '0'); need = tokens
  elseif kind == 'conc' then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    cur = redis.call('ZCARD', key); need = 1
  elseif kind == 'budget' then
    local v = redis.call('HMGET', key, 'spent', 'reserved')
    if not v[1] then
      flag = 3; seed = true
    else
      cur = tonumber(v[1]) + tonumber(v[2] or '0'); need = cost
    end
  else
    return redis.error_reply('admit: unknown check kind ' .. tostring(kind))
  end
  if flag == nil then
    if cur + need > limit then
      if shadow then flag = 2 else flag = 1; refused = true end
    else
      flag = 0
    end
  end
  used[i], flags[i] = cur, flag
end

if seed then return {'seed', used, flags} end
if refused then return {'refused', used, flags} end

-- Phase 2: reserve on every counter (each once) and write the record.
local written, counters, slot = {}, {}, '0'
for i = 1, n do
  local b = 8 + 4 * (i - 1)
  local kind, limit, shadow, counter_expire = ARGV[b], ARGV[b + 1], ARGV[b + 2], tonumber(ARGV[b + 3])
  local key = KEYS[3 + i]
  if kind ~= 'rpm' then
    counters[#counters + 1] = {kind, key, tonumber(limit), tonumber(shadow)}
  end
  if not written[key] then
    written[key] = true
    if kind == 'rpm' then
      redis.call('INCR', key); expire_at(key, counter_expire)
    elseif kind == 'tpm' then
      redis.call('INCRBY', key, tokens); expire_at(key, counter_expire)
    elseif kind == 'conc' then
      slot = '1'
      redis.call('ZADD', key, deadline, rid)
      expire_at_least(key, deadline)
    else
      redis.call('HINCRBY', key, 'reserved', cost)
    end
  end
end

redis.call('HSET', KEYS[1], 'tokens', tokens, 'cost', cost, 'deadline', deadline,
  'slot', slot, 'c', cjson.encode(counters))
expire_at(KEYS[1], record_expire_at)
redis.call('ZADD', KEYS[3], deadline, rid)
expire_at_least(KEYS[3], record_expire_at)
return {'admitted', used, flags}
