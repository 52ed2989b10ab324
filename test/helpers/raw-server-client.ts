/**
 * A raw JSON-RPC client of an `McpServer` over an in-memory pair: sends exactly what a test
 * writes (so `_meta`, ids and eras are the test's), sees every message the server sends,
 * and answers the server's requests with `answer`.
 */
import type { JSONObject } from '../../src/jsonrpc/types.js';
import type { ServerConnection } from '../../src/server/connection.js';
import type { McpServer } from '../../src/server/server.js';
import { InMemoryTransport } from '../../src/transport/memory.js';

export const V2026 = '2026-07-28';

/** `_meta` of a 2026-07-28 request from client `name`. */
export const meta2026 = (name = 'raw'): JSONObject => ({
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name, version: '1' },
});

export interface RawClient {
  connection: ServerConnection;
  /** Every message the server sent, in order. */
  received: JSONObject[];
  /** Sends a request; resolves with its whole response (result or error). */
  request(method: string, params?: JSONObject): Promise<JSONObject>;
  notify(method: string, params?: JSONObject): Promise<void>;
}

/** Connects a raw client; with `initialize` (default) it runs the 2025-11-25 handshake as client `name`. */
export async function rawClient(
  server: McpServer,
  options: { initialize?: boolean; name?: string; capabilities?: JSONObject; answer?: (request: JSONObject) => unknown } = {},
): Promise<RawClient> {
  const [serverEnd, peer] = InMemoryTransport.createPair();
  const connection = await server.connect(serverEnd);
  const waiting = new Map<unknown, (m: JSONObject) => void>();
  const received: JSONObject[] = [];
  await peer.start({
    message: (data) => {
      const m = (typeof data === 'string' ? JSON.parse(data) : data) as JSONObject;
      received.push(m);
      if (m.method === undefined) waiting.get(m.id)?.(m);
      else if (m.id !== undefined) void peer.send({ jsonrpc: '2.0', id: m.id, result: (options.answer?.(m) ?? {}) as JSONObject } as never);
    },
    error: () => {},
    closed: () => {},
  });
  let next = 1;
  const request = (method: string, params?: JSONObject) =>
    new Promise<JSONObject>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      void peer.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) } as never);
    });
  const notify = (method: string, params?: JSONObject) => peer.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) } as never);
  if (options.initialize !== false) {
    await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: options.capabilities ?? {},
      clientInfo: { name: options.name ?? 'raw', version: '1' },
    });
    await notify('notifications/initialized');
    await request('ping');
  }
  return { connection, received, request, notify };
}

/** The text of a `tools/call` response's first content block. */
export const textOf = (response: JSONObject): string => ((response.result as JSONObject).content as JSONObject[])[0]!.text as string;
