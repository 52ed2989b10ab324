/**
 * The part of a shared session's transport that crosses instances (sessions shared through
 * a `SessionDirectory` and a shared event store): a `Last-Event-ID` that names a stream of
 * another instance of the deployment. A POST stream of another instance is followed
 * (stream-follow.ts: the shared store's events, then the owner's feed); the GET stream of
 * another instance is replayed from the store and continued as this instance's own GET
 * stream, with the messages other instances relay for it meanwhile held, and those the
 * replay already wrote dropped. The transport (session-transport.ts) keeps its own streams;
 * this module only ever reaches them through {@link CrossingHost}. Runtime-neutral.
 */
import { encodeSseEvent } from '../../framing/sse.js';
import { toError } from '../../jsonrpc/errors.js';
import type { RequestId } from '../../jsonrpc/types.js';
import { isThenable } from '../../jsonrpc/values.js';
import type { EventStore } from './event-store.js';
import { errorReply, primingEvent, SESSION_NOT_FOUND, TRANSPORT_ERROR } from './replies.js';
import type { StreamFollower } from './session-directory.js';
import { SseConnection } from './sse-connection.js';
import { RemoteFollow } from './stream-follow.js';
import type { HttpReply } from './types.js';

/** What {@link CrossInstance} needs of the session transport it serves (made once per such transport). */
export interface CrossingHost {
  /** The shared event store. */
  readonly store: EventStore;
  /** The `retry` field of priming events, in ms. */
  readonly retryMs: number;
  /** The session's `Mcp-Session-Id`. */
  readonly sessionId: string;
  /** True once the transport closed. */
  readonly closed: boolean;
  /** Reports a problem nobody else hears about. Must not throw. */
  reportError(error: Error): void;
  /** Follows stream `stream` of the instance tagged `owner` (`TransportHost.follow`); undefined without that seam. */
  readonly follow: ((owner: string, stream: number, follower: StreamFollower) => () => void) | undefined;
  /** The owner's unanswered requests of a stream (`TransportHost.openRequests`); undefined without that seam. */
  readonly openRequests: ((owner: string, stream: number) => Promise<RequestId[]>) | undefined;
  /** Continues this instance's GET stream on `conn` (after what it already stored), as the transport's own resumption. */
  attachStandalone(conn: SseConnection): Promise<HttpReply>;
  /** The SSE reply carrying `conn`, with the session's headers. */
  reply(conn: SseConnection): HttpReply;
  /** A connection serving a followed stream opened (`1`) or ended (`-1`); either counts as activity. */
  counted(delta: 1 | -1 | 0): void;
  /** Writes (or stores) a relayed message on this instance's GET stream (`relayToStandalone`). */
  relay(text: string, origin: string | undefined): boolean;
}

/**
 * The GET stream of another instance, resumed on this one: the start of its event ids
 * (`<tag>.0:`) and the last sequence number the client has of it (replayed here or named by
 * its `Last-Event-ID`). While the replay runs, `held` keeps the messages other instances
 * relay for the GET stream, in arrival order, to be written once this instance's GET
 * stream is attached; undefined after. A relayed message whose origin is at or before
 * `through` on that stream is one the client has and is dropped.
 */
interface AdoptedStandalone {
  readonly label: string;
  through: number;
  held: RelayedMessage[] | undefined;
}

/** A message another instance relayed for the GET stream, and its origin (see `relayToStandalone`). */
interface RelayedMessage {
  readonly text: string;
  readonly origin: string | undefined;
}

/** 400: a `Last-Event-ID` that names no resumable stream of the session. */
export function badLastEventId(): HttpReply {
  return errorReply(400, TRANSPORT_ERROR, 'Bad Request: Last-Event-ID does not name a resumable stream of this session; send the request again');
}

function sessionGone(): HttpReply {
  return errorReply(404, SESSION_NOT_FOUND, 'Session not found');
}

/** See the module note. One per shared session's transport, made by its first crossing. */
export class CrossInstance {
  readonly #host: CrossingHost;
  /** Resumptions of other instances' streams in progress here. */
  #remote: Set<RemoteFollow> | undefined = undefined;
  /** The GET stream of another instance last resumed here. */
  #adopted: AdoptedStandalone | undefined = undefined;

  constructor(host: CrossingHost) {
    this.#host = host;
  }

  /** Resumes stream `streamNo` (0: the GET stream) of the instance tagged `tag` after `afterSeq`. */
  resume(tag: string, streamNo: number, afterSeq: number): Promise<HttpReply> {
    return streamNo === 0 ? this.#resumeStandalone(tag, afterSeq) : this.#resumeRemote(tag, streamNo, afterSeq);
  }

  /**
   * True when a message relayed for the GET stream is taken care of here: dropped (its
   * `origin` on the adopted GET stream is one the replay wrote) or held (the replay runs).
   */
  intercepts(text: string, origin: string | undefined): boolean {
    const adopted = this.#adopted;
    if (adopted === undefined) return false;
    if (origin !== undefined && origin.startsWith(adopted.label) && Number(origin.slice(adopted.label.length)) <= adopted.through) return true;
    if (adopted.held === undefined) return false;
    adopted.held.push({ text, origin });
    return true;
  }

  /** Ends every follow (the transport closed). */
  close(): void {
    if (this.#remote !== undefined) for (const follow of [...this.#remote]) follow.close();
  }

  /**
   * Resumes the GET stream of this session that the instance tagged `tag` held: its stored
   * events after `afterSeq` (this session's only: the key is built from it), then this
   * instance's own GET stream (its priming event moves the client on to this instance's
   * event ids). Messages other instances produce for the GET stream from then on reach it
   * through the directory's routing.
   */
  async #resumeStandalone(tag: string, afterSeq: number): Promise<HttpReply> {
    const host = this.#host;
    const conn = new SseConnection();
    const label = `${tag}.0:`;
    const held: RelayedMessage[] = [];
    const adopted: AdoptedStandalone = (this.#adopted = { label, through: afterSeq, held });
    conn.write(primingEvent(label + afterSeq, host.retryMs));
    try {
      const replayed = host.store.replay(`${host.sessionId}.${tag}/0`, afterSeq);
      const events = isThenable(replayed) ? await replayed : replayed;
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        if (event.seq <= adopted.through) continue;
        conn.write(encodeSseEvent({ id: label + event.seq, data: event.data }));
        adopted.through = event.seq;
      }
    } catch (error) {
      host.reportError(toError(error));
    }
    if (host.closed) return sessionGone();
    host.counted(0);
    // what this instance stored on its own GET stream while the client's GET was elsewhere
    // reached the client there, or is in the log just replayed: it is not written again
    const reply = await host.attachStandalone(conn);
    adopted.held = undefined;
    for (const m of held) host.relay(m.text, m.origin);
    return reply;
  }

  /** Resumes stream `streamNo` of the instance tagged `tag` after `afterSeq` (stream-follow.ts). */
  async #resumeRemote(tag: string, streamNo: number, afterSeq: number): Promise<HttpReply> {
    const host = this.#host;
    const label = `${tag}.${streamNo}:`;
    const openRequests = host.openRequests;
    const follow = new RemoteFollow(
      {
        store: host.store,
        reportError: (error) => host.reportError(error),
        openRequests: openRequests === undefined ? undefined : () => openRequests(tag, streamNo),
        finished: (f) => host.counted(this.#remote?.delete(f) === true ? -1 : 0),
      },
      `${host.sessionId}.${tag}/${streamNo}`,
      label,
      afterSeq,
    );
    if (host.follow !== undefined) follow.cancel = host.follow(tag, streamNo, follow);
    else follow.ended('gone');
    host.counted(0);
    follow.conn.write(primingEvent(label + afterSeq, host.retryMs));
    const started = await follow.start();
    if (started === 'unknown') return badLastEventId();
    if (started === 'unavailable')
      return errorReply(503, TRANSPORT_ERROR, 'Service Unavailable: the stored events cannot be read now; retry with the same Last-Event-ID', {
        'retry-after': '10',
      });
    if (host.closed) {
      follow.close();
      return sessionGone();
    }
    if (follow.active) {
      (this.#remote ??= new Set()).add(follow);
      host.counted(1);
    }
    return host.reply(follow.conn);
  }
}
