/** Asking a server over Streamable HTTP as one of several bearer-token callers, in either era. */
import type { HttpAuthorizer } from '../../../src/http/server/types.js';
import type { JSONObject } from '../../../src/jsonrpc/types.js';
import type { McpServer } from '../../../src/server/server.js';
import { meta2026, V2026 } from '../raw-server-client.js';
import { makeHandler, post, replyMessage, rpc } from './server-harness.js';

/**
 * Asks `server` (behind `authorize`) as caller `who` (sent as `Bearer <who>`) in `era`:
 * 2026-07-28 requests carry the era's `_meta` and `Mcp-Method` / `Mcp-Name` headers; in 2025
 * each caller gets one session, opened on its first request.
 */
export function bearerAsker(server: McpServer, era: '2025' | typeof V2026, authorize: HttpAuthorizer) {
  const handler = makeHandler({ server, authorize });
  const sessions = new Map<string, string>();
  let id = 1;
  const ask = async (who: string, method: string, params: JSONObject = {}): Promise<JSONObject> => {
    const headers: Record<string, string> = { authorization: `Bearer ${who}` };
    if (era === V2026) {
      headers['mcp-method'] = method;
      if (typeof params.name === 'string') headers['mcp-name'] = params.name;
      if (typeof params.uri === 'string') headers['mcp-name'] = params.uri;
      return replyMessage(await post(handler, rpc(id++, method, { ...params, _meta: meta2026(who) }), { protocolVersion: V2026, headers }));
    }
    let sessionId = sessions.get(who);
    if (sessionId === undefined) {
      const init = await post(handler, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: who, version: '1' } }), {
        headers,
      });
      sessionId = init.headers.get('mcp-session-id')!;
      await init.body?.cancel();
      sessions.set(who, sessionId);
    }
    return replyMessage(await post(handler, rpc(id++, method, params), { sessionId, protocolVersion: '2025-11-25', headers }));
  };
  return { ask, close: () => handler.close() };
}
