/**
 * A raw JSON-RPC peer for the fault and abuse suite: it talks to an McpServer over an
 * in-memory pair, through the recording transport (every message the server sends is checked
 * against the official schema of its revision). Stateful revisions are initialized first;
 * the 2026-07-28 era puts its per-request `_meta` on every request.
 */
import assert from 'node:assert/strict';
import type { JSONObject, RequestId } from '../../src/jsonrpc/types.js';
import type { McpServer } from '../../src/server/server.js';
import { type RecordingTransport, recordTransport } from '../../src/testing/recording-transport.js';
import { InMemoryTransport } from '../../src/transport/memory.js';

/** The stateless era's revision. */
export const STATELESS = '2026-07-28';

/** The extension id of stateless-era tasks. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** One connected raw peer. */
export interface RawPeer {
  /** Undefined when the peer was connected with `record: false`. */
  readonly recorder: RecordingTransport | undefined;
  /** Every message the server sent, in order. */
  readonly received: JSONObject[];
  /** Sends a request and resolves with the whole response message. */
  request(method: string, params?: JSONObject): Promise<JSONObject>;
  /** The result of a request; rejects with `{code, message, data}` of an error response. */
  call(method: string, params?: JSONObject): Promise<JSONObject>;
  /** Closes the peer's end. */
  close(): Promise<void>;
}

/** Options of {@link connectPeer}. */
export interface PeerOptions {
  /** The revision to speak. Default 2025-11-25. */
  revision?: string;
  /** Client capabilities (per request in the stateless era, in `initialize` before). */
  capabilities?: JSONObject;
  /** Client name (distinguishes peers in test output). */
  name?: string;
  /**
   * Record (and schema-check) the server's messages. Default true; turn off for memory
   * measurements, since the recorder keeps every message.
   */
  record?: boolean;
}

let nextId = 1;

/** The error object of a failed {@link RawPeer.call}. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/** Connects a raw peer to `server` and, for stateful revisions, initializes it. */
export async function connectPeer(server: McpServer, options: PeerOptions = {}): Promise<RawPeer> {
  const revision = options.revision ?? '2025-11-25';
  const capabilities = options.capabilities ?? {};
  const clientInfo = { name: options.name ?? 'abuse-peer', version: '1.0.0' };
  const [serverEnd, peer] = InMemoryTransport.createPair();
  const recorder =
    options.record === false ? undefined : recordTransport(serverEnd, { side: 'server', revision: () => (revision === STATELESS ? undefined : revision) });
  await server.connect(recorder ?? serverEnd);
  const received: JSONObject[] = [];
  const waiting = new Map<RequestId, (m: JSONObject) => void>();
  peer.start({
    message: (data) => {
      const m = JSON.parse(data as string) as JSONObject;
      received.push(m);
      if (m.method === undefined) waiting.get(m.id as RequestId)?.(m);
    },
    error: () => {},
    closed: () => {},
  });
  const request = (method: string, params: JSONObject = {}) =>
    new Promise<JSONObject>((resolve) => {
      const id = nextId++;
      waiting.set(id, (m) => {
        waiting.delete(id);
        resolve(m);
      });
      const meta =
        revision === STATELESS
          ? {
              'io.modelcontextprotocol/protocolVersion': STATELESS,
              'io.modelcontextprotocol/clientCapabilities': capabilities,
              'io.modelcontextprotocol/clientInfo': clientInfo,
              ...(params._meta as JSONObject | undefined),
            }
          : (params._meta as JSONObject | undefined);
      const sent = meta === undefined ? params : { ...params, _meta: meta };
      void peer.send({ jsonrpc: '2.0', id, method, params: sent } as never);
    });
  const call = async (method: string, params?: JSONObject) => {
    const m = await request(method, params);
    if (m.error !== undefined) throw m.error as unknown as WireError;
    return m.result as JSONObject;
  };
  if (revision !== STATELESS) {
    await call('initialize', { protocolVersion: revision, capabilities, clientInfo });
    await peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as never);
  }
  return { recorder, received, request, call, close: () => peer.close() };
}

/** The error of a response message (fails the test when it is a result). */
export function errorOf(response: JSONObject): WireError {
  if (response.error === undefined) throw new Error(`expected an error response, got ${JSON.stringify(response).slice(0, 300)}`);
  return response.error as unknown as WireError;
}

/**
 * Fails on any schema violation of the server's messages except those of the 2026-07-28
 * tasks extension's own methods, which the core schema does not define.
 */
export function assertCoreSchema(peer: RawPeer): void {
  const found = peer.recorder!.violations().filter((v) => !/\[2026-07-28\].*"tasks\/(get|update|cancel)"/.test(v));
  assert.deepEqual(found, []);
}
