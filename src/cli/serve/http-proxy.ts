/**
 * The HTTP front of `mcpkit dev --http`: the dev process owns the listening socket and
 * forwards every request to the current server generation (a child process listening on a
 * port of its own), streaming bodies both ways, so the URL never changes across reloads.
 *
 * Streamable HTTP sessions survive a reload: the proxy keeps each session's `initialize`
 * request; the first request of that session after a reload replays it to the new
 * generation (with `notifications/initialized`), and from then on rewrites the
 * `Mcp-Session-Id` header between the id the client knows and the new generation's id. What
 * does not survive: requests and SSE streams open at the old generation when it is retired
 * (they end; a client resumes its GET stream and gets the new generation), event ids for
 * `Last-Event-ID` resumption, `logging/setLevel`, subscriptions and whatever else the old
 * server kept in memory, and legacy HTTP+SSE (`/sse`) connections (they end and the client
 * connects again). Stateless 2026-07-28 requests need nothing: each stands alone.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { isObject } from '../../jsonrpc/values.js';
import { Method, Notification } from '../../protocol/methods.js';

/** One generation the proxy can forward to. */
export interface ProxyTarget {
  readonly id: number;
  readonly port: number;
}

/** Default for {@link DevHttpProxyOptions.maxInitializeBodyBytes}: 4 MiB, the handler's own default body limit. */
export const DEFAULT_MAX_INITIALIZE_BODY_BYTES = 4 * 1024 * 1024;

/** Options of {@link DevHttpProxy}. */
export interface DevHttpProxyOptions {
  /** Reports a problem (stderr). */
  log(message: string): void;
  /**
   * Largest body of a POST without a session id (a possible `initialize`) that the proxy
   * reads before forwarding, in bytes (default {@link DEFAULT_MAX_INITIALIZE_BODY_BYTES}).
   * A larger one is answered 413 without reaching the server.
   */
  maxInitializeBodyBytes?: number;
  /**
   * How long a request waits for a server generation when none is serving (while the first
   * one loads, or after the last one exited), in ms (default {@link DEFAULT_WAIT_FOR_SERVER_MS}).
   * Past it the request is answered 503 with `Retry-After: 1`.
   */
  waitForServerMs?: number;
  /**
   * Most sessions whose handshake is kept for carrying over (default
   * {@link DEFAULT_MAX_SESSIONS}). Past it the oldest is forgotten: after the next reload its
   * client gets 404 and starts a new session.
   */
  maxSessions?: number;
}

/** Default for {@link DevHttpProxyOptions.maxSessions}. */
export const DEFAULT_MAX_SESSIONS = 1000;

/** Default for {@link DevHttpProxyOptions.waitForServerMs}. */
export const DEFAULT_WAIT_FOR_SERVER_MS = 30_000;

interface SessionRecord {
  /** The client's `initialize` request. */
  init: Record<string, unknown>;
  /** The path it was posted to. */
  path: string;
  /** The generation the session lives in now, and its id there. */
  target: ProxyTarget;
  upstream: string;
  /** A replay in progress. */
  moving?: Promise<void> | undefined;
}

const REPLAY_ID = 'mcpkit-dev-replay';
const SESSION_HEADER = 'mcp-session-id';
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/** Forwards requests to the current generation, keeping sessions across generations. */
export class DevHttpProxy {
  readonly #options: DevHttpProxyOptions;
  #current: ProxyTarget | undefined;
  /** Client-visible session id → where it lives. */
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #inflight = new Map<ProxyTarget, number>();
  readonly #waiting = new Set<() => void>();

  constructor(options: DevHttpProxyOptions) {
    this.#options = options;
  }

  /** Requests from now on go to `target` (undefined: answered 503 until one is set). */
  setCurrent(target: ProxyTarget | undefined): void {
    this.#current = target;
    if (target === undefined) return;
    for (const wake of this.#waiting) wake();
    this.#waiting.clear();
  }

  /** The current generation, waiting up to the configured time for one. */
  async #target(): Promise<ProxyTarget | undefined> {
    if (this.#current !== undefined) return this.#current;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    this.#waiting.add(wake);
    const timer = setTimeout(wake, this.#options.waitForServerMs ?? DEFAULT_WAIT_FOR_SERVER_MS);
    await woken;
    clearTimeout(timer);
    this.#waiting.delete(wake);
    return this.#current;
  }

  /** Requests and streams still open at `target`. */
  inflight(target: ProxyTarget): number {
    return this.#inflight.get(target) ?? 0;
  }

  /** How many sessions the proxy knows. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The `node:http` request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.#handle(req, res).catch((err: Error) => {
      this.#options.log(`proxy: ${err.message}`);
      if (!res.headersSent) reply(res, 502, 'Bad Gateway: the server generation did not answer (mcpkit dev)');
      else res.destroy();
    });
  };

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = await this.#target();
    if (target === undefined) {
      res.setHeader('retry-after', '1');
      reply(res, 503, 'Service Unavailable: no server code is loaded yet (mcpkit dev); fix the module and save it');
      return;
    }
    const clientSid = typeof req.headers[SESSION_HEADER] === 'string' ? (req.headers[SESSION_HEADER] as string) : undefined;
    const record = clientSid !== undefined ? this.#sessions.get(clientSid) : undefined;
    if (record !== undefined && record.target !== target) await this.#move(record, target);
    const headers = forwardHeaders(req.headers);
    if (record !== undefined) headers[SESSION_HEADER] = record.upstream;
    let body: Buffer | undefined;
    let init: Record<string, unknown> | undefined;
    if (req.method === 'POST' && clientSid === undefined) {
      const max = this.#options.maxInitializeBodyBytes ?? DEFAULT_MAX_INITIALIZE_BODY_BYTES;
      body = await readBody(req, max);
      if (body === undefined) {
        reply(res, 413, `Payload Too Large: the request body exceeds ${max} bytes`);
        return;
      }
      init = initializeRequest(body);
      headers['content-length'] = String(body.length);
    }
    const via = record?.target ?? target;
    this.#inflight.set(via, this.inflight(via) + 1);
    let counted = true;
    const done = (): void => {
      if (!counted) return;
      counted = false;
      this.#inflight.set(via, this.inflight(via) - 1);
    };
    res.once('close', done);
    const upstream = httpRequest({ host: '127.0.0.1', port: via.port, method: req.method, path: req.url, headers });
    res.once('close', () => upstream.destroy());
    upstream.on('response', (up) => {
      const outHeaders = forwardHeaders(up.headers);
      const upstreamSid = up.headers[SESSION_HEADER];
      if (record !== undefined && typeof upstreamSid === 'string') outHeaders[SESSION_HEADER] = clientSid!;
      if (init !== undefined && typeof upstreamSid === 'string' && up.statusCode === 200) {
        this.#sessions.set(upstreamSid, { init, path: req.url ?? '/mcp', target: via, upstream: upstreamSid });
        if (this.#sessions.size > (this.#options.maxSessions ?? DEFAULT_MAX_SESSIONS)) this.#sessions.delete(this.#sessions.keys().next().value!);
      }
      if (req.method === 'DELETE' && clientSid !== undefined && (up.statusCode ?? 500) < 300) this.#sessions.delete(clientSid);
      res.writeHead(up.statusCode ?? 502, outHeaders);
      res.flushHeaders();
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstream.on('error', (err) => {
      done();
      if (!res.headersSent) reply(res, 502, 'Bad Gateway: the server generation went away (mcpkit dev); try again');
      else res.destroy();
      this.#options.log(`proxy: generation ${via.id}: ${err.message}`);
    });
    if (body !== undefined) upstream.end(body);
    else req.pipe(upstream);
  }

  /** Replays the session's handshake on `target` (once, however many requests wait for it). */
  #move(record: SessionRecord, target: ProxyTarget): Promise<void> {
    record.moving ??= (async () => {
      try {
        const base = `http://127.0.0.1:${target.port}${record.path}`;
        const accept = 'application/json, text/event-stream';
        const answer = await fetch(base, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify({ ...record.init, id: REPLAY_ID }),
        });
        const text = await answer.text();
        const sid = answer.headers.get(SESSION_HEADER);
        if (answer.status !== 200 || sid === null) throw new Error(`the new generation answered the replayed initialize with ${answer.status}`);
        const version = protocolVersionOf(text);
        const ack = await fetch(base, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept, [SESSION_HEADER]: sid, ...(version ? { 'mcp-protocol-version': version } : {}) },
          body: JSON.stringify({ jsonrpc: '2.0', method: Notification.Initialized }),
        });
        await ack.arrayBuffer();
        record.target = target;
        record.upstream = sid;
      } catch (err) {
        this.#options.log(`could not carry a session over to generation ${target.id}: ${(err as Error).message}; its client gets 404 and starts a new one`);
        record.target = target;
        record.upstream = `${record.upstream}-ended`;
      } finally {
        record.moving = undefined;
      }
    })();
    return record.moving;
  }
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`${message}\n`);
}

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/** The whole body, or undefined once it passes `max` bytes (the rest is discarded). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) over = true;
      else parts.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(parts)));
    req.on('error', reject);
  });
}

/** The body as an `initialize` request, or undefined. */
function initializeRequest(body: Buffer): Record<string, unknown> | undefined {
  try {
    const msg: unknown = JSON.parse(body.toString('utf8'));
    if (isObject(msg) && msg.method === Method.Initialize && 'id' in msg) return msg;
  } catch {
    // not JSON: the server answers it
  }
  return undefined;
}

/** `result.protocolVersion` of an initialize response sent as JSON or as one SSE event. */
function protocolVersionOf(text: string): string | undefined {
  const candidates = [
    text,
    ...text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5)),
  ];
  for (const candidate of candidates) {
    try {
      const version = (JSON.parse(candidate) as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof version === 'string') return version;
    } catch {
      // next
    }
  }
  return undefined;
}
