/**
 * `nodeHttpRequester()`: an {@link HttpRequester} on `node:net` and `node:tls`, HTTP/1.1
 * over keep-alive sockets, for the HTTP client transports (`options.requester`).
 *
 * Design note: a request is one call: its target (origin, path, `Host`) is cached per URL
 * (the transports reuse one URL), its payload built and checked (request-head.ts), an
 * {@link Exchange} made and dispatched to the origin's pool (pool.ts), which writes it in
 * one go on an idle or new connection, or queues it. The response is parsed from the
 * socket's packets (response-parser.ts) and handed over as a `ClientResponse` with the
 * header fields as parsed (no `Headers`) and a chunk reader (body.ts): no `Response`, no
 * web streams, one promise for the head and one per read. The requester never follows
 * redirects, and only speaks HTTP/1.1 (ALPN `http/1.1` over TLS). See pool.ts for reuse, idle bounds and the one
 * retry of a request on a stale keep-alive connection.
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import type { ClientResponse, HttpRequester, RequesterInit } from '../client/common.js';
import { Exchange } from './exchange.js';
import { OriginPool, type PacketReader, type PoolHost, requesterClosed } from './pool.js';
import { type RequestTarget, requestPayload, requestTarget } from './request-head.js';

/** Options of {@link nodeHttpRequester}. */
export interface NodeHttpRequesterOptions {
  /** Connections per origin, idle ones included; requests beyond wait, first come first served. Default 256. */
  maxSocketsPerOrigin?: number;
  /** Idle connections kept per origin (more are closed as they come back). Default 64. */
  maxIdleSocketsPerOrigin?: number;
  /**
   * How long an idle connection is kept, in milliseconds; also capped by the server's
   * `Keep-Alive: timeout` less 500 ms. Default 4000 (Node's servers drop idle connections
   * after 5 s).
   */
  idleTimeoutMs?: number;
  /** How long connecting (and the TLS handshake) may take. Default 30000 ms. */
  connectTimeoutMs?: number;
  /** Bound on a response's head (status line and headers), and on its trailers, in bytes. Default 16 KiB. */
  maxHeaderBytes?: number;
  /**
   * TLS options for `https:` (`ca`, `cert`, `key`, `rejectUnauthorized`, `servername`, ...),
   * passed to `tls.connect`. The SNI server name defaults to the URL's host name (unless it
   * is an IP address) and ALPN offers `http/1.1` only.
   */
  tls?: Omit<ConnectionOptions, 'host' | 'port' | 'socket' | 'path' | 'ALPNProtocols'>;
}

/** The requester {@link nodeHttpRequester} returns: an `HttpRequester` with `close()`. */
export interface NodeHttpRequester extends HttpRequester {
  /**
   * Destroys every connection; requests in progress and queued ones reject (or their
   * bodies' reads do) with LocalError `connection_closed`, and so do later ones.
   * Idempotent.
   */
  close(): void;
  /** Connections open right now, over all origins (idle ones included). */
  readonly openSockets: number;
  /** Idle connections right now, over all origins. */
  readonly idleSockets: number;
}

/**
 * The memory every plain-TCP connection of every requester reads its packets into
 * (`onread` of `net.connect`), instead of a fresh buffer per packet through the socket's
 * readable stream. One buffer serves them all: a packet is read into it and handed to the
 * connection's parser synchronously, and nothing keeps a view into it past that call (the
 * parser copies an unfinished head, the body copies the pieces it queues), so the next
 * packet, of whichever connection, may overwrite it. 64 KiB, as much as Node reads at once.
 */
let sharedReadBuffer: Buffer | undefined;
function readBuffer(): Buffer {
  return (sharedReadBuffer ??= Buffer.allocUnsafe(64 * 1024));
}

/** Most URLs whose targets are remembered (the cache is emptied when it grows past this). */
const MAX_TARGETS = 256;

function positiveInteger(options: NodeHttpRequesterOptions, key: keyof NodeHttpRequesterOptions, fallback: number): number {
  const value = options[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new RangeError(`nodeHttpRequester: ${key} must be a positive integer`);
  return value;
}

/**
 * A requester of HTTP/1.1 over `node:net` / `node:tls` with keep-alive pools per origin,
 * for `options.requester` of the HTTP client transports. Throws RangeError for an option
 * that is not a positive integer. Requests reject with TypeError for a URL other than
 * http: or https:, a method or header name that is not a token, a header value with CR,
 * LF or NUL (nothing is sent); with LocalError `connection_closed` when the server cannot
 * be reached, closes the connection early or after `close()`, `invalid_message` when its
 * answer is not valid HTTP/1.1, `message_too_large` past `maxHeaderBytes`, `timeout` when
 * connecting takes longer than `connectTimeoutMs`; with the signal's reason when aborted.
 */
export function nodeHttpRequester(options: NodeHttpRequesterOptions = {}): NodeHttpRequester {
  const tlsOptions = options.tls ?? {};
  const host: PoolHost = {
    maxSockets: positiveInteger(options, 'maxSocketsPerOrigin', 256),
    maxIdle: positiveInteger(options, 'maxIdleSocketsPerOrigin', 64),
    idleTimeoutMs: positiveInteger(options, 'idleTimeoutMs', 4000),
    connectTimeoutMs: positiveInteger(options, 'connectTimeoutMs', 30_000),
    maxHeaderBytes: positiveInteger(options, 'maxHeaderBytes', 16 * 1024),
    connect(url: URL, read: PacketReader): Socket {
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      if (url.protocol === 'http:') {
        // packets land in the shared buffer and go straight to `read`: no stream machinery
        return netConnect({ host: hostname, port: Number(url.port) || 80, onread: { buffer: readBuffer, callback: read } });
      }
      const socket = tlsConnect({
        ...tlsOptions,
        host: hostname,
        port: Number(url.port) || 443,
        servername: tlsOptions.servername ?? (isIP(hostname) === 0 ? hostname : undefined),
        ALPNProtocols: ['http/1.1'],
      });
      socket.on('data', (data: Buffer) => read(data.length, data));
      return socket;
    },
    idleAdded(): void {
      if (sweeper !== undefined || closed) return;
      sweeper = setInterval(sweep, 1000);
      sweeper.unref();
    },
    emptied(pool: OriginPool): void {
      if (pools.get(pool.origin) === pool) pools.delete(pool.origin);
    },
  };
  const pools = new Map<string, OriginPool>();
  const targets = new Map<string, RequestTarget>();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  function sweep(): void {
    const now = Date.now();
    let idle = 0;
    for (const pool of pools.values()) {
      pool.sweep(now);
      idle += pool.idle;
    }
    if (idle === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  }

  function targetOf(url: URL): RequestTarget {
    const href = url.href;
    let target = targets.get(href);
    if (target === undefined) {
      target = requestTarget(url);
      if (targets.size >= MAX_TARGETS) targets.clear();
      targets.set(href, target);
    }
    return target;
  }

  const request = (url: URL, init: RequesterInit): Promise<ClientResponse> => {
    if (closed) return Promise.reject(requesterClosed());
    const signal = init.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    let target: RequestTarget;
    let payload: string | Buffer;
    try {
      target = targetOf(url);
      payload = requestPayload(target, init);
    } catch (error) {
      return Promise.reject(error);
    }
    let pool = pools.get(target.origin);
    if (pool === undefined) {
      pool = new OriginPool(target.origin, url, host);
      pools.set(target.origin, pool);
    }
    const chosen = pool;
    return new Promise<ClientResponse>((resolve, reject) => {
      chosen.dispatch(new Exchange(url, init.method, payload, signal, resolve, reject));
    });
  };

  const close = (): void => {
    if (closed) return;
    closed = true;
    if (sweeper !== undefined) clearInterval(sweeper);
    sweeper = undefined;
    const reason = requesterClosed();
    for (const pool of [...pools.values()]) pool.close(reason);
    pools.clear();
    targets.clear();
  };

  return Object.defineProperties(request as NodeHttpRequester, {
    close: { value: close },
    openSockets: { get: () => sum((pool) => pool.size) },
    idleSockets: { get: () => sum((pool) => pool.idle) },
  });

  function sum(of: (pool: OriginPool) => number): number {
    let total = 0;
    for (const pool of pools.values()) total += of(pool);
    return total;
  }
}
