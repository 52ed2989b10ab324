/**
 * {@link RedisSessionDirectory}: the `Mcp-Session-Id` sessions of a deployment in Redis, so
 * that every instance can serve every request of a 2025-era session (the Streamable HTTP
 * handler's `sessions` option).
 *
 * Design notes:
 * - The handler holds the sessions it serves (its cache); this class is asked only for a
 *   session the handler does not hold (one script: read and touch), when one is created
 *   (one script: the cluster-wide cap, the record, its expiry), changed, or deleted.
 * - Idle expiry across instances is Redis' key expiry. Touches are throttled: a held session
 *   sends one at most every `idleMs / 4` (so most requests cost no round trip), and the key
 *   lives `idleMs * 5 / 4` from its last touch: never shorter than the idle timeout counted
 *   from the last request, at most a quarter longer. A touch that finds the record gone
 *   (deleted while an announcement was lost, expired) tells the handler to forget it.
 * - Deletes and updates are announced on the channel `<prefix>sessions` by the script that
 *   makes them (one round trip); announcements are at most once, as all pub/sub is, which
 *   the touch check above backs up for deletes.
 * - Routing ({@link RedisSessionDirectory.forward}): one channel for the deployment,
 *   `<prefix>sessions:route`, every instance listening; a routed message goes to every
 *   instance and the one it concerns delivers it (the others drop it after one map lookup).
 *   At most once, like all pub/sub: a message routed while Redis is unreachable is lost
 *   (reported to `onError`), and the server → client request it answered times out.
 * - Resumption across instances ({@link RedisSessionDirectory.follow}): each open directory
 *   has a random {@link RedisSessionDirectory.streamTag} (so a restarted process never
 *   answers for the streams of the one that died) and listens on its own channel
 *   `<prefix>sessions:stream:<tag>`. The resuming instance publishes a follow request there;
 *   PUBLISH answering 0 receivers means the owner is gone (its subscriber connection closed:
 *   a killed process's socket is closed by the kernel, Redis drops it). The owner answers
 *   on the follower's channel (`o` open with its last sequence number, or `n` not open) and
 *   then publishes each further event (`e`), once its append to the event store (and every
 *   earlier one) is acknowledged, and the end (`x`) after the last, in order. While following, the
 *   follower checks every `followCheckMs` that the owner is still subscribed (PUBSUB
 *   NUMSUB) and ends the follow `gone` when not, or when no answer came in `followAnswerMs`.
 *   A feed whose PUBLISH reaches nobody (the follower died) stops.
 * - The session cap counts cluster-wide: live ids in the sorted set `<prefix>sessions:live`,
 *   scored by expiry time on Redis' clock, expired ones pruned on every create.
 */
import { createHash, randomUUID } from 'node:crypto';
import type {
  FollowEnd,
  FollowedStream,
  RoutedKind,
  SessionDirectory,
  SessionDirectoryListener,
  SessionLimits,
  SessionPatch,
  SessionRecord,
  StreamFeed,
  StreamFollower,
} from '../http/server/session-directory.js';
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { RedisConnection } from './connection.js';
import { positiveInteger } from './options.js';
import { SESSION_SCRIPTS, type SessionScript } from './session-scripts.js';

/** Options of {@link RedisSessionDirectory.open}. */
export interface RedisSessionDirectoryOptions {
  /**
   * Most live sessions across every instance on this Redis and prefix; past it a new
   * session is refused (the handler answers 503 with `Retry-After`). Default 100 000.
   */
  maxSessions?: number;
  /**
   * Longest record (client capabilities, client info, owner, subscriptions as JSON), in
   * characters; a new session with a longer one is refused (RangeError: the handler answers
   * 500 and reports it), an update that would make it longer rejects the same way (the
   * client's request gets -32603). Default 65 536.
   */
  maxRecordChars?: number;
  /**
   * Longest routed message (a client's answer or notification, a GET-stream message), in
   * characters; a longer one is not routed (reported to `onError`; a server → client request
   * it answered then times out). Default 4 194 304 (4 Mi, the handler's default body limit).
   */
  maxRoutedChars?: number;
  /** This instance's id in announcements (its own are skipped). Default a random UUID. */
  instanceId?: string;
  /**
   * How long a resumption of another instance's stream waits for that instance's answer, in
   * ms; then it counts the owner as gone (replays the event store and ends). Default 5000.
   */
  followAnswerMs?: number;
  /**
   * How often a resumption following another instance's stream checks that the owner is
   * still running (one PUBSUB NUMSUB), in ms; when it is not, the stored rest is replayed and
   * the response ends. Default 1000.
   */
  followCheckMs?: number;
  /**
   * How long `delete` waits, at most, for every other instance to confirm it forgot the
   * session (each one that heard the announcement answers on the deleting instance's
   * channel), in ms, so that a session deleted is deleted everywhere before DELETE is
   * answered. An instance that does not confirm in time (stopped, or its subscriber
   * disconnected) finds the session gone when it next checks its record. Default 2000.
   */
  deleteAckMs?: number;
  /** Receives failed touches and malformed announcements or records. Default: ignored. */
  onError?: (error: Error) => void;
}

type ScriptCall = (...args: Array<string | number>) => Promise<unknown>;
const defined = new WeakSet<object>();

const TAG = /^[A-Za-z0-9_-]{1,32}$/;

/** How long the record of a stream's open requests lives at most (a stream its instance never ended). */
const INFLIGHT_TTL_MS = 3_600_000;

/** A follow this instance makes (the resuming side). */
interface Following {
  readonly follower: StreamFollower;
  readonly owner: string;
  readonly id: string;
  readonly stream: number;
  readonly since: number;
  answered: boolean;
  timer: ReturnType<typeof setInterval> | undefined;
}

/** A stream this instance feeds to a follower (the owning side). */
interface Feeding {
  handle: FollowedStream | undefined;
}

/** A message on a stream channel: `f` follow, `u` unfollow (to the owner); `o` opened, `n` not open, `e` event, `x` end (to the follower); `c` a client message relayed to the instance it concerns. */
interface StreamNote {
  k?: unknown;
  f?: unknown;
  id?: unknown;
  s?: unknown;
  r?: unknown;
  q?: unknown;
  m?: unknown;
}

/** The ttl of a record whose idle timeout is `idleMs` (see the module note). */
function ttlOf(idleMs: number): number {
  return idleMs + Math.ceil(idleMs / 4);
}

/** The fixed part of a record, as stored in field `r`. */
interface FixedPart {
  v: string;
  c: JSONObject;
  i?: JSONObject;
  o?: string;
  t: number;
}

function isObject(value: unknown): value is JSONObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** A Redis-backed {@link SessionDirectory}; see the module note. Open one per handler with {@link RedisSessionDirectory.open}. */
export class RedisSessionDirectory implements SessionDirectory {
  /** This instance's id in announcements. */
  readonly instanceId: string;
  readonly #redis: RedisConnection;
  readonly #max: number;
  readonly #maxChars: number;
  readonly #onError: (error: Error) => void;
  readonly #live: string;
  readonly #channel: string;
  readonly #routes: string;
  readonly #maxRouted: number;
  readonly #listeners = new Set<SessionDirectoryListener>();
  /** When each held session was last touched (ms); only sessions the handler holds. */
  readonly #touched = new Map<string, number>();
  /** This instance's tag in SSE event ids and store keys; see the module note. */
  readonly streamTag: string;
  readonly #followAnswer: number;
  readonly #followCheck: number;
  readonly #following = new Map<string, Following>();
  readonly #feeding = new Map<string, Feeding>();
  #followSeq = 0;
  readonly #deleteAck: number;
  /** Deletes of this instance waiting for the other instances' confirmations, by nonce. */
  readonly #deleting = new Map<string, { acked: number; target: number; done: () => void }>();
  #deleteSeq = 0;

  #unsubscribe: Array<() => Promise<void>> = [];
  #closed = false;

  /**
   * Opens a directory on `redis` and subscribes to its announcements. Throws RangeError for
   * a bad option; rejects with `RedisUnavailableError` only when the connection is closed
   * (while Redis is unreachable the subscription is made on reconnect).
   */
  static async open(redis: RedisConnection, options: RedisSessionDirectoryOptions = {}): Promise<RedisSessionDirectory> {
    const directory = new RedisSessionDirectory(redis, options);
    directory.#unsubscribe.push(await redis.subscribe('sessions', (message) => directory.#announced(message)));
    directory.#unsubscribe.push(await redis.subscribe('sessions:route', (message) => directory.#routed(message)));
    directory.#unsubscribe.push(await redis.subscribe(`sessions:stream:${directory.streamTag}`, (message) => directory.#streamNote(message)));
    return directory;
  }

  private constructor(redis: RedisConnection, options: RedisSessionDirectoryOptions) {
    this.#redis = redis;
    this.#max = positiveInteger('maxSessions', options.maxSessions ?? 100_000);
    this.#maxChars = positiveInteger('maxRecordChars', options.maxRecordChars ?? 65_536);
    this.instanceId = options.instanceId ?? randomUUID();
    this.#onError = options.onError ?? (() => {});
    this.#live = `${redis.prefix}sessions:live`;
    this.#channel = `${redis.prefix}sessions`;
    this.#routes = 'sessions:route';
    this.#maxRouted = positiveInteger('maxRoutedChars', options.maxRoutedChars ?? 4 * 1024 * 1024);
    this.#followAnswer = positiveInteger('followAnswerMs', options.followAnswerMs ?? 5000);
    this.#followCheck = positiveInteger('followCheckMs', options.followCheckMs ?? 1000);
    this.#deleteAck = positiveInteger('deleteAckMs', options.deleteAckMs ?? 2000);
    this.streamTag = randomUUID().replace(/-/g, '').slice(0, 16);
  }

  /**
   * Resolves `'full'` at `maxSessions`, `'crowded'` when the record's owner holds
   * `limits.maxPerOwner` live sessions and none is quiet (at the limit the least recently
   * used quiet one is ended to make room, as the handler does in memory); rejects with
   * RangeError past `maxRecordChars`, `RedisUnavailableError` when Redis cannot be reached.
   */
  async create(record: SessionRecord, limits?: SessionLimits): Promise<'created' | 'full' | 'crowded'> {
    const fixed: FixedPart = { v: record.revision, c: record.clientCapabilities, t: record.idleMs };
    if (record.clientInfo !== undefined) fixed.i = record.clientInfo;
    if (record.owner !== undefined) fixed.o = record.owner;
    const r = JSON.stringify(fixed);
    const s = JSON.stringify(record.subscriptions);
    this.#checkSize(r.length + s.length + (record.logLevel?.length ?? 0));
    const counted = record.owner !== undefined && limits !== undefined;
    const ownerKey = `${this.#redis.prefix}sessions:owner:${counted ? createHash('sha256').update(record.owner!).digest('hex') : '-'}`;
    const created = await this.#eval(
      SESSION_SCRIPTS.create,
      [this.#key(record.id), this.#live, ownerKey],
      [
        record.id,
        this.#max,
        ttlOf(record.idleMs),
        r,
        s,
        counted ? positiveInteger('maxPerOwner', limits.maxPerOwner) : 0,
        `${this.#redis.prefix}session:`,
        this.#channel,
        this.instanceId,
      ],
    );
    if (created === 0) return 'full';
    if (created === 2) return 'crowded';
    this.#touched.set(record.id, Date.now());
    // a level set during initialization (none today) is stored with the first update
    if (record.logLevel !== undefined) await this.update(record.id, { logLevel: record.logLevel });
    return 'created';
  }

  /**
   * The record of `id` with its expiry pushed out (one round trip), or undefined; with
   * `reader`, undefined for a record bound to another principal, whose expiry is left alone
   * (checked in the same script, before the touch). Rejects with `RedisUnavailableError`.
   */
  async get(id: string, reader?: { readonly owner: string | undefined }): Promise<SessionRecord | undefined> {
    const args = reader === undefined ? [id, '0', ''] : [id, '1', reader.owner ?? ''];
    const raw = (await this.#eval(SESSION_SCRIPTS.read, [this.#key(id), this.#live], args)) as [string, string | null, string, string] | null;
    if (raw === null) return undefined;
    let fixed: FixedPart;
    let subscriptions: unknown;
    try {
      fixed = JSON.parse(raw[0]) as FixedPart;
      subscriptions = JSON.parse(raw[2]);
    } catch {
      this.#onError(new Error('Ignored a malformed session record'));
      return undefined;
    }
    if (!isObject(fixed) || typeof fixed.v !== 'string' || !isObject(fixed.c) || typeof fixed.t !== 'number' || !isStringArray(subscriptions)) {
      this.#onError(new Error('Ignored a malformed session record'));
      return undefined;
    }
    this.#touched.set(id, Date.now());
    return {
      id,
      revision: fixed.v,
      clientCapabilities: fixed.c,
      clientInfo: isObject(fixed.i) ? fixed.i : undefined,
      logLevel: raw[1] ?? undefined,
      subscriptions,
      owner: typeof fixed.o === 'string' ? fixed.o : undefined,
      idleMs: fixed.t,
    };
  }

  /** Pushes the expiry of `id` out, at most once every `idleMs / 4`; failures go to `onError`. Never throws. */
  touch(id: string, idleMs: number): void {
    const now = Date.now();
    const last = this.#touched.get(id);
    if (last !== undefined && now - last < idleMs / 4) return;
    this.#touched.set(id, now);
    this.#eval(SESSION_SCRIPTS.touch, [this.#key(id), this.#live], [id, ttlOf(idleMs)]).then(
      (alive) => {
        if (alive === 0) this.#removed(id);
      },
      // tried again after the same interval: an outage does not cost a failing command per request
      (error: Error) => this.#onError(error),
    );
  }

  /** Writes `patch` and announces it (one round trip); a record that is gone is left gone. Rejects with RangeError or `RedisUnavailableError`. */
  async update(id: string, patch: SessionPatch): Promise<void> {
    const level = patch.logLevel;
    const s = JSON.stringify(patch.subscriptions ?? []);
    this.#checkSize(s.length + (level?.length ?? 0));
    const note: Record<string, unknown> = { o: this.instanceId, e: 'u', id, s: patch.subscriptions ?? [] };
    if (level !== undefined) note.l = level;
    await this.#eval(SESSION_SCRIPTS.update, [this.#key(id)], [this.#channel, JSON.stringify(note), level === undefined ? '0' : '1', level ?? '', s]);
  }

  /**
   * Deletes the record of `id` and announces it (one round trip), then waits until every
   * other instance the announcement reached confirmed it forgot the session (at most
   * `deleteAckMs`). Rejects with `RedisUnavailableError`.
   */
  async delete(id: string): Promise<void> {
    this.#touched.delete(id);
    const nonce = `${++this.#deleteSeq}`;
    const note = JSON.stringify({ o: this.instanceId, e: 'd', id, r: this.streamTag, n: nonce });
    let done = () => {};
    const confirmed = new Promise<void>((resolve) => (done = resolve));
    // confirmations may come before the script's answer: counted from now on
    const waiting = { acked: 0, target: Infinity, done };
    this.#deleting.set(nonce, waiting);
    try {
      // every subscriber connection but this instance's own answers
      waiting.target = Number(await this.#eval(SESSION_SCRIPTS.delete, [this.#key(id), this.#live], [id, this.#channel, note])) - 1;
    } catch (error) {
      this.#deleting.delete(nonce);
      throw error;
    }
    if (waiting.acked >= waiting.target) {
      this.#deleting.delete(nonce);
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([confirmed, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#deleteAck)))]);
    clearTimeout(timer);
    this.#deleting.delete(nonce);
  }

  /** Forgets the touch bookkeeping of `id`. */
  release(id: string): void {
    this.#touched.delete(id);
  }

  /** Publishes `text` of session `id` (and its `origin`) to the other instances (one PUBLISH, not awaited); failures and oversized messages go to `onError`. Never throws. */
  forward(id: string, kind: RoutedKind, text: string, origin?: string): void {
    if (text.length > this.#maxRouted) {
      this.#onError(new RangeError(`Did not route a message of ${text.length} characters (maxRoutedChars ${this.#maxRouted})`));
      return;
    }
    this.#redis
      .publish(this.#routes, JSON.stringify({ o: this.instanceId, id, k: kind, m: text, e: origin }))
      .then(undefined, (error: Error) => this.#onError(error));
  }

  /**
   * Records the request ids of this instance's open POST stream `stream` of session `id`
   * (`<prefix>inflight:<id>.<streamTag>/<stream>`, expiring after an hour), not awaited;
   * failures go to `onError`. Never throws.
   */
  streamOpened(id: string, stream: number, ids: readonly RequestId[]): void {
    const key = this.#inflightKey(id, this.streamTag, stream);
    this.#redis.run((c) => c.set(key, JSON.stringify(ids), 'PX', INFLIGHT_TTL_MS)).then(undefined, (error: Error) => this.#onError(error));
  }

  /** Deletes the record of {@link streamOpened}, not awaited. Never throws. */
  streamEnded(id: string, stream: number): void {
    const key = this.#inflightKey(id, this.streamTag, stream);
    this.#redis.run((c) => c.del(key)).then(undefined, (error: Error) => this.#onError(error));
  }

  /**
   * Takes the ids the instance tagged `owner` recorded for its stream `stream` of session
   * `id` (read and deleted at once: one caller gets them); [] when none. Rejects with
   * `RedisUnavailableError`.
   */
  async openRequests(id: string, owner: string, stream: number): Promise<RequestId[]> {
    if (!TAG.test(owner) || !Number.isSafeInteger(stream)) return [];
    const key = this.#inflightKey(id, owner, stream);
    // taken: the first instance to ask answers them, a later resumption finds none
    const raw = await this.#redis.run(async (c) => {
      const replies = await c.multi().get(key).del(key).exec();
      const [error, value] = replies?.[0] ?? [null, null];
      if (error) throw error;
      return value as string | null;
    });
    if (raw === null) return [];
    let ids: unknown;
    try {
      ids = JSON.parse(raw);
    } catch {
      ids = undefined;
    }
    if (!Array.isArray(ids) || !ids.every((v) => typeof v === 'string' || typeof v === 'number')) {
      this.#onError(new Error('Ignored a malformed record of open requests'));
      return [];
    }
    return ids as RequestId[];
  }

  #inflightKey(id: string, owner: string, stream: number): string {
    return this.#redis.key('inflight', `${id}.${owner}/${stream}`);
  }

  /**
   * Relays client message `text` of session `id` to the instance tagged `to` (one PUBLISH on
   * its stream channel; true when it is subscribed, false when it stopped), or with `to`
   * undefined to every instance (the routing channel). Rejects with `RedisUnavailableError`
   * when Redis cannot be reached; an oversized message is reported to `onError` and
   * resolves false.
   */
  async relay(id: string, to: string | undefined, text: string): Promise<boolean> {
    if (text.length > this.#maxRouted) {
      this.#onError(new RangeError(`Did not route a message of ${text.length} characters (maxRoutedChars ${this.#maxRouted})`));
      return false;
    }
    if (to === undefined || !TAG.test(to)) {
      await this.#redis.publish(this.#routes, JSON.stringify({ o: this.instanceId, id, k: 'client', m: text }));
      return true;
    }
    if (to === this.streamTag) return false;
    return (await this.#redis.publish(`sessions:stream:${to}`, JSON.stringify({ k: 'c', id, m: text }))) > 0;
  }

  /** Adds a listener for sessions removed or updated by other instances; returns its remover. */
  watch(listener: SessionDirectoryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Follows stream `stream` of session `id` opened by the instance tagged `owner` (see the
   * module note); returns the function that stops following. Never throws: failures end
   * the follow `gone` (and go to `onError`).
   */
  follow(id: string, owner: string, stream: number, follower: StreamFollower): () => void {
    if (this.#closed || !TAG.test(owner) || owner === this.streamTag) {
      queueMicrotask(() => follower.ended(owner === this.streamTag ? 'not-open' : 'gone'));
      return () => {};
    }
    const f = String(++this.#followSeq);
    const entry: Following = { follower, owner, id, stream, since: Date.now(), answered: false, timer: undefined };
    this.#following.set(f, entry);
    this.#redis.publish(`sessions:stream:${owner}`, JSON.stringify({ k: 'f', f, id, s: stream, r: this.streamTag })).then(
      (receivers) => {
        if (receivers === 0) this.#endFollow(f, 'gone');
      },
      (error: Error) => {
        this.#onError(error);
        this.#endFollow(f, 'gone');
      },
    );
    if (this.#following.has(f)) {
      entry.timer = setInterval(() => this.#checkOwner(f), this.#followCheck);
      (entry.timer as { unref?: () => void }).unref?.();
    }
    return () => {
      if (!this.#following.has(f)) return;
      this.#endFollow(f, undefined);
      this.#redis.publish(`sessions:stream:${owner}`, JSON.stringify({ k: 'u', f, r: this.streamTag })).then(undefined, (error: Error) => this.#onError(error));
    };
  }

  /** Streams this instance feeds to followers elsewhere, and follows it makes (for tests and metrics). */
  get follows(): { readonly feeding: number; readonly following: number } {
    return { feeding: this.#feeding.size, following: this.#following.size };
  }

  /** Stops listening to announcements (the connection stays open: its owner closes it). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const f of [...this.#following.keys()]) this.#endFollow(f, 'gone');
    for (const feeding of this.#feeding.values()) feeding.handle?.stop();
    this.#feeding.clear();
    this.#listeners.clear();
    this.#touched.clear();
    for (const off of this.#unsubscribe) await off().catch(() => {});
  }

  #key(id: string): string {
    return this.#redis.key('session', id);
  }

  #checkSize(chars: number): void {
    if (chars > this.#maxChars) throw new RangeError(`A session record of ${chars} characters exceeds maxRecordChars (${this.#maxChars})`);
  }

  #removed(id: string): void {
    this.#touched.delete(id);
    for (const listener of this.#listeners) listener.removed(id);
  }

  #announced(message: string): void {
    let note: { o?: unknown; e?: unknown; id?: unknown; l?: unknown; s?: unknown };
    try {
      note = JSON.parse(message) as typeof note;
    } catch {
      return this.#onError(new Error('Dropped a malformed session announcement'));
    }
    if (!isObject(note) || typeof note.id !== 'string' || (note.e !== 'd' && note.e !== 'u'))
      return this.#onError(new Error('Dropped a malformed session announcement'));
    if (note.o === this.instanceId) return;
    const id = note.id;
    if (note.e === 'd') {
      this.#removed(id);
      const to = (note as { r?: unknown }).r;
      const nonce = (note as { n?: unknown }).n;
      if (typeof to === 'string' && TAG.test(to) && typeof nonce === 'string' && nonce.length <= 20) {
        this.#redis.publish(`sessions:stream:${to}`, JSON.stringify({ k: 'a', n: nonce })).then(undefined, (error: Error) => this.#onError(error));
      }
      return;
    }
    if (!isStringArray(note.s) || (note.l !== undefined && typeof note.l !== 'string'))
      return this.#onError(new Error('Dropped a malformed session announcement'));
    const patch: SessionPatch = { logLevel: note.l as string | undefined, subscriptions: note.s };
    for (const listener of this.#listeners) listener.updated(id, patch);
  }

  #routed(message: string): void {
    if (message.length > this.#maxRouted + 512) return this.#onError(new Error('Dropped an oversized routed message'));
    let note: { o?: unknown; id?: unknown; k?: unknown; m?: unknown; e?: unknown };
    try {
      note = JSON.parse(message) as typeof note;
    } catch {
      return this.#onError(new Error('Dropped a malformed routed message'));
    }
    if (
      !isObject(note) ||
      typeof note.id !== 'string' ||
      (note.k !== 'client' && note.k !== 'stream') ||
      typeof note.m !== 'string' ||
      (note.e !== undefined && typeof note.e !== 'string')
    ) {
      return this.#onError(new Error('Dropped a malformed routed message'));
    }
    if (note.o === this.instanceId) return;
    for (const listener of this.#listeners) listener.forwarded?.(note.id, note.k, note.m, note.e as string | undefined);
  }

  /** Ends follow `f` (telling its follower `why`, unless undefined). */
  #endFollow(f: string, why: FollowEnd | undefined): void {
    const entry = this.#following.get(f);
    if (entry === undefined) return;
    this.#following.delete(f);
    if (entry.timer !== undefined) clearInterval(entry.timer);
    if (why !== undefined) entry.follower.ended(why);
  }

  /** The periodic check of a follow: the owner still subscribed, and it answered in time. */
  #checkOwner(f: string): void {
    const entry = this.#following.get(f);
    if (entry === undefined) return;
    if (!entry.answered && Date.now() - entry.since >= this.#followAnswer) return this.#endFollow(f, 'gone');
    const channel = `${this.#redis.prefix}sessions:stream:${entry.owner}`;
    this.#redis
      .run((c) => c.pubsub('NUMSUB', channel) as Promise<unknown[]>)
      .then(
        (reply) => {
          if (Number(reply[1]) === 0) this.#endFollow(f, 'gone');
        },
        (error: Error) => this.#onError(error),
      );
  }

  /** A message on this instance's stream channel. */
  #streamNote(message: string): void {
    if (message.length > this.#maxRouted + 512) return this.#onError(new Error('Dropped an oversized stream message'));
    let note: StreamNote;
    try {
      note = JSON.parse(message) as StreamNote;
    } catch {
      return this.#onError(new Error('Dropped a malformed stream message'));
    }
    if (isObject(note as JSONObject) && note.k === 'a') {
      const waiting = typeof (note as { n?: unknown }).n === 'string' ? this.#deleting.get((note as { n: string }).n) : undefined;
      if (waiting !== undefined && ++waiting.acked >= waiting.target) waiting.done();
      return;
    }
    if (isObject(note as JSONObject) && note.k === 'c' && typeof note.id === 'string' && typeof note.m === 'string') {
      for (const listener of this.#listeners) listener.forwarded?.(note.id, 'client', note.m);
      return;
    }
    if (!isObject(note as JSONObject) || typeof note.f !== 'string') return this.#onError(new Error('Dropped a malformed stream message'));
    const f = note.f;
    switch (note.k) {
      case 'f':
        if (typeof note.id !== 'string' || typeof note.r !== 'string' || !TAG.test(note.r) || !Number.isSafeInteger(note.s)) break;
        return this.#followRequested(note.id, note.s as number, note.r, f);
      case 'u':
        if (typeof note.r !== 'string') break;
        this.#feeding.get(`${note.r}/${f}`)?.handle?.stop();
        this.#feeding.delete(`${note.r}/${f}`);
        return;
      case 'o': {
        const entry = this.#following.get(f);
        if (entry === undefined || entry.answered || !Number.isSafeInteger(note.q)) return;
        entry.answered = true;
        return entry.follower.opened(note.q as number);
      }
      case 'e':
        if (!Number.isSafeInteger(note.q) || typeof note.m !== 'string') break;
        return this.#following.get(f)?.follower.event(note.q as number, note.m);
      case 'x':
        return this.#endFollow(f, 'completed');
      case 'n':
        return this.#endFollow(f, 'not-open');
    }
    this.#onError(new Error('Dropped a malformed stream message'));
  }

  /** Another instance (tagged `to`) resumes stream `stream` of session `id`: hand it over if a listener holds it open. */
  #followRequested(id: string, stream: number, to: string, f: string): void {
    const channel = `sessions:stream:${to}`;
    const key = `${to}/${f}`;
    const feeding: Feeding = { handle: undefined };
    const publish = (note: Record<string, unknown>, last: boolean) => {
      if (last) this.#feeding.delete(key);
      this.#redis.publish(channel, JSON.stringify(note)).then(
        (receivers) => {
          // the follower is gone: stop feeding it (the events are stored all the same)
          if (receivers === 0 && this.#feeding.get(key) === feeding) {
            this.#feeding.delete(key);
            feeding.handle?.stop();
          }
        },
        (error: Error) => this.#onError(error),
      );
    };
    const feed: StreamFeed = {
      event: (seq, text) => {
        if (this.#feeding.get(key) !== feeding) return;
        // too long to route: the follower sees a gap and reads the event from the store
        if (text.length > this.#maxRouted) return;
        publish({ k: 'e', f, q: seq, m: text }, false);
      },
      end: () => {
        if (this.#feeding.get(key) !== feeding) return;
        publish({ k: 'x', f }, true);
      },
    };
    this.#feeding.set(key, feeding);
    for (const listener of this.#listeners) {
      feeding.handle = listener.followed?.(id, stream, feed);
      if (feeding.handle !== undefined) break;
    }
    if (feeding.handle === undefined) {
      publish({ k: 'n', f }, true);
      return;
    }
    publish({ k: 'o', f, q: feeding.handle.seq }, false);
  }

  async #eval(script: SessionScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.#redis.run((c) => {
      if (!defined.has(c)) {
        for (const s of Object.values(SESSION_SCRIPTS)) c.defineCommand(s.name, { numberOfKeys: s.keys, lua: s.lua });
        defined.add(c);
      }
      return (c as unknown as Record<string, ScriptCall>)[script.name]!(...keys, ...args);
    });
  }
}
