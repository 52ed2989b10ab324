/**
 * Shared set-up of the transcript tests: wires a server (by default the demo server) to a
 * raw JSON-RPC peer or to an mcpkit {@link Client} over an in-memory pair, records every
 * message our side emits with {@link recordTransport}, and checks at the end of each test
 * that all of them validate against the official schema of the negotiated revision.
 *
 * Design note: a test body gets a {@link Harness}; everything it connects through the
 * harness is recorded, and {@link harnessTest} asserts "no schema violations" and closes
 * every connection after the body returns. A test that deliberately provokes an answer
 * the recorder cannot pair with a request (an error to a message that was not a valid
 * request) declares it with {@link Harness.allowViolation}; each allowance must then
 * match at least one reported line, so an allowance cannot silently outlive its reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, type ClientOptions } from '../../src/client/client.js';
import { createDemoServer, type DemoOptions } from '../../src/demo/server.js';
import type { JSONObject, RequestId } from '../../src/jsonrpc/types.js';
import type { ServerConnection } from '../../src/server/connection.js';
import type { McpServer } from '../../src/server/server.js';
import { type RecordingTransport, recordTransport } from '../../src/testing/recording-transport.js';
import { InMemoryTransport } from '../../src/transport/memory.js';
import { match, runTranscript, type TranscriptResult, type TranscriptStep } from './transcript.js';

/** The newest stateful revision, proposed by default. */
export const LATEST = '2025-11-25';

/** A JSON-RPC request as the client writes it. */
export function request(id: RequestId, method: string, params?: JSONObject): JSONObject {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** A JSON-RPC notification. */
export function notification(method: string, params?: JSONObject): JSONObject {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** Expectation (or, to send, a message) of a successful response; `result` is a partial pattern. */
export function result(id: RequestId, result: unknown = {}): JSONObject {
  return { jsonrpc: '2.0', id, result };
}

/** Expectation of an error response with `code` and a non-empty message; `more` adds partial expectations on the error object. */
export function error(id: RequestId | null, code: number, more: JSONObject = {}): JSONObject {
  return { jsonrpc: '2.0', id, error: { code, message: isText, ...more } };
}

/** Predicate: a non-empty string. */
export const isText = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

/** Predicate factory: a string matching `re`. */
export const matches =
  (re: RegExp) =>
  (v: unknown): boolean =>
    typeof v === 'string' && re.test(v);

/** Predicate factory: an array whose elements include ones matching each pattern (order free). */
export const includes =
  (...patterns: Array<(v: any) => boolean>) =>
  (v: unknown): boolean =>
    Array.isArray(v) && patterns.every((p) => v.some((x) => p(x)));

/** Predicate factory: an object whose `name` is `name`. */
export const named =
  (name: string) =>
  (v: any): boolean =>
    typeof v === 'object' && v !== null && v.name === name;

/** The `initialize` params of a raw client. */
export function initializeParams(protocolVersion: string = LATEST, capabilities: JSONObject = {}): JSONObject {
  return { protocolVersion, capabilities, clientInfo: { name: 'transcript-client', version: '1.0.0' } };
}

/**
 * The handshake as transcript steps: `initialize` (id 0) answered with `protocolVersion`
 * echoed, then `notifications/initialized`.
 */
export function handshake(protocolVersion: string = LATEST, capabilities: JSONObject = {}, expectVersion: string = protocolVersion): TranscriptStep[] {
  return [
    { send: request(0, 'initialize', initializeParams(protocolVersion, capabilities)) },
    { expect: result(0, { protocolVersion: expectVersion, capabilities: {}, serverInfo: { name: isText, version: isText } }) },
    { send: notification('notifications/initialized') },
  ];
}

/** A raw JSON-RPC client connected to a server through the harness. */
export interface RawConnection {
  readonly server: McpServer;
  /** The server's view of this connection. */
  readonly session: ServerConnection;
  /** The recorder around the server's end (what the server emitted). */
  readonly wire: RecordingTransport;
  /** The client's end, driven by {@link RawConnection.run}. */
  readonly end: InMemoryTransport;
  /** Plays `steps` as the client (C→S sends, S→C expectations). */
  run(steps: readonly TranscriptStep[], timeoutMs?: number): Promise<TranscriptResult>;
  /** Plays the handshake of `revision`. */
  init(revision?: string, capabilities?: JSONObject): Promise<void>;
}

/** An mcpkit client connected to a server through the harness. */
export interface ClientConnection {
  readonly server: McpServer;
  readonly session: ServerConnection;
  readonly client: Client;
  /** Recorder around the server's end. */
  readonly serverWire: RecordingTransport;
  /** Recorder around the client's end. */
  readonly clientWire: RecordingTransport;
}

/** Collects the connections of one test; see the module note. */
export class Harness {
  readonly #wires: Array<{ label: string; wire: RecordingTransport }> = [];
  readonly #allowed: RegExp[] = [];
  readonly #closers: Array<() => Promise<void>> = [];

  /** The demo server with `options` (not connected). */
  demo(options?: DemoOptions): McpServer {
    const server = createDemoServer(options);
    this.#closers.push(() => server.close());
    return server;
  }

  /** Connects a raw client to `server` (default: a new demo server). */
  async raw(server: McpServer = this.demo()): Promise<RawConnection> {
    const [end, serverEnd] = InMemoryTransport.createPair();
    let session: ServerConnection | undefined;
    const wire = recordTransport(serverEnd, { side: 'server', revision: () => session?.protocolVersion });
    session = await server.connect(wire);
    this.#wires.push({ label: `server wire ${this.#wires.length + 1}`, wire });
    this.#closers.push(() => end.close());
    const run = (steps: readonly TranscriptStep[], timeoutMs?: number) =>
      runTranscript(end, steps, timeoutMs === undefined ? { side: 'client' } : { side: 'client', timeoutMs });
    return {
      server,
      session,
      wire,
      end,
      run,
      init: async (revision = LATEST, capabilities = {}) => {
        await run(handshake(revision, capabilities));
      },
    };
  }

  /**
   * Connects a new mcpkit client built from `options` to `server` and completes the
   * handshake; `prepare` runs on the client before it connects (to add middleware).
   */
  async client(server: McpServer, options: ClientOptions = {}, prepare?: (client: Client) => void): Promise<ClientConnection> {
    const [clientEnd, serverEnd] = InMemoryTransport.createPair();
    let session: ServerConnection | undefined;
    const serverWire = recordTransport(serverEnd, { side: 'server', revision: () => session?.protocolVersion });
    session = await server.connect(serverWire);
    const client = new Client({ name: 'harness-client', version: '1.0.0' }, options);
    const clientWire = recordTransport(clientEnd, { side: 'client', revision: () => client.protocolVersion });
    this.#wires.push({ label: `server wire ${this.#wires.length + 1}`, wire: serverWire });
    this.#wires.push({ label: `client wire ${this.#wires.length + 1}`, wire: clientWire });
    this.#closers.push(() => client.close());
    prepare?.(client);
    await client.connect(clientWire);
    return { server, session, client, serverWire, clientWire };
  }

  /** Declares that a violation line matching `pattern` is expected in this test (see the module note). */
  allowViolation(pattern: RegExp): void {
    this.#allowed.push(pattern);
  }

  /**
   * Throws an AssertionError listing every schema violation of every recorded wire that no
   * allowance covers, or naming an allowance that matched nothing.
   */
  assertClean(): void {
    const unexpected: string[] = [];
    const used = new Set<RegExp>();
    for (const { label, wire } of this.#wires) {
      const found = wire.violations();
      const stray = found.filter((line) => {
        const hit = this.#allowed.find((re) => re.test(line));
        if (hit) used.add(hit);
        return hit === undefined;
      });
      if (stray.length > 0) unexpected.push(`${label}:\n  ${stray.join('\n  ')}\n--- transcript ---\n${wire.formatTranscript({ maxLineLength: 400 })}`);
    }
    assert.equal(unexpected.length, 0, `schema violations in emitted messages:\n${unexpected.join('\n')}`);
    const unused = this.#allowed.filter((re) => !used.has(re));
    assert.equal(unused.length, 0, `allowed violation(s) never reported: ${unused.join(', ')}`);
  }

  /** Closes everything the harness connected. */
  async close(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) await close().catch(() => {});
  }
}

/**
 * Declares a `node:test` test whose body gets a fresh {@link Harness}; after the body
 * returns, every recorded wire must be free of schema violations. Connections are closed
 * whether the body passed or not.
 */
export function harnessTest(name: string, body: (h: Harness) => Promise<void>): void {
  test(name, async () => {
    const h = new Harness();
    try {
      await body(h);
      h.assertClean();
    } finally {
      await h.close();
    }
  });
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every few ms until it holds; rejects after `timeoutMs`. */
export async function eventually(condition: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new assert.AssertionError({ message: `timed out waiting for ${what}` });
    await delay(5);
  }
}

/**
 * Predicate factory: an array of exactly `expectations.length` elements, each matched by
 * a different expectation (partial patterns as in `runTranscript`), in any order.
 */
export const anyOrder =
  (...expectations: unknown[]) =>
  (v: unknown): boolean => {
    if (!Array.isArray(v) || v.length !== expectations.length) return false;
    const free = [...v];
    for (const e of expectations) {
      const i = free.findIndex((x) => match(e, x) === undefined);
      if (i < 0) return false;
      free.splice(i, 1);
    }
    return true;
  };
