/**
 * The Node.js adapter of the Streamable HTTP handler (`node:http`).
 *
 * Design note: no `Request`/`Response` objects and no web streams on this path. The body is
 * read straight from the `IncomingMessage` with the handler's size limit — reading stops
 * and 413 is answered as soon as the limit is crossed (the rest of the body is discarded
 * for a short grace period so the client can read the 413, then the connection closes).
 * JSON replies are written with one `end()`, with `Content-Length`; SSE replies gather what
 * the core writes during one turn of the event loop into one write, and a reply the core
 * ends within the turn it began in leaves as one body with `Content-Length`. A client that
 * disconnects, or that stops reading until more than {@link MAX_BUFFERED_BYTES} wait
 * unsent, is reported to the core as gone — it never throws out of the adapter.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode } from '../jsonrpc/types.js';
import type { StreamableHttpHandler } from './server/handler.js';
import { errorReply } from './server/replies.js';
import type { HttpHeaders, HttpReply, HttpRequest, HttpStreamReply, SseReplyStream, SseSink } from './server/types.js';
import { bodyTooLarge, MAX_BUFFERED_BYTES } from './server/web.js';

export { MAX_BUFFERED_BYTES };

/** How long the rest of an oversized body is discarded before the connection is cut, in ms. */
const DISCARD_GRACE_MS = 2000;

const noop = (): void => {};

/** Reads the body of one request; remembers whether it was cut for size. */
class NodeBody {
  readonly #req: IncomingMessage;
  tooLarge = false;

  constructor(req: IncomingMessage) {
    this.#req = req;
  }

  readonly read = (maxBytes: number): Promise<string> => {
    const req = this.#req;
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBytes) {
      this.tooLarge = true;
      return Promise.reject(bodyTooLarge(maxBytes));
    }
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const cleanup = (): void => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
      };
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        if (size > maxBytes) {
          cleanup();
          this.tooLarge = true;
          reject(bodyTooLarge(maxBytes));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = (): void => {
        cleanup();
        resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
      };
      const onError = (error: Error): void => {
        cleanup();
        reject(error);
      };
      const onClose = (): void => {
        cleanup();
        reject(new Error('The client closed the connection before the body was read'));
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
    });
  };
}

/** Discards what is left of an oversized body for a short while, then cuts the connection. */
function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  const timer = setTimeout(() => req.socket.destroy(), DISCARD_GRACE_MS);
  timer.unref();
  req.on('end', () => clearTimeout(timer));
  req.on('close', () => clearTimeout(timer));
  req.on('error', noop);
  req.resume();
}

/** Pending SSE text past which a sink writes at once instead of waiting for the end of the loop turn. */
const FLUSH_CHARS = 64 * 1024;

/**
 * Writes one SSE reply to a Node response. Text written during one turn of the event loop
 * is held and leaves in one write when the turn ends (`setImmediate`), so the priming event
 * and a response produced in the same turn share a packet. When the core ends the stream
 * before anything left — the common case of a quick request: priming event, response, end
 * in one turn — the whole reply goes out as one body with `Content-Length`, without
 * chunked framing. The head is written with the first write either way.
 */
class NodeSseSink implements SseSink {
  readonly #res: ServerResponse;
  readonly #stream: SseReplyStream;
  readonly #status: number;
  readonly #headers: HttpHeaders;
  #pending = '';
  #scheduled = false;
  #headSent = false;
  #ended = false;

  constructor(res: ServerResponse, reply: HttpStreamReply) {
    this.#res = res;
    this.#stream = reply.stream;
    this.#status = reply.status;
    this.#headers = reply.headers;
    res.on('close', this.#onClose);
    res.on('error', noop);
    // the head leaves at the end of this turn even if the stream starts without an event
    this.#schedule();
  }

  write(text: string): void {
    const res = this.#res;
    if (this.#ended || res.destroyed) return;
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      // the client is not reading: drop it; its events stay available for resumption
      res.destroy();
      return;
    }
    this.#pending += text;
    if (this.#pending.length > FLUSH_CHARS) this.#flush();
    else this.#schedule();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const res = this.#res;
    if (res.destroyed) return;
    const body = this.#pending;
    this.#pending = '';
    if (!this.#headSent) {
      this.#headSent = true;
      res.setHeader('content-length', Buffer.byteLength(body));
      res.writeHead(this.#status, this.#headers);
    }
    res.end(body);
  }

  /** Sends the head (when not sent yet) and the pending text now. */
  #flush(): void {
    const res = this.#res;
    if (!this.#headSent) {
      this.#headSent = true;
      res.writeHead(this.#status, this.#headers);
      if (this.#pending.length === 0) res.flushHeaders();
    }
    if (this.#pending.length > 0) {
      const text = this.#pending;
      this.#pending = '';
      res.write(text);
    }
  }

  /** Flushes at the end of this loop turn. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#onImmediate);
  }

  readonly #onImmediate = (): void => {
    this.#scheduled = false;
    if (this.#ended || this.#res.destroyed) return;
    this.#flush();
  };

  readonly #onClose = (): void => {
    if (!this.#ended) {
      this.#ended = true;
      this.#pending = '';
      this.#stream.disconnected();
    }
  };
}

function headerLookup(req: IncomingMessage): (name: string) => string | null {
  const headers = req.headers;
  return (name) => {
    const value = headers[name];
    return value === undefined ? null : typeof value === 'string' ? value : value.join(', ');
  };
}

/** Writes a core reply to a Node response. Never throws. */
function writeReply(res: ServerResponse, reply: HttpReply): void {
  if (res.destroyed) {
    reply.stream?.disconnected();
    return;
  }
  try {
    if (reply.stream === undefined) {
      const body = reply.body;
      if (body !== undefined) res.setHeader('content-length', Buffer.byteLength(body));
      res.writeHead(reply.status, reply.headers);
      res.end(body);
      return;
    }
    reply.stream.attach(new NodeSseSink(res, reply));
  } catch {
    reply.stream?.disconnected();
    res.destroy();
  }
}

/** Where the adapter finds the authenticated principal: `req.auth`, as auth middlewares set it. */
interface AuthenticatedRequest extends IncomingMessage {
  auth?: unknown;
}

/**
 * A `node:http` request listener serving `handler`. Usable with `http.createServer()` and
 * frameworks that pass Node's objects (Express, Fastify's raw mode). The auth info handed to
 * MCP handlers is `req.auth` when an auth middleware set it. Never throws; internal
 * failures become 500 replies (reported through the handler's `onError`).
 */
export function toNodeListener(handler: StreamableHttpHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void serve(handler, req as AuthenticatedRequest, res);
  };
}

async function serve(handler: StreamableHttpHandler, req: AuthenticatedRequest, res: ServerResponse): Promise<void> {
  const body = req.method === 'POST' ? new NodeBody(req) : undefined;
  const request: HttpRequest = {
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: headerLookup(req),
    body: body?.read,
    rawHeaders: req.headers,
  };
  let reply: HttpReply;
  try {
    reply = await handler.handle(request, req.auth === undefined ? undefined : { authInfo: req.auth });
  } catch {
    reply = errorReply(500, ErrorCode.InternalError, 'Internal error');
  }
  if (body?.tooLarge) {
    res.shouldKeepAlive = false;
    discardRest(req);
  }
  writeReply(res, reply);
}

/** Options of {@link serveNode}. */
export interface ServeNodeOptions {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** Time allowed to receive a whole request, in ms (Node's `requestTimeout`). Default 30 000. */
  requestTimeoutMs?: number;
  /** Time allowed to receive the request headers, in ms (Node's `headersTimeout`). Default 10 000. */
  headersTimeoutMs?: number;
  /** Idle time of a kept-alive connection between requests, in ms. Default 5 000. */
  keepAliveTimeoutMs?: number;
}

/** A running Node server from {@link serveNode}. */
export interface NodeServerHandle {
  readonly server: Server;
  /** The bound port. */
  readonly port: number;
  /** The MCP endpoint's URL (`http://127.0.0.1:PORT/mcp`). */
  readonly url: string;
  /** Closes the handler's sessions, then every connection and the listening socket. */
  close(): Promise<void>;
}

/**
 * Serves `handler` on a new `node:http` server bound to `options.host` (default
 * `127.0.0.1`). Resolves once listening; rejects when the port cannot be bound. Timeouts on
 * receiving requests are set (defaults 10 s for headers, 30 s for the whole request); a
 * long SSE response is not limited by them.
 */
export async function serveNode(handler: StreamableHttpHandler, options: ServeNodeOptions = {}): Promise<NodeServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const server = createServer(
    { requestTimeout: Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout), headersTimeout },
    toNodeListener(handler),
  );
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    url: `http://${urlHost}:${port}${handler.endpoint}`,
    close: () =>
      (closing ??= (async () => {
        await handler.close();
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await done;
      })()),
  };
}
