/**
 * Test helpers of the Streamable HTTP server tests: hand-built `Request`s against the
 * in-process `fetch` handler, and an incremental SSE reader with timeouts. Not part of the
 * package.
 */
import assert from 'node:assert/strict';
import { type SseEvent, SseParser } from '../../../src/framing/sse.js';
import { createStreamableHttpHandler, type StreamableHttpHandler, type StreamableHttpOptions } from '../../../src/http/server/handler.js';
import type { JSONObject, RequestId } from '../../../src/jsonrpc/types.js';
import { McpServer } from '../../../src/server/server.js';

/** Base URL of in-process requests (its host is a loopback name, as the guard wants). */
export const BASE = 'http://localhost:3000';
export const LATEST = '2025-11-25';
export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** A JSON-RPC request object. */
export function rpc(id: RequestId, method: string, params?: JSONObject): JSONObject {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** The JSON-RPC message of a reply: its JSON body, or the data of its last SSE event. */
export async function replyMessage(res: Response): Promise<JSONObject> {
  const text = await res.text();
  if (text.startsWith('{')) return JSON.parse(text) as JSONObject;
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));
  return JSON.parse(data.at(-1)!) as JSONObject;
}

/** A JSON-RPC notification object. */
export function note(method: string, params?: JSONObject): JSONObject {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** The initialize request of a client speaking `revision`. */
export function initRequest(revision = LATEST, id: RequestId = 0): JSONObject {
  return rpc(id, 'initialize', { protocolVersion: revision, capabilities: { sampling: {} }, clientInfo: { name: 'http-test', version: '1.0.0' } });
}

/** A small server with a few tools for transport tests. */
export function smallServer(): McpServer {
  const server = new McpServer({ name: 'http-test-server', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args: { text?: string }) => ({
      content: [{ type: 'text', text: args.text ?? '' }],
    }),
  );
  server.registerTool(
    'wait',
    {
      description: 'waits ms (cancellable), logging before and after',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
    },
    async (args: { ms?: number }, ctx) => {
      await ctx.log('info', 'waiting');
      const signal = ctx.signal;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, args.ms ?? 50);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
      await ctx.log('info', 'waited');
      return { content: [{ type: 'text', text: `waited ${args.ms ?? 50}` }] };
    },
  );
  server.registerTool('ask', { description: 'asks the client to sample', inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    const r = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    return { content: [{ type: 'text', text: `model ${r.model}` }] };
  });
  return server;
}

/** A handler over `server` (default: {@link smallServer}). */
export function makeHandler(options: Partial<StreamableHttpOptions> = {}): StreamableHttpHandler {
  return createStreamableHttpHandler({ server: options.server ?? smallServer(), ...options });
}

export interface PostOptions {
  sessionId?: string;
  protocolVersion?: string;
  accept?: string | null;
  contentType?: string | null;
  headers?: Record<string, string>;
  path?: string;
}

/** POSTs `body` (an object is serialized) to the handler. */
export function post(handler: StreamableHttpHandler, body: unknown, options: PostOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.accept !== null) headers.accept = options.accept ?? ACCEPT_BOTH;
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId;
  if (options.protocolVersion !== undefined) headers['mcp-protocol-version'] = options.protocolVersion;
  Object.assign(headers, options.headers);
  return handler.fetch(new Request(BASE + (options.path ?? '/mcp'), { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) }));
}

/** GETs the endpoint (an SSE stream) with the session. */
export function get(handler: StreamableHttpHandler, sessionId: string | undefined, headers: Record<string, string> = {}, path = '/mcp'): Promise<Response> {
  const h: Record<string, string> = { accept: 'text/event-stream', ...headers };
  if (sessionId !== undefined) h['mcp-session-id'] = sessionId;
  return handler.fetch(new Request(BASE + path, { method: 'GET', headers: h }));
}

/** DELETEs the session. */
export function del(handler: StreamableHttpHandler, sessionId: string | undefined, headers: Record<string, string> = {}): Promise<Response> {
  const h: Record<string, string> = { ...headers };
  if (sessionId !== undefined) h['mcp-session-id'] = sessionId;
  return handler.fetch(new Request(BASE + '/mcp', { method: 'DELETE', headers: h }));
}

/** Initializes a session (initialize + initialized) and returns its id. */
export async function openSession(handler: StreamableHttpHandler, revision = LATEST): Promise<string> {
  const res = await post(handler, initRequest(revision));
  assert.equal(res.status, 200);
  const body = (await res.json()) as { result?: { protocolVersion?: string } };
  assert.equal(body.result?.protocolVersion, revision);
  const sessionId = res.headers.get('mcp-session-id');
  assert.ok(sessionId);
  const ack = await post(handler, note('notifications/initialized'), { sessionId, protocolVersion: revision });
  assert.equal(ack.status, 202);
  return sessionId;
}

/** The JSON-RPC error code of an error reply's body. */
export async function errorCode(res: Response): Promise<number | undefined> {
  const body = (await res.json()) as { error?: { code?: number } };
  return body.error?.code;
}

/** One parsed SSE event with the `retry` values seen before it. */
export interface ReadEvent extends SseEvent {
  retry: number | undefined;
}

/** Reads an SSE response incrementally, with timeouts. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #parser: SseParser;
  readonly #queue: ReadEvent[] = [];
  #retry: number | undefined;
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  ended = false;

  constructor(response: Response) {
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    this.#reader = response.body!.getReader();
    this.#parser = new SseParser({
      event: (e) => {
        this.#queue.push({ ...e, retry: this.#retry });
        this.#retry = undefined;
      },
      retry: (ms) => {
        this.#retry = ms;
      },
    });
  }

  /** The next event; rejects on timeout or when the stream ends first. */
  async next(timeoutMs = 20_000): Promise<ReadEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length === 0) {
      if (this.ended) throw new Error('SSE stream ended');
      const chunk = await this.#read(deadline - Date.now());
      if (chunk === undefined) throw new Error(`no SSE event within ${timeoutMs} ms`);
    }
    return this.#queue.shift()!;
  }

  /** Every remaining event until the stream ends; rejects on timeout. */
  async rest(timeoutMs = 20_000): Promise<ReadEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const chunk = await this.#read(deadline - Date.now());
      if (chunk === undefined) throw new Error(`SSE stream did not end within ${timeoutMs} ms`);
    }
    return this.#queue.splice(0);
  }

  /** The messages (parsed `data`) of every remaining event with data. */
  async restMessages(timeoutMs = 20_000): Promise<any[]> {
    return (await this.rest(timeoutMs)).filter((e) => e.data !== '').map((e) => JSON.parse(e.data));
  }

  /** Cancels the stream (the client goes away). */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  /** Reads one chunk; undefined on timeout; marks `ended`. */
  async #read(remainingMs: number): Promise<true | undefined> {
    if (remainingMs <= 0) return undefined;
    this.#pending ??= this.#reader.read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), remainingMs);
    });
    const result = await Promise.race([this.#pending, timeout]);
    clearTimeout(timer);
    if (result === undefined) return undefined;
    this.#pending = undefined;
    if (result.done) {
      this.ended = true;
      this.#parser.end();
    } else this.#parser.push(result.value);
    return true;
  }
}

/** Waits until `predicate` holds, polling; fails after `timeoutMs`. */
export async function eventually(predicate: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
