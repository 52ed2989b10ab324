/**
 * The keep-alive connections of the Node requester: one {@link OriginPool} per origin,
 * holding {@link Connection}s (a socket and its response parser).
 *
 * Design note:
 * - A connection carries one exchange at a time (no pipelining). It goes back to its pool
 *   only when the parser saw the whole response and the response allowed reuse (HTTP/1.1,
 *   no `Connection: close`, a delimited body, no stray bytes after it); otherwise it is
 *   destroyed. A returning connection goes straight to the oldest queued exchange, else
 *   it waits idle: `unref`'d (an idle pool never keeps the process alive), on a stack
 *   (the most recently used is taken first), at most `maxIdleSocketsPerOrigin` of them.
 * - Idle time is bounded by `idleTimeoutMs` and by the server's `Keep-Alive: timeout`
 *   less half a second, so the client lets go before the server does. A connection past
 *   its bound is destroyed when met (taking one checks the clock) and by a sweep every
 *   second while idle connections exist. A connection that closes, ends or errors while
 *   idle leaves the pool at once.
 * - At most `maxSocketsPerOrigin` connections per origin (idle ones included); exchanges
 *   beyond wait in a FIFO queue, served as connections return or die.
 * - Stale keep-alive connections: the server may close an idle connection just as a
 *   request is written to it. When a reused connection fails (error, reset, close) before
 *   a single byte of the response arrived, the server never processed the request (it
 *   would have answered, or at least not closed in silence), so the exchange is sent again,
 *   once, on a fresh connection. A failure on a fresh connection, or after response bytes
 *   arrived, is the exchange's failure.
 * - Errors: every failure becomes a LocalError naming the origin and what happened
 *   (`connection_closed`; `timeout` when connecting takes longer than `connectTimeoutMs`).
 */
import type { Socket } from 'node:net';
import { LocalError } from '../../jsonrpc/errors.js';
import { connectionFailureReason } from '../client/connection-failure.js';
import type { Exchange, ExchangeCarrier, ExchangeQueue } from './exchange.js';
import { ResponseParser } from './response-parser.js';

/** The error of a request made, or cut short, after `requester.close()`. */
export function requesterClosed(): LocalError {
  return new LocalError('connection_closed', 'The HTTP requester was closed (requester.close())');
}

/** What a pool needs from its requester. */
export interface PoolHost {
  readonly maxSockets: number;
  readonly maxIdle: number;
  readonly idleTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly maxHeaderBytes: number;
  /**
   * Opens a socket to the origin (`net.connect` or `tls.connect`) whose packets go to
   * `read` (see {@link PacketReader}). The socket emits no `data` events.
   */
  connect(url: URL, read: PacketReader): Socket;
  /** An idle connection exists: make sure the sweep runs. */
  idleAdded(): void;
  /** The pool holds nothing any more. */
  emptied(pool: OriginPool): void;
}

/**
 * Receives one packet of a connection: `data[0, end)`, valid only during the call (the
 * memory may be reused for the next packet). The arguments are in the order of
 * `net.connect`'s `onread` callback, which can be one; it returns true (keep reading).
 */
export type PacketReader = (end: number, data: Buffer) => boolean;

/** One socket to an origin and the parser of its responses. */
export class Connection implements ExchangeCarrier {
  readonly socket: Socket;
  readonly #pool: OriginPool;
  readonly #parser: ResponseParser;
  exchange: Exchange | undefined;
  /** Exchanges started on this connection. */
  uses = 0;
  idleSince = 0;
  idleLimitMs = 0;
  dead = false;
  #connected = false;
  #error: Error | undefined;

  constructor(pool: OriginPool, socket: Socket, host: PoolHost, secure: boolean) {
    this.#pool = pool;
    this.socket = socket;
    this.#parser = new ResponseParser(host.maxHeaderBytes);
    socket.setNoDelay(true);
    socket.setTimeout(host.connectTimeoutMs);
    socket.once('timeout', () => {
      if (!this.#connected)
        this.destroy(
          new LocalError(
            'timeout',
            `Connecting to ${pool.origin} took longer than ${host.connectTimeoutMs} ms (connectTimeoutMs); is the server up and reachable?`,
          ),
        );
    });
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      this.#connected = true;
      socket.setTimeout(0);
    });
    socket.on('error', (error: Error) => {
      this.#error ??= error;
    });
    socket.on('end', () => this.#gone());
    socket.on('close', () => this.#gone());
  }

  /** Sends `exchange` on this connection. */
  start(exchange: Exchange): void {
    this.exchange = exchange;
    exchange.carrier = this;
    exchange.queue = undefined;
    if (this.uses++ > 0) this.socket.ref();
    this.#parser.expect(exchange.method, exchange);
    this.socket.write(exchange.payload);
  }

  /** A packet arrived: `data[0, end)`; a {@link PacketReader}. */
  data(end: number, data: Buffer): boolean {
    const exchange = this.exchange;
    if (exchange === undefined || this.dead) {
      // bytes nobody asked for: the connection's state is unknown
      this.destroy();
      return true;
    }
    try {
      this.#parser.push(data, end);
    } catch (error) {
      this.destroy(error);
      return true;
    }
    if (exchange.finished) {
      this.exchange = undefined;
      this.#pool.release(this, exchange.reuse, exchange.keepAliveMs);
    }
    return true;
  }

  /** The socket ended or closed. */
  #gone(): void {
    if (this.dead) return;
    this.dead = true;
    const exchange = this.exchange;
    this.exchange = undefined;
    if (exchange !== undefined && !exchange.finished && !exchange.broken) {
      let parseError: unknown;
      try {
        this.#parser.close();
      } catch (error) {
        parseError = error;
      }
      if (!exchange.finished) {
        if (!this.#parser.started && this.uses > 1 && !exchange.retried && !exchange.signal?.aborted) {
          // a stale keep-alive connection: see the design note
          exchange.retried = true;
          this.socket.destroy();
          this.#pool.replace(this, exchange);
          return;
        }
        exchange.fail(this.#failure(parseError));
      }
    }
    this.socket.destroy();
    this.#pool.forget(this);
  }

  #failure(parseError: unknown): LocalError {
    const origin = this.#pool.origin;
    const error = this.#error;
    if (!this.#connected) {
      return new LocalError(
        'connection_closed',
        `Cannot connect to ${origin}: ${error === undefined ? 'the connection closed' : connectionFailureReason(error, new URL(origin))}`,
        { cause: error },
      );
    }
    const what = parseError instanceof Error ? parseError.message : 'The connection closed';
    return new LocalError('connection_closed', `${what} (${origin}${error ? `: ${error.message}` : ''})`, { cause: error ?? parseError });
  }

  /** Destroys the socket; a running exchange fails with `reason` (when given). */
  destroy(reason?: unknown): void {
    if (this.dead) return;
    this.dead = true;
    const exchange = this.exchange;
    this.exchange = undefined;
    this.socket.destroy();
    if (exchange !== undefined && reason !== undefined) exchange.fail(reason);
    this.#pool.forget(this);
  }
}

/** The connections and the queue of one origin; see the module's design note. */
export class OriginPool implements ExchangeQueue {
  readonly origin: string;
  readonly #url: URL;
  readonly #host: PoolHost;
  readonly #all = new Set<Connection>();
  readonly #idle: Connection[] = [];
  readonly #queue: Exchange[] = [];
  #closed = false;

  constructor(origin: string, url: URL, host: PoolHost) {
    this.origin = origin;
    this.#url = url;
    this.#host = host;
  }

  /** Connections open (idle ones included). */
  get size(): number {
    return this.#all.size;
  }

  /** Idle connections. */
  get idle(): number {
    return this.#idle.length;
  }

  /** Sends `exchange` on an idle connection, a new one, or queues it. */
  dispatch(exchange: Exchange): void {
    const idle = this.#idle;
    if (idle.length > 0) {
      const now = Date.now();
      while (idle.length > 0) {
        const conn = idle.pop()!;
        if (conn.dead) continue;
        if (now - conn.idleSince >= conn.idleLimitMs) {
          conn.destroy();
          continue;
        }
        conn.start(exchange);
        return;
      }
    }
    if (this.#all.size < this.#host.maxSockets) this.#open(exchange);
    else {
      exchange.queue = this;
      this.#queue.push(exchange);
    }
  }

  dequeue(exchange: Exchange): void {
    const at = this.#queue.indexOf(exchange);
    if (at >= 0) this.#queue.splice(at, 1);
    exchange.queue = undefined;
    this.#maybeEmpty();
  }

  /** A connection finished an exchange: reuse it, keep it idle, or destroy it. */
  release(conn: Connection, reuse: boolean, keepAliveMs: number | undefined): void {
    if (!reuse || this.#closed || conn.dead) {
      conn.destroy();
      return;
    }
    const next = this.#queue.shift();
    if (next !== undefined) {
      conn.start(next);
      return;
    }
    const limit = keepAliveMs === undefined ? this.#host.idleTimeoutMs : Math.min(this.#host.idleTimeoutMs, keepAliveMs - 500);
    if (limit <= 0 || this.#idle.length >= this.#host.maxIdle) {
      conn.destroy();
      return;
    }
    conn.idleSince = Date.now();
    conn.idleLimitMs = limit;
    conn.socket.unref();
    this.#idle.push(conn);
    this.#host.idleAdded();
  }

  /** A connection died (its exchange, if any, was settled): forget it, serve the queue. */
  forget(conn: Connection): void {
    if (!this.#remove(conn)) return;
    if (!this.#closed && this.#queue.length > 0 && this.#all.size < this.#host.maxSockets) this.#open(this.#queue.shift()!);
    this.#maybeEmpty();
  }

  /** A stale connection died before answering `exchange`: send it again on a fresh one, in its place. */
  replace(conn: Connection, exchange: Exchange): void {
    this.#remove(conn);
    if (this.#closed) exchange.fail(requesterClosed());
    else this.#open(exchange);
  }

  /** Takes `conn` out of the pool (and its idle stack); false when it was not in it. */
  #remove(conn: Connection): boolean {
    if (!this.#all.delete(conn)) return false;
    const at = this.#idle.indexOf(conn);
    if (at >= 0) this.#idle.splice(at, 1);
    return true;
  }

  /** Destroys idle connections past their bound. */
  sweep(now: number): void {
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      const conn = this.#idle[i]!;
      if (now - conn.idleSince >= conn.idleLimitMs) conn.destroy();
    }
  }

  /** Destroys everything; running and queued exchanges fail with `reason`. */
  close(reason: unknown): void {
    this.#closed = true;
    for (const exchange of this.#queue.splice(0)) {
      exchange.queue = undefined;
      exchange.fail(reason);
    }
    for (const conn of [...this.#all]) conn.destroy(reason);
    this.#idle.length = 0;
  }

  #open(exchange: Exchange): void {
    let socket: Socket;
    let conn: Connection | undefined;
    try {
      // packets can only come once connected, after `conn` is set
      socket = this.#host.connect(this.#url, (end, data) => conn!.data(end, data));
    } catch (error) {
      exchange.fail(
        new LocalError('connection_closed', `Cannot connect to ${this.origin}: ${connectionFailureReason(error, new URL(this.origin))}`, { cause: error }),
      );
      this.#maybeEmpty();
      return;
    }
    conn = new Connection(this, socket, this.#host, this.#url.protocol === 'https:');
    this.#all.add(conn);
    conn.start(exchange);
  }

  #maybeEmpty(): void {
    if (this.#all.size === 0 && this.#queue.length === 0) this.#host.emptied(this);
  }
}
