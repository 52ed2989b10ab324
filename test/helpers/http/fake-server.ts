/**
 * Test support for the HTTP client transports: in-process fake servers written as `fetch`
 * functions that answer with hand-built `Response`s (JSON, status-only, or SSE streams the
 * test writes to event by event), a receiver that records what a transport delivers, and a
 * bounded wait. Not a test file itself; not shipped (matches the package's `*.test.*` exclusion).
 */
import { encodeSseEvent, type SseEventInit } from '../../../src/framing/sse.js';
import type { TransportReceiver } from '../../../src/transport/types.js';

/** One request the fake server received. */
export interface Recorded {
  method: string;
  url: string;
  headers: Headers;
  body: string;
  signal: AbortSignal | undefined;
  /** Milliseconds since the fake server was created. */
  at: number;
}

/** Answers one recorded request. */
export type Handler = (request: Recorded) => Response | Promise<Response>;

const encoder = new TextEncoder();

/** An SSE response the test writes to; `cancelled` settles when the client stops reading. */
export class SseWriter {
  readonly response: Response;
  readonly cancelled: Promise<void>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #done = false;

  constructor(init: { status?: number; headers?: Record<string, string> } = {}) {
    let onCancel!: () => void;
    this.cancelled = new Promise<void>((resolve) => (onCancel = resolve));
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#done = true;
        onCancel();
      },
    });
    this.response = new Response(stream, { status: init.status ?? 200, headers: { 'content-type': 'text/event-stream', ...init.headers } });
  }

  /** True once closed by either side. */
  get done(): boolean {
    return this.#done;
  }

  /** Writes one event. */
  event(init: SseEventInit): this {
    return this.raw(encodeSseEvent(init));
  }

  /** Writes a JSON-RPC message as a `message` event, with an optional event id. */
  send(message: unknown, id?: string): this {
    return this.event(id === undefined ? { data: JSON.stringify(message) } : { id, data: JSON.stringify(message) });
  }

  /** Writes raw text. */
  raw(text: string): this {
    if (!this.#done) this.#controller.enqueue(encoder.encode(text));
    return this;
  }

  /** Ends the stream normally (a server-side disconnect). */
  close(): void {
    if (this.#done) return;
    this.#done = true;
    this.#controller.close();
  }

  /** Breaks the stream (a network failure). */
  fail(): void {
    if (this.#done) return;
    this.#done = true;
    this.#controller.error(new TypeError('network error'));
  }
}

/** A JSON response. */
export function json(value: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(value), { status: init.status ?? 200, headers: { 'content-type': 'application/json', ...init.headers } });
}

/** A response with a status and an optional plain-text body. */
export function status(code: number, body?: string, headers?: Record<string, string>): Response {
  return new Response(code === 204 || code === 205 || code === 304 ? null : (body ?? null), { status: code, headers });
}

/** A fake server: records every request and answers through `handler`. */
export class FakeServer {
  readonly requests: Recorded[] = [];
  handler: Handler;
  readonly fetch: typeof fetch;
  readonly #t0 = Date.now();

  constructor(handler: Handler) {
    this.handler = handler;
    this.fetch = ((input: string | URL | Request, init?: RequestInit) => this.#fetch(input, init)) as typeof fetch;
  }

  async #fetch(input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
    const signal = init?.signal ?? undefined;
    const body = init?.body;
    const recorded: Recorded = {
      method: init?.method ?? 'GET',
      url: input instanceof Request ? input.url : String(input),
      headers: new Headers(init?.headers),
      body: typeof body === 'string' ? body : '',
      signal,
      at: Date.now() - this.#t0,
    };
    this.requests.push(recorded);
    if (signal?.aborted) throw abortError(signal);
    if (!signal) return this.handler(recorded);
    let onAbort!: () => void;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([Promise.resolve(this.handler(recorded)), aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Requests with this HTTP method. */
  only(method: string): Recorded[] {
    return this.requests.filter((r) => r.method === method);
  }

  /** Waits (bounded) for a request matching `predicate`. */
  async waitForRequest(predicate: (r: Recorded) => boolean, what = 'request', timeoutMs = 20_000): Promise<Recorded> {
    await waitFor(() => this.requests.some(predicate), what, timeoutMs);
    return this.requests.find(predicate)!;
  }
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('The operation was aborted');
  err.name = 'AbortError';
  return err;
}

/** Polls `condition` every few milliseconds; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Records what a transport delivers. Messages are stored parsed. */
export class Collector implements TransportReceiver {
  readonly messages: unknown[] = [];
  readonly errors: Error[] = [];
  closedCount = 0;
  closedReason: Error | undefined;

  message(data: unknown): void {
    this.messages.push(typeof data === 'string' ? JSON.parse(data) : data);
  }
  error(error: Error): void {
    this.errors.push(error);
  }
  closed(reason?: Error): void {
    this.closedCount++;
    this.closedReason = reason;
  }
}

/** The parsed JSON body of a recorded request. */
export function bodyOf(r: Recorded): { id?: unknown; method?: string; params?: Record<string, unknown> } & Record<string, unknown> {
  return JSON.parse(r.body);
}
