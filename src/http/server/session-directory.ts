/**
 * Where the `Mcp-Session-Id` sessions of a deployment are recorded, so that any instance can
 * serve any request of a 2025-era session (the handler's `sessions` option). Without one (the
 * default) a session lives only in the handler that created it, as before.
 *
 * Design notes:
 * - The handler's own session table stays the cache: a session it holds is served with no
 *   call into the directory at all, except {@link SessionDirectory.touch}, which an
 *   implementation throttles (a remote one sends nothing for most requests).
 * - A request for a session the handler does not hold costs one {@link SessionDirectory.get};
 *   the handler then puts a fresh server connection into the initialized state from the record.
 * - `DELETE` ends the session everywhere ({@link SessionDirectory.delete}); the idle timeout
 *   is the record's expiry. The handler forgets a session it holds when the directory reports
 *   it removed (deleted on another instance, expired) through {@link SessionDirectory.watch}.
 * - Log level and subscriptions are written through ({@link SessionDirectory.update}) before
 *   the answer to `logging/setLevel` / `resources/(un)subscribe` is sent.
 * - Routing ({@link SessionDirectory.forward}, optional): a client message this instance
 *   cannot place (the answer to a server → client request another instance sent, a
 *   cancellation or progress of work running elsewhere) and a message for the GET stream
 *   when no GET is attached here go to the other instances; the one it concerns delivers it.
 * - Following ({@link SessionDirectory.follow}, optional): a `Last-Event-ID` naming a stream
 *   another instance (the owner, named by its {@link SessionDirectory.streamTag} in the event
 *   id) opened is resumed here: the directory asks the owner whether it still holds the
 *   stream open; if so the owner hands the stream's further events over
 *   ({@link SessionDirectoryListener.followed}), else (stream complete, or owner stopped) the
 *   resuming instance replays what the event store kept and ends the stream.
 * Runtime-neutral: no `node:*` imports.
 */
import type { JSONObject, RequestId } from '../../jsonrpc/types.js';

/** Everything an instance needs to serve a request of a session it did not create. */
export interface SessionRecord {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  /** The negotiated protocol revision. */
  readonly revision: string;
  /** The client's declared capabilities. */
  readonly clientCapabilities: JSONObject;
  /** The client's `clientInfo`, when it sent one. */
  readonly clientInfo: JSONObject | undefined;
  /** The minimum log level the client asked for, if any. */
  readonly logLevel: string | undefined;
  /** The resource URIs the client subscribed to. */
  readonly subscriptions: readonly string[];
  /** The principal key the session is bound to; undefined when sessions are not bound. */
  readonly owner: string | undefined;
  /** The idle timeout of the session, in ms (the handler's `sessionIdleTimeoutMs`). */
  readonly idleMs: number;
}

/**
 * The handler's limits a directory applies across instances when it creates a record.
 * `maxPerOwner`: most live sessions of one principal (a record's `owner`); at it the
 * directory ends that principal's least recently used quiet session to make room, or
 * resolves `'crowded'` (the handler answers 429 with `Retry-After`) when none is quiet. A
 * directory that does not count per principal ignores it (the handler then counts per
 * instance only).
 */
export interface SessionLimits {
  readonly maxPerOwner: number;
}

/** The parts of a record a request may change. */
export interface SessionPatch {
  readonly logLevel?: string | undefined;
  readonly subscriptions?: readonly string[];
}

/**
 * What a routed message is: `client`, a message the client POSTed (a response, a
 * cancellation, progress) for the instance it concerns; `stream`, a message for the
 * session's GET stream, for the instance holding that stream.
 */
export type RoutedKind = 'client' | 'stream';

/**
 * Why a followed stream ends: `completed`, the owner sent its last event (the response) and
 * ended it, or handed it to a newer resumption; `not-open`, the owner does not hold it open
 * (complete, unknown, or a stream of another session); `gone`, the owner stopped or did not
 * answer (every event it stored is in the event store; none will follow).
 */
export type FollowEnd = 'completed' | 'not-open' | 'gone';

/**
 * The resuming side of {@link SessionDirectory.follow}. Calls come asynchronously (never
 * during `follow` itself), `opened` at most once and first, `ended` exactly once and last.
 * Must not throw.
 */
export interface StreamFollower {
  /** The owner holds the stream open; every event after sequence number `seq` comes through {@link event}. */
  opened(seq: number): void;
  /** Event `seq` of the stream (in order; one lost in transit shows as a gap, the event store has it). */
  event(seq: number, text: string): void;
  /** No further events will come. */
  ended(why: FollowEnd): void;
}

/** The owner's side of a follow: where the stream's further events go. Never throws. */
export interface StreamFeed {
  /** Event `seq` of the followed stream, in order, once the event store holds it (and every earlier one). */
  event(seq: number, text: string): void;
  /** The stream completed after its last event, or was taken over (the follower ends its response); called after the last {@link event}. */
  end(): void;
}

/** A stream the owner handed over ({@link SessionDirectoryListener.followed}). */
export interface FollowedStream {
  /** The last sequence number the stream assigned; later events go to the feed. */
  readonly seq: number;
  /** The follower went away: the owner stops feeding (it keeps storing). Idempotent. */
  stop(): void;
}

/** What {@link SessionDirectory.watch} listeners hear about sessions changed elsewhere. */
export interface SessionDirectoryListener {
  /** Session `id` was deleted or expired: a handler holding it forgets it. Must not throw. */
  removed(id: string): void;
  /** Session `id` was updated on another instance: a handler holding it applies `patch`. Must not throw. */
  updated(id: string, patch: SessionPatch): void;
  /**
   * Another instance routed message `text` of session `id`, with the `origin` it was
   * forwarded with (see {@link SessionDirectory.forward}). Optional. Must not throw.
   */
  forwarded?(id: string, kind: RoutedKind, text: string, origin?: string): void;
  /**
   * Another instance resumes stream `stream` of session `id`, which this instance's
   * {@link SessionDirectory.streamTag} names: when this listener holds that stream open it
   * hands its further events to `feed` and returns the handle, else undefined. Optional.
   * Must not throw.
   */
  followed?(id: string, stream: number, feed: StreamFeed): FollowedStream | undefined;
}

/**
 * A shared record of sessions (see the module note). Every method may reject when the
 * directory cannot be reached; the handler answers 503 with `Retry-After` then (a
 * `RangeError` from `create`, a record the directory refuses to keep, gets 500).
 */
export interface SessionDirectory {
  /**
   * Records a new session; resolves `'full'` (no record made) when the directory's own cap
   * on sessions is reached, which the handler answers with 503 and `Retry-After`, and
   * `'crowded'` when the record's owner is at `limits.maxPerOwner` with no quiet session to
   * end (429 with `Retry-After`).
   */
  create(record: SessionRecord, limits?: SessionLimits): Promise<'created' | 'full' | 'crowded'>;
  /**
   * The record of `id`, or undefined when there is none (never created, deleted, expired).
   * With `reader` (sessions are bound to principals), also undefined when the record is
   * bound to another principal than `reader.owner`: then its expiry must not move (a
   * refused request does not keep another principal's session alive). A directory that
   * ignores `reader` lets such requests extend the record's expiry (the handler still
   * answers them 404).
   */
  get(id: string, reader?: { readonly owner: string | undefined }): Promise<SessionRecord | undefined>;
  /**
   * Session `id` was used now: pushes its expiry out to `idleMs` from now. May do nothing
   * (throttled); never throws nor rejects (failures go to the directory's error reporting).
   */
  touch(id: string, idleMs: number): void;
  /** Writes `patch` into the record of `id` and tells the other instances. */
  update(id: string, patch: SessionPatch): Promise<void>;
  /**
   * Ends session `id` everywhere (its record is deleted, the other instances are told)
   * before it resolves: an instance holding it does not serve it once this resolved.
   */
  delete(id: string): Promise<void>;
  /** This handler no longer holds session `id` (it may forget per-session bookkeeping). Must not throw. */
  release(id: string): void;
  /**
   * Hands message `text` of session `id` to the other instances' listeners (best effort, at
   * most once), with `origin` unchanged: for a `stream` message, its event id on the GET
   * stream of the instance that produced it (undefined without an event store), so that an
   * instance resuming that stream from the store does not write it twice. Optional: without
   * it nothing is routed between instances. Never throws.
   */
  forward?(id: string, kind: RoutedKind, text: string, origin?: string): void;
  /**
   * Hands client message `text` of session `id` (an answer to a server → client request, or
   * progress or a cancellation the client sent) to the instance tagged `to` — the
   * {@link streamTag} named by the request id's prefix (see `Transport.requestIdPrefix`) —
   * or, with `to` undefined, to every other instance (the one it concerns delivers it).
   * Resolves true when a running instance received it, false when none did (the instance
   * tagged `to` stopped: nothing waits for the message any more, or the message was too
   * long to route, reported); rejects when it cannot be relayed now (the directory cannot be
   * reached), and the handler answers the POST 503 with `Retry-After` so that the client
   * sends it again. Optional: without it such messages go through {@link forward}, and one
   * that cannot be relayed is lost.
   */
  relay?(id: string, to: string | undefined, text: string): Promise<boolean>;
  /**
   * POST stream `stream` of session `id`, opened by this instance (its {@link streamTag}),
   * carries the client's requests `ids`: recorded until {@link streamEnded}, so that an
   * instance resuming the stream after this one stopped (killed, cut off) can answer them
   * with an error instead of leaving the client waiting ({@link openRequests}). Optional,
   * with the two below. Never throws (failures go to the directory's error reporting).
   */
  streamOpened?(id: string, stream: number, ids: readonly RequestId[]): void;
  /** Stream `stream` of session `id` (this instance's) got its responses or was cancelled: its record goes. Never throws. */
  streamEnded?(id: string, stream: number): void;
  /**
   * Takes the request ids recorded for stream `stream` of session `id` that the instance
   * tagged `owner` opened and did not end: the record goes, so that only the first
   * instance asking answers them; [] when none. Rejects when the directory cannot be
   * reached.
   */
  openRequests?(id: string, owner: string, stream: number): Promise<RequestId[]>;
  /** Adds a listener for sessions changed elsewhere; returns the function that removes it. */
  watch(listener: SessionDirectoryListener): () => void;
  /**
   * This instance's tag (1 to 32 of `A-Z a-z 0-9 _ -`, unique per running instance): part of
   * the ids and event store keys of the SSE streams it opens, so that a `Last-Event-ID` says
   * which instance opened the stream. Optional: without it the handler makes a random one.
   */
  readonly streamTag?: string;
  /**
   * Resumes stream `stream` of session `id` opened by the instance tagged `owner` (see the
   * module note); `follower` hears the outcome. Returns the function that stops following
   * (the client went away; idempotent). Optional: without it a stream of another instance
   * is replayed from the event store and ended. Never throws.
   */
  follow?(id: string, owner: string, stream: number, follower: StreamFollower): () => void;
}
