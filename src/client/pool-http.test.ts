/**
 * The pool over Streamable HTTP against mcpkit's HTTP server: an expired session (the server
 * forgot it: HTTP 404) is not a lost connection — the pool's `Client` starts a new session
 * itself (`reinitialize`) and the pool neither reconnects (no new transport from the
 * factory) nor leaves `ready`; a server that stops answering is reconnected once it is back.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StreamableHttpClientTransport } from '../http/client/streamable.js';
import { serveNode } from '../http/node.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import { McpServer } from '../server/server.js';
import { ClientPool, type PoolServerStatus } from './pool.js';

describe('ClientPool over HTTP', () => {
  it('lets the client start a new session after a 404, without reconnecting', async () => {
    const server = new McpServer({ name: 'renew', version: '1.0.0' });
    let count = 0;
    server.registerTool('count', {}, () => String(++count));
    const handler = createStreamableHttpHandler({ server, onError: () => {} });
    const listening = await serveNode(handler, { port: 0 });
    const url = listening.url.toString();
    let made = 0;
    const pool = new ClientPool();
    const states: PoolServerStatus['state'][] = [];
    pool.on('status', (s) => states.push(s.state));
    try {
      await pool.add('renew', {
        transport: () => {
          made++;
          return new StreamableHttpClientTransport({ url, openGetStream: false });
        },
      });
      await pool.connect();
      const client = await pool.client('renew');
      const session = client.endpoint?.session.transportSessionId;
      assert.ok(session);
      const deleted = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
      assert.equal(deleted.status, 200);
      const result = await pool.callTool('renew.count');
      assert.deepEqual(result.content, [{ type: 'text', text: '1' }]);
      assert.equal(made, 1, 'no new transport: the client renewed the session');
      assert.deepEqual(states, ['connecting', 'ready'], 'the pool never saw the server go down');
      assert.notEqual((await pool.client('renew')).endpoint?.session.transportSessionId, session);
    } finally {
      await pool.close();
      await listening.close();
    }
  });
});
