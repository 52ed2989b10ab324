/**
 * The Lua scripts of {@link RedisSessionDirectory}: each is one round trip and runs
 * atomically, so the cluster-wide count, the record and its expiry never disagree.
 *
 * Layout (see docs/redis.md): a session is a hash at `<p>session:<id>` with fields `r` (the
 * fixed part as JSON: revision, capabilities, client info, owner, idle ms), `l` (log level,
 * absent when none), `s` (subscriptions, a JSON array) and `t` (the ttl in ms), PEXPIRE = its idle timeout plus the
 * touch slack; `<p>sessions:live` is a sorted set of live ids scored by their expiry time
 * (Redis' clock), which is what the cap counts. Changes are announced on channel
 * `<p>sessions` as JSON `{o: instance, e: 'd'|'u', id, l?, s?}`.
 */
import type { TaskScript } from './task-scripts.js';

/** Redis' own clock in ms, so instances with skewed clocks agree on expiry. */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Create. KEYS: session, live set, the owner's set (a placeholder when unbound). ARGV: id,
 * max sessions, ttl ms, r, s, max per owner ('0': unbound, not counted), the prefix of
 * session keys, the announcement channel, this instance's id.
 * Returns 1; 0 (nothing written) when the live set holds `max` unexpired ids; 2 (nothing
 * written) when the owner holds `max per owner` live sessions and none is quiet.
 *
 * Per owner: `<p>sessions:owner:<sha256 of owner>` (a set, kept a week past the owner's last
 * new session) holds the owner's session ids. At its
 * limit the ids whose record is gone are dropped; if still at it, the least recently used
 * one (the smallest remaining ttl) is ended when it is quiet — untouched for 3/5 of its ttl
 * (an instance touches a session in use at least every half idle timeout, and the ttl is
 * 5/4 of it) — as in memory: its record and ids deleted, the deletion announced.
 */
const CREATE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
local perOwner = tonumber(ARGV[6])
if perOwner > 0 then
  local ids = redis.call('SMEMBERS', KEYS[3])
  local alive = 0
  local oldest, oldestTtl, oldestT = nil, nil, nil
  for _, sid in ipairs(ids) do
    local key = ARGV[7] .. sid
    local left = redis.call('PTTL', key)
    if left < 0 then
      redis.call('SREM', KEYS[3], sid)
    else
      alive = alive + 1
      if oldestTtl == nil or left < oldestTtl then
        oldest, oldestTtl, oldestT = sid, left, tonumber(redis.call('HGET', key, 't'))
      end
    end
  end
  if alive >= perOwner then
    if oldest == nil or oldestT == nil or (oldestT - oldestTtl) < oldestT * 3 / 5 then return 2 end
    redis.call('DEL', ARGV[7] .. oldest)
    redis.call('ZREM', KEYS[2], oldest)
    redis.call('SREM', KEYS[3], oldest)
    redis.call('PUBLISH', ARGV[8], cjson.encode({o = ARGV[9], e = 'd', id = oldest}))
  end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'r', ARGV[4], 's', ARGV[5], 't', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
if perOwner > 0 then
  redis.call('SADD', KEYS[3], ARGV[1])
  -- kept a week past the owner's last new session (dead ids are dropped at the limit)
  redis.call('PEXPIRE', KEYS[3], math.max(tonumber(ARGV[3]), 604800000))
end
return 1
`;

/**
 * Read and touch. KEYS: session, live set. ARGV: id, '1' when the reader's principal must
 * own the record ('0' else), that principal's key ('' for none). Returns [r, l or false, s,
 * t] with the expiry pushed out by the record's own ttl; false when there is no record, or
 * (nothing touched) when it is bound to another principal.
 */
const READ = `${NOW}
local v = redis.call('HMGET', KEYS[1], 'r', 'l', 's', 't')
local ttl = tonumber(v[4])
if not v[1] or not ttl then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return false
end
if ARGV[2] == '1' then
  local ok, fixed = pcall(cjson.decode, v[1])
  local owner = ok and type(fixed) == 'table' and fixed.o or ''
  if type(owner) ~= 'string' or owner ~= ARGV[3] then return false end
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], 'XX', now + ttl, ARGV[1])
return v
`;

/** Touch. KEYS: session, live set. ARGV: id, ttl ms. Returns 1, or 0 when the record is gone. */
const TOUCH = `${NOW}
if redis.call('PEXPIRE', KEYS[1], ARGV[2]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[2]), ARGV[1])
return 1
`;

/**
 * Update. KEYS: session. ARGV: channel, announcement, has level ('1'/'0'), level, s.
 * Returns 1, or 0 (nothing written, nothing announced) when the record is gone.
 */
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'l', ARGV[4]) else redis.call('HDEL', KEYS[1], 'l') end
redis.call('HSET', KEYS[1], 's', ARGV[5])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`;

/**
 * Delete. KEYS: session, live set. ARGV: id, channel, announcement. Returns how many
 * subscriber connections the announcement reached (announced either way).
 */
const DELETE = `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('PUBLISH', ARGV[2], ARGV[3])
`;

/** One script of the directory, the same shape as the task store's. */
export type SessionScript = TaskScript;

/** Every script of the session directory. */
export const SESSION_SCRIPTS = {
  create: { name: 'mcpkitSessionCreate2', keys: 3, lua: CREATE },
  read: { name: 'mcpkitSessionRead2', keys: 2, lua: READ },
  touch: { name: 'mcpkitSessionTouch1', keys: 2, lua: TOUCH },
  update: { name: 'mcpkitSessionUpdate1', keys: 1, lua: UPDATE },
  delete: { name: 'mcpkitSessionDelete2', keys: 2, lua: DELETE },
} as const satisfies Record<string, SessionScript>;
