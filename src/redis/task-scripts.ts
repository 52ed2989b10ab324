/**
 * The Lua scripts of {@link RedisTaskStore}: each runs atomically inside Redis, so two
 * instances racing on one task cannot both win. The task rules themselves (what a patch may
 * do) stay in JavaScript (`src/tasks/store.ts`); the scripts only do compare-and-set on a
 * task's version plus the index bookkeeping that must happen in the same step.
 *
 * Layout (see docs/redis.md): a task is a hash at `<task prefix><slot>` with fields
 * `r` (record JSON), `v` (version), `i` (instance id), `o` (owner hash), `e` (expiresAt or
 * ''); indexes are sorted sets of slots: per owner by creation sequence, expiry by time,
 * finished (whole store, per owner) by finishing sequence.
 */

/**
 * Every script starts with this: ARGV[1..5] are the task key prefix, the owner index prefix,
 * the per-owner finished index prefix, the expiry index and the finished index; `remove`
 * deletes one task slot with its index entries. Script arguments follow from ARGV[6].
 */
const REMOVE = `
local P_TASK, P_OWNER, P_FOWNER, K_EXPIRY, K_FINISHED = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local function remove(slot)
  local key = P_TASK .. slot
  local o = redis.call('HGET', key, 'o')
  redis.call('DEL', key)
  redis.call('ZREM', K_EXPIRY, slot)
  redis.call('ZREM', K_FINISHED, slot)
  if o then
    redis.call('ZREM', P_OWNER .. o, slot)
    redis.call('ZREM', P_FOWNER .. o, slot)
  end
end
`;

/**
 * Create. KEYS: task, sequence counter. ARGV after the prefixes: slot, now, record JSON,
 * instance, owner hash, expiresAt ('' none), backstop ms ('' none).
 * Returns the creation sequence, or -1 when a live task holds the slot.
 */
const CREATE = `${REMOVE}
local slot, now, record, instance, owner, e, px = ARGV[6], tonumber(ARGV[7]), ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12]
local old = redis.call('HGET', KEYS[1], 'e')
if old then
  if old == '' or tonumber(old) > now then return -1 end
  remove(slot)
end
local q = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'r', record, 'v', 1, 'i', instance, 'o', owner, 'e', e)
redis.call('ZADD', P_OWNER .. owner, q, slot)
if e ~= '' then redis.call('ZADD', K_EXPIRY, e, slot) end
if px ~= '' then redis.call('PEXPIRE', KEYS[1], px) end
return q
`;

/**
 * Read (without the REMOVE prelude, but with the same ARGV layout). KEYS: task. ARGV after the prefixes: this instance's id, the heartbeat key prefix.
 * Returns false for no task, else {record JSON, version, alive (1/0: the instance that runs
 * it still beats, or it is this one)}.
 */
const READ = `
local h = redis.call('HMGET', KEYS[1], 'r', 'v', 'i')
if not h[1] then return false end
local alive = 1
if h[3] and h[3] ~= ARGV[6] then alive = redis.call('EXISTS', ARGV[7] .. h[3]) end
return {h[1], h[2], alive}
`;

/**
 * Compare-and-set. KEYS: task, sequence counter. ARGV after the prefixes: slot, expected
 * version, record JSON, expiresAt ('' none), backstop ms ('' none: persist), '1' when the
 * task just finished, per-owner cap, store cap. Returns 1, or 0 when the version moved on.
 * A task that just finished is indexed as finished and the oldest finished past the caps
 * are deleted.
 */
const WRITE = `${REMOVE}
local slot, expected, record, e, px, finished, capOwner, capAll = ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], tonumber(ARGV[12]), tonumber(ARGV[13])
if redis.call('HGET', KEYS[1], 'v') ~= expected then return 0 end
redis.call('HSET', KEYS[1], 'r', record, 'e', e)
redis.call('HINCRBY', KEYS[1], 'v', 1)
if e == '' then redis.call('ZREM', K_EXPIRY, slot) else redis.call('ZADD', K_EXPIRY, e, slot) end
if px == '' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], px) end
if finished == '1' then
  local f = redis.call('INCR', KEYS[2])
  local mine = P_FOWNER .. redis.call('HGET', KEYS[1], 'o')
  redis.call('ZADD', K_FINISHED, f, slot)
  redis.call('ZADD', mine, f, slot)
  while redis.call('ZCARD', mine) > capOwner do remove(redis.call('ZPOPMIN', mine)[1]) end
  while redis.call('ZCARD', K_FINISHED) > capAll do remove(redis.call('ZPOPMIN', K_FINISHED)[1]) end
end
return 1
`;

/** Delete. KEYS: task. ARGV after the prefixes: slot, expected version. Returns 1, or 0 when the version moved on. */
const DELETE = `${REMOVE}
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[7] then return 0 end
remove(ARGV[6])
return 1
`;

/** Sweep. ARGV after the prefixes: now, limit. Deletes up to limit tasks expired at now; returns how many. */
const SWEEP = `${REMOVE}
local due = redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', ARGV[6], 'LIMIT', 0, ARGV[7])
for _, slot in ipairs(due) do remove(slot) end
return #due
`;

/** One script: its body and how many of its arguments are KEYS. */
export interface TaskScript {
  /** The ioredis command name it is defined under (EVALSHA, falling back to EVAL after a Redis restart). */
  readonly name: string;
  readonly keys: number;
  readonly lua: string;
}

/** Every script of the task store. */
export const TASK_SCRIPTS = {
  create: { name: 'mcpkitTaskCreate1', keys: 2, lua: CREATE },
  read: { name: 'mcpkitTaskRead1', keys: 1, lua: READ },
  write: { name: 'mcpkitTaskWrite1', keys: 2, lua: WRITE },
  delete: { name: 'mcpkitTaskDelete1', keys: 1, lua: DELETE },
  sweep: { name: 'mcpkitTaskSweep1', keys: 0, lua: SWEEP },
} as const satisfies Record<string, TaskScript>;
