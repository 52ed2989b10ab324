/**
 * The open sessions of one Streamable HTTP handler, both kinds (`Mcp-Session-Id` sessions
 * and legacy HTTP+SSE ones): admission under the caps, lookup with the ownership check,
 * release, the idle sweep, shutdown.
 *
 * Design notes:
 * - Caps: `maxSessions` for the handler (503), and under bound sessions
 *   `maxSessionsPerPrincipal` per principal (its oldest quiet session makes room, else 429),
 *   so one principal cannot hold the whole cap. Unbound sessions (no authorization) have
 *   only the global cap: any client can fill it.
 * - Binding: with a principal key function, every session is bound to the key of the
 *   request that created it; a lookup with another key finds nothing (the caller answers
 *   404, as for an unknown id), so a leaked id neither serves nor reveals a session.
 * - Idle sessions are reaped by one shared interval timer (unref'd, running only while
 *   `Mcp-Session-Id` sessions exist), not a timer per session. A session with a request in
 *   flight is never idle; its idle time counts from when the last request finished or
 *   stream closed. Legacy sessions live exactly as long as their stream.
 * - With a {@link SessionDirectory} (sessions shared between instances) the sessions held
 *   here are a cache of the directory's records: `maxSessions` bounds how many this handler
 *   holds, and at the cap the least recently active idle one is dropped from memory (it
 *   lives on in the directory) to make room; only when none is idle is the answer 503.
 *   Closing a held session (idle, evicted) leaves the record alone; the directory's own
 *   expiry is the idle timeout across instances, and the sweep renews it (throttled by the
 *   directory) for held sessions that are busy.
 * Runtime-neutral.
 */
import type { LegacySseTransport } from './legacy-sse.js';
import { errorReply, internalErrorReply, TRANSPORT_ERROR } from './replies.js';
import type { SessionDirectory } from './session-directory.js';
import { StreamableSessionTransport } from './session-transport.js';
import type { HttpReply, HttpRequestInfo } from './types.js';

/** Seconds a client is told to wait (`Retry-After`) when a session limit is reached. */
export const RETRY_AFTER_SECONDS = '10';

/** The verdict on a session that must be bound to a principal but cannot be. */
const UNBINDABLE: unique symbol = Symbol('unbindable');

/** A session id: 32 random bytes, base64url (43 visible ASCII characters). */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Settings of a {@link SessionRegistry}; the handler validates them (see `StreamableHttpOptions`). */
export interface SessionRegistrySettings {
  /** Idle time after which a quiet session is closed, in ms. */
  readonly idleMs: number;
  /** Most open sessions of both kinds. */
  readonly maxSessions: number;
  /** Most open sessions of one principal, when sessions are bound. */
  readonly maxPerPrincipal: number;
  /** The principal key of a request's auth info; undefined: sessions are not bound. */
  readonly sessionOwner: ((authInfo: unknown) => string | undefined) | undefined;
  /** True when every session must be bound (authorization on, sharing not allowed). */
  readonly ownerRequired: boolean;
  /** Receives problems no client is told about. Must not throw. */
  readonly reportError: (error: Error) => void;
  /** Where sessions are shared with other instances; undefined: sessions live only here. */
  readonly directory?: SessionDirectory | undefined;
}

type AnySession = StreamableSessionTransport | LegacySseTransport;

/** The session bookkeeping of one handler; see the module note. Not safe to share between handlers. */
export class SessionRegistry {
  readonly #settings: SessionRegistrySettings;
  readonly #sessions = new Map<string, StreamableSessionTransport>();
  readonly #legacy = new Map<string, LegacySseTransport>();
  /** The open sessions (both kinds) of each principal, when sessions are bound. */
  readonly #byOwner = new Map<string, Set<AnySession>>();
  #timer: ReturnType<typeof setInterval> | undefined = undefined;

  constructor(settings: SessionRegistrySettings) {
    this.#settings = settings;
  }

  /** Most sessions of one principal (the handler's `maxSessionsPerPrincipal`). */
  get maxPerPrincipal(): number {
    return this.#settings.maxPerPrincipal;
  }

  /** Open sessions of both kinds. */
  get count(): number {
    return this.#sessions.size + this.#legacy.size;
  }

  /**
   * Admission of a new session: its owner (undefined when sessions are not bound), or the
   * refusal — 500 when it must be bound and cannot be (the reason goes to `reportError`),
   * 429 when its principal is at `maxPerPrincipal` with every session busy, 503 at
   * `maxSessions` (both with `Retry-After`). `shared`: an `Mcp-Session-Id` session to be
   * recorded in the directory, which counts per principal across instances (not here).
   */
  admit(info: HttpRequestInfo | undefined, shared = false): string | undefined | HttpReply {
    const owner = this.#ownerOf(info);
    if (owner === UNBINDABLE) return internalErrorReply();
    // with a directory the held sessions are a cache: the directory counts each principal's sessions across instances
    if (!shared || this.#settings.directory === undefined) {
      const crowded = this.#roomFor(owner);
      if (crowded !== undefined) return crowded;
    }
    return this.roomForOne() ?? owner;
  }

  /**
   * Room for one more held session under `maxSessions`: undefined when there is room
   * (with a directory, perhaps after dropping the least recently active idle session from
   * memory), else the 503 to answer.
   */
  roomForOne(): HttpReply | undefined {
    if (this.count < this.#settings.maxSessions) return undefined;
    if (this.#settings.directory !== undefined) {
      const now = Date.now();
      let oldest: StreamableSessionTransport | undefined;
      for (const transport of this.#sessions.values()) {
        if (transport.isIdle(now, 0) && (oldest === undefined || transport.lastActivity < oldest.lastActivity)) oldest = transport;
      }
      if (oldest !== undefined) {
        void oldest.close();
        return undefined;
      }
    }
    return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: too many sessions', { 'retry-after': RETRY_AFTER_SECONDS });
  }

  /** The session `id` this handler holds, whoever owns it (for changes made elsewhere); undefined when it holds none. */
  held(sessionId: string): StreamableSessionTransport | undefined {
    return this.#sessions.get(sessionId);
  }

  /** The principal a request with `info` acts for, when sessions are bound; undefined when they are not. */
  reader(info: HttpRequestInfo | undefined): { readonly owner: string | undefined } | undefined {
    const key = this.#settings.sessionOwner;
    return key === undefined ? undefined : { owner: key(info?.authInfo) };
  }

  /** True when a request with `info` may use a session bound to `owner` (always, when sessions are not bound). */
  mayUse(owner: string | undefined, info: HttpRequestInfo | undefined): boolean {
    const key = this.#settings.sessionOwner;
    return key === undefined || owner === key(info?.authInfo);
  }

  /** Closes the held session `id`, if any, leaving its directory record alone (it was removed elsewhere). */
  forget(sessionId: string): void {
    const transport = this.#sessions.get(sessionId);
    if (transport !== undefined) void transport.close();
  }

  /** Records an admitted `Mcp-Session-Id` session (its `sessionId` set, made for its `owner`), and starts the idle sweep. */
  add(transport: StreamableSessionTransport): void {
    this.#sessions.set(transport.sessionId!, transport);
    this.#own(transport);
    this.#startSweep();
  }

  /** Records an admitted legacy session (made for its `owner`). */
  addLegacy(transport: LegacySseTransport): void {
    this.#legacy.set(transport.sessionId, transport);
    this.#own(transport);
  }

  /** The open `Mcp-Session-Id` session `sessionId` when the request's principal may use it; else undefined. */
  lookup(sessionId: string, info: HttpRequestInfo | undefined): StreamableSessionTransport | undefined {
    const transport = this.#sessions.get(sessionId);
    if (transport === undefined || transport.closed || !this.#ownedBy(transport, info)) return undefined;
    return transport;
  }

  /** The legacy session `sessionId` when the request's principal may use it; else undefined. */
  lookupLegacy(sessionId: string, info: HttpRequestInfo | undefined): LegacySseTransport | undefined {
    const transport = this.#legacy.get(sessionId);
    return transport !== undefined && this.#ownedBy(transport, info) ? transport : undefined;
  }

  /** Forgets a closed `Mcp-Session-Id` session (the sweep stops with the last one). Must not throw. */
  released(transport: StreamableSessionTransport): void {
    const id = transport.sessionId;
    if (id !== undefined && this.#sessions.get(id) === transport) {
      this.#sessions.delete(id);
      this.#disown(transport);
      this.#settings.directory?.release(id);
      if (this.#sessions.size === 0) this.#stopSweep();
    }
  }

  /** Forgets a closed legacy session. Must not throw. */
  releasedLegacy(transport: LegacySseTransport): void {
    if (this.#legacy.get(transport.sessionId) === transport) {
      this.#legacy.delete(transport.sessionId);
      this.#disown(transport);
    }
  }

  /** The `Mcp-Session-Id` sessions held now. */
  heldSessions(): IterableIterator<StreamableSessionTransport> {
    return this.#sessions.values();
  }

  /** Stops the sweep and closes every session (their streams end). */
  async close(): Promise<void> {
    this.#stopSweep();
    const all: AnySession[] = [...this.#sessions.values(), ...this.#legacy.values()];
    await Promise.all(all.map((t) => t.close()));
  }

  /** True when the request's principal may use `transport` (always, when sessions are not bound). */
  #ownedBy(transport: AnySession, info: HttpRequestInfo | undefined): boolean {
    return this.mayUse(transport.owner, info);
  }

  /**
   * The owner of a session the request creates: its principal key, `undefined` when sessions
   * are not bound, {@link UNBINDABLE} (reported) when they must be and no key can be derived.
   */
  #ownerOf(info: HttpRequestInfo | undefined): string | undefined | typeof UNBINDABLE {
    const owner = this.#settings.sessionOwner?.(info?.authInfo);
    if (owner !== undefined || !this.#settings.ownerRequired) return owner;
    this.#settings.reportError(
      new Error(
        'No session created: authorization is on but no principal key could be derived from the auth info (give the authorizer a sessionOwner method, or pass the sessionOwner option)',
      ),
    );
    return UNBINDABLE;
  }

  /**
   * Room for one more session of `owner` under `maxPerPrincipal`: undefined when there is
   * room (perhaps after closing that principal's least recently active quiet session), else
   * the 429 to answer. Unbound sessions (`owner` undefined) always have room here.
   */
  #roomFor(owner: string | undefined): HttpReply | undefined {
    const held = owner === undefined ? undefined : this.#byOwner.get(owner);
    if (held === undefined || held.size < this.#settings.maxPerPrincipal) return undefined;
    const now = Date.now();
    let oldest: StreamableSessionTransport | undefined;
    for (const transport of held) {
      if (transport instanceof StreamableSessionTransport && transport.isIdle(now, 0) && (oldest === undefined || transport.lastActivity < oldest.lastActivity))
        oldest = transport;
    }
    if (oldest === undefined) {
      return errorReply(429, TRANSPORT_ERROR, 'Too Many Requests: this principal holds too many sessions', { 'retry-after': RETRY_AFTER_SECONDS });
    }
    void oldest.close();
    return undefined;
  }

  /** Counts a new session against its principal's limit (`owner` undefined: unbound, not counted). */
  #own(transport: AnySession): void {
    const owner = transport.owner;
    if (owner === undefined) return;
    let held = this.#byOwner.get(owner);
    if (held === undefined) this.#byOwner.set(owner, (held = new Set()));
    held.add(transport);
  }

  #disown(transport: AnySession): void {
    const owner = transport.owner;
    if (owner === undefined) return;
    const held = this.#byOwner.get(owner);
    if (held === undefined) return;
    held.delete(transport);
    if (held.size === 0) this.#byOwner.delete(owner);
  }

  #startSweep(): void {
    if (this.#timer !== undefined) return;
    const every = Math.min(Math.max(Math.floor(this.#settings.idleMs / 2), 10), 60_000);
    this.#timer = setInterval(this.#sweep, every);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #stopSweep(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  readonly #sweep = (): void => {
    const now = Date.now();
    const { idleMs, directory } = this.#settings;
    for (const transport of this.#sessions.values()) {
      if (transport.isIdle(now, idleMs)) void transport.close();
      // a busy session (stream open, request running) stays alive in the directory too
      else if (directory !== undefined && !transport.isIdle(now, 0)) directory.touch(transport.sessionId!, idleMs);
    }
  };
}
