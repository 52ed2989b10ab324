/**
 * 2026-07-28 requests over Streamable HTTP are served each by itself (2026-07-28 › Basic ›
 * Overview: no session; every request carries what it needs in `_meta`): no connection is
 * shared between clients, so per-request state is per request and what is keyed by the
 * principal (`rateLimit`) is per principal — in this era and, for the same middleware, in
 * the 2025 era's sessions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeHandler, post, replyMessage, rpc } from '../../../../test/helpers/http/server-harness.js';
import type { JSONObject, RequestId } from '../../../jsonrpc/types.js';
import type { ServerRequestContext } from '../../../server/context.js';
import { RATE_LIMITED_CODE, rateLimit } from '../../../server/middleware.js';
import { McpServer } from '../../../server/server.js';
import type { StreamableHttpHandler } from '../handler.js';
import type { HttpAuthorizer, HttpRequest } from '../types.js';

const V = '2026-07-28';
const META: JSONObject = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };

/** Bearer tokens `alice` and `bob` stand for those principals (the shape of mcpkit/auth's AuthInfo). */
const authorizer: HttpAuthorizer = {
  async authenticate(req: HttpRequest) {
    const who = (req.headers('authorization') ?? '').replace(/^Bearer /, '');
    if (who !== 'alice' && who !== 'bob') return { reply: { status: 401, headers: {}, body: '' } };
    return { authInfo: { issuer: 'https://as.example', subject: who, clientId: `${who}-app`, scopes: [], audience: [], expiresAt: undefined, token: who } };
  },
  sessionOwner: (info) => (info as { subject?: string }).subject,
};

function call(handler: StreamableHttpHandler, who: string, id: RequestId, name = 'whoami'): Promise<Response> {
  return post(handler, rpc(id, 'tools/call', { name, arguments: {}, _meta: META }), {
    protocolVersion: V,
    headers: { authorization: `Bearer ${who}`, 'mcp-method': 'tools/call', 'mcp-name': name },
  });
}

async function json(res: Response): Promise<JSONObject> {
  return (await res.json()) as JSONObject;
}

function server(): { server: McpServer; seen: ServerRequestContext[] } {
  const seen: ServerRequestContext[] = [];
  const s = new McpServer({ name: 'scopes', version: '1.0.0' });
  s.registerTool('whoami', { description: 'who asks' }, (_a, ctx) => {
    seen.push(ctx);
    return String((ctx.authInfo as { subject?: string }).subject);
  });
  s.registerTool('slow', { description: 'answers after a tick' }, async (_a, ctx) => {
    seen.push(ctx);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return `id ${JSON.stringify(ctx.id)}`;
  });
  return { server: s, seen };
}

describe('2026-07-28 over HTTP: one request, one dispatch context', () => {
  it('gives each request its own context: its wire id, no connection, no session created', async () => {
    const { server: s, seen } = server();
    const handler = makeHandler({ server: s, authorize: authorizer });
    for (let i = 0; i < 5; i++) assert.equal(((await json(await call(handler, 'alice', `r-${i}`))).result as JSONObject).isError, undefined);
    assert.equal(s.connections.size, 0, 'no ServerConnection stands behind these requests');
    assert.deepEqual(
      seen.map((c) => c.id),
      ['r-0', 'r-1', 'r-2', 'r-3', 'r-4'],
      'handlers see the id the client sent (no remapping)',
    );
    assert.ok(seen.every((c) => c.connection === undefined && c.sessionId === undefined));
    assert.equal(new Set(seen.map((c) => c.session)).size, 5, 'each request has its own reply channel');
    await handler.close();
  });

  it('serves the same id from two clients at once, each answered with its own result', async () => {
    const { server: s } = server();
    const handler = makeHandler({ server: s, authorize: authorizer });
    const [a, b] = await Promise.all([call(handler, 'alice', 7, 'slow'), call(handler, 'bob', 7, 'slow')]);
    for (const res of [a, b]) {
      const body = await json(res);
      assert.equal(body.id, 7);
      assert.deepEqual((body.result as JSONObject).content, [{ type: 'text', text: 'id 7' }]);
    }
    await handler.close();
  });
});

describe('rateLimit keys by principal in both eras', () => {
  it('2026-07-28: one principal exhausting its bucket does not limit another', async () => {
    const { server: s } = server();
    s.use(rateLimit({ limit: 1, windowMs: 60_000 }));
    const handler = makeHandler({ server: s, authorize: authorizer });
    assert.ok((await json(await call(handler, 'alice', 1))).result);
    const refused = await json(await call(handler, 'alice', 2));
    assert.equal((refused.error as JSONObject).code, RATE_LIMITED_CODE);
    const bob = await json(await call(handler, 'bob', 1));
    assert.deepEqual((bob.result as JSONObject).content, [{ type: 'text', text: 'bob' }], 'bob has his own bucket');
    await handler.close();
  });

  it('2025 era: two sessions of one principal share its bucket; another principal has its own', async () => {
    const { server: s } = server();
    s.use(rateLimit({ limit: 1, windowMs: 60_000 }));
    const handler = makeHandler({ server: s, authorize: authorizer });
    const open = async (who: string): Promise<string> => {
      const res = await post(handler, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: who, version: '1' } }), {
        headers: { authorization: `Bearer ${who}` },
      });
      const id = res.headers.get('mcp-session-id');
      assert.ok(id);
      await res.body?.cancel();
      return id;
    };
    const callIn = async (who: string, sessionId: string, id: number): Promise<JSONObject> => {
      const res = await post(handler, rpc(id, 'tools/call', { name: 'whoami', arguments: {} }), {
        sessionId,
        protocolVersion: '2025-11-25',
        accept: 'application/json, text/event-stream',
        headers: { authorization: `Bearer ${who}` },
      });
      return replyMessage(res);
    };
    const a1 = await open('alice');
    const a2 = await open('alice');
    const b1 = await open('bob');
    assert.ok((await callIn('alice', a1, 1)).result);
    assert.equal(((await callIn('alice', a2, 1)).error as JSONObject).code, RATE_LIMITED_CODE, 'the second session of alice draws on the same bucket');
    assert.ok((await callIn('bob', b1, 1)).result);
    await handler.close();
  });
});
