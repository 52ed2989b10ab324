/**
 * A hostile MCP server for the client side of the abuse suite: a raw JSON-RPC peer over an
 * in-memory pair that answers the handshake, `tools/list` with the tools it is given, and
 * `tools/call` with whatever `call` returns. Nothing it sends is checked: it plays a server
 * that lies.
 */
import type { JSONObject } from '../../src/jsonrpc/types.js';
import { InMemoryTransport } from '../../src/transport/memory.js';

/** What the hostile server does. */
export interface HostileServer {
  tools: JSONObject[];
  /** The result of `tools/call` for `params`; a string is sent as the whole response text (`$ID` replaced by the request's id). */
  call(params: JSONObject): JSONObject | string;
}

/** Starts the hostile server; returns the client's end of the connection. */
export function hostileServer(behaviour: HostileServer): InMemoryTransport {
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  serverEnd.start({
    message: (data) => {
      const m = (typeof data === 'string' ? JSON.parse(data) : data) as JSONObject;
      if (m.id === undefined || m.method === undefined) return;
      const answer = (result: JSONObject): void => void serverEnd.send({ jsonrpc: '2.0', id: m.id, result } as never);
      switch (m.method) {
        case 'initialize':
          return answer({
            protocolVersion: (m.params as JSONObject).protocolVersion as string,
            capabilities: { tools: {} },
            serverInfo: { name: 'hostile', version: '1.0.0' },
          });
        case 'tools/list':
          return answer({ tools: behaviour.tools });
        case 'tools/call': {
          const result = behaviour.call(m.params as JSONObject);
          if (typeof result === 'string') return void serverEnd.send(result.replace('$ID', JSON.stringify(m.id)));
          return answer(result);
        }
        default:
          return answer({});
      }
    },
    error: () => {},
    closed: () => {},
  });
  return clientEnd;
}
