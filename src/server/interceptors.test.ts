/**
 * Per-request interceptors (interceptors.ts): who is asking (the context of a 2025-era
 * session over an in-memory pair and over Streamable HTTP, and of a connectionless
 * 2026-07-28 POST), filtering what a principal may use, `next` called twice, ordering and
 * params replacement, outgoing requests, notifications, and the deprecated middleware form.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerAsker } from '../../test/helpers/http/bearer-asker.js';
import { makeHandler, note, post, replyMessage, rpc } from '../../test/helpers/http/server-harness.js';
import { meta2026, rawClient, textOf, V2026 } from '../../test/helpers/raw-server-client.js';
import { requireScopes } from '../auth/server/scopes.js';
import type { HttpAuthorizer, HttpRequest } from '../http/server/types.js';
import { invalidParams } from '../jsonrpc/errors.js';
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { CallContext, Middleware } from '../protocol/middleware.js';
import { type InterceptContext, type Interceptor, incomingLayer } from './interceptors.js';
import { rateLimit } from './middleware.js';
import { McpServer } from './server.js';

/** Bearer tokens `alice` and `bob` stand for those principals (the shape of mcpkit/auth's AuthInfo). */
const authorizer: HttpAuthorizer = {
  async authenticate(req: HttpRequest) {
    const who = (req.headers('authorization') ?? '').replace(/^Bearer /, '');
    if (who !== 'alice' && who !== 'bob') return { reply: { status: 401, headers: {}, body: '' } };
    return { authInfo: { issuer: 'https://as.example', subject: who, clientId: `${who}-app`, scopes: [], audience: [], expiresAt: undefined, token: who } };
  },
  sessionOwner: (info) => (info as { subject?: string }).subject,
};

/** What a recorded context held (read while the call was running). */
interface Seen {
  direction: string;
  kind: string;
  method: string;
  params: JSONObject | undefined;
  id: RequestId | undefined;
  signal: boolean;
  principal: string | undefined;
  clientInfo: string | undefined;
  era: string;
  revision: string | undefined;
  connection: boolean;
  request: boolean;
}

function snapshot(call: InterceptContext): Seen {
  return {
    direction: call.direction,
    kind: call.kind,
    method: call.method,
    params: call.params,
    id: call.id,
    signal: call.signal instanceof AbortSignal,
    principal: (call.principal as { subject?: string } | undefined)?.subject,
    clientInfo: call.clientInfo?.name,
    era: call.era,
    revision: call.revision,
    connection: call.connection !== undefined,
    request: call.request !== undefined,
  };
}

function recorder(seen: Seen[]): Interceptor {
  return {
    intercept(call, next) {
      seen.push(snapshot(call));
      return next();
    },
  };
}

function server(): McpServer {
  const s = new McpServer({ name: 'intercepted', version: '1.0.0' });
  s.registerTool('echo', { description: 'echo' }, () => 'plain');
  s.registerTool('secret', { description: 'for alice' }, () => 'the secret');
  return s;
}

describe('interceptor context: who is asking', () => {
  it('2025 session over an in-memory pair: connection, clientInfo from initialize, revision, id, signal; notifications too', async () => {
    const seen: Seen[] = [];
    const s = server().use(recorder(seen));
    const c = await rawClient(s, { name: 'inmem-client' });
    await c.request('tools/call', { name: 'echo', arguments: {} });
    const call = seen.find((x) => x.method === 'tools/call')!;
    assert.deepEqual(call, {
      direction: 'incoming',
      kind: 'request',
      method: 'tools/call',
      params: { name: 'echo', arguments: {} },
      id: 3,
      signal: true,
      principal: undefined,
      clientInfo: 'inmem-client',
      era: '2025',
      revision: '2025-11-25',
      connection: true,
      request: true,
    });
    const initialized = seen.find((x) => x.method === 'notifications/initialized')!;
    assert.equal(initialized.kind, 'notification');
    assert.equal(initialized.connection, true);
    assert.equal(initialized.request, false);
    assert.deepEqual(
      seen.map((x) => x.method),
      ['initialize', 'notifications/initialized', 'ping', 'tools/call'],
      'every request and notification, the handshake included',
    );
  });

  it('2025 session over Streamable HTTP: the principal the HTTP layer attached', async () => {
    const seen: Seen[] = [];
    const s = server().use(recorder(seen));
    const handler = makeHandler({ server: s, authorize: authorizer });
    const auth = { authorization: 'Bearer alice' };
    const init = await post(
      handler,
      rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http-client', version: '1' } }),
      { headers: auth },
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    await (await post(handler, note('notifications/initialized'), { sessionId, protocolVersion: '2025-11-25', headers: auth })).body?.cancel();
    const answer = await replyMessage(
      await post(handler, rpc('q1', 'tools/call', { name: 'echo', arguments: {} }), { sessionId, protocolVersion: '2025-11-25', headers: auth }),
    );
    assert.equal(textOf(answer), 'plain');
    const call = seen.find((x) => x.method === 'tools/call')!;
    assert.equal(call.principal, 'alice');
    assert.equal(call.clientInfo, 'http-client');
    assert.equal(call.era, '2025');
    assert.equal(call.revision, '2025-11-25');
    assert.equal(call.connection, true);
    assert.equal(call.id, 'q1');
    await handler.close();
  });

  it('2026-07-28 connectionless POST: no connection, clientInfo and revision from _meta', async () => {
    const seen: Seen[] = [];
    const s = server().use(recorder(seen));
    const handler = makeHandler({ server: s, authorize: authorizer });
    const res = await post(handler, rpc(9, 'tools/call', { name: 'echo', arguments: {}, _meta: meta2026('meta-client') }), {
      protocolVersion: V2026,
      headers: { authorization: 'Bearer bob', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    });
    assert.equal(textOf((await res.json()) as JSONObject), 'plain');
    assert.equal(s.connections.size, 0);
    const [call] = seen;
    assert.deepEqual(
      { ...call!, params: undefined },
      {
        direction: 'incoming',
        kind: 'request',
        method: 'tools/call',
        params: undefined,
        id: 9,
        signal: true,
        principal: 'bob',
        clientInfo: 'meta-client',
        era: '2026-07-28',
        revision: V2026,
        connection: false,
        request: true,
      },
    );
    await handler.close();
  });
});

/** Tools only alice may see: `secret` is hidden from everyone else, in the list and when called. */
const visibility: Interceptor = {
  name: 'visibility',
  async intercept(call, next) {
    const mayUse = (tool: string) => tool !== 'secret' || (call.principal as { subject?: string } | undefined)?.subject === 'alice';
    if (call.method === 'tools/call' && !mayUse(call.params?.name as string)) throw invalidParams(`Unknown tool: ${call.params?.name as string}`);
    const result = await next();
    if (call.method !== 'tools/list') return result;
    const list = result as { tools: { name: string }[] };
    return { ...list, tools: list.tools.filter((t) => mayUse(t.name)) };
  },
};

describe('filtering per principal', () => {
  for (const era of ['2025', V2026] as const) {
    it(`tools/list drops what the principal may not see, tools/call of it is an unknown tool (${era})`, async () => {
      const s = server().use(visibility);
      const { ask, close } = bearerAsker(s, era, authorizer);
      const names = (r: JSONObject) => ((r.result as JSONObject).tools as JSONObject[]).map((t) => t.name);
      assert.deepEqual(names(await ask('alice', 'tools/list')), ['echo', 'secret']);
      assert.deepEqual(names(await ask('bob', 'tools/list')), ['echo']);
      assert.equal(textOf(await ask('alice', 'tools/call', { name: 'secret', arguments: {} })), 'the secret');
      const refused = (await ask('bob', 'tools/call', { name: 'secret', arguments: {} })).error as JSONObject;
      assert.deepEqual([refused.code, refused.message], [-32602, 'Unknown tool: secret'], 'exactly as for a tool that does not exist');
      const missing = (await ask('bob', 'tools/call', { name: 'nope', arguments: {} })).error as JSONObject;
      assert.deepEqual([missing.code, missing.message], [-32602, 'Unknown tool: nope']);
      await close();
    });
  }
});

describe('next', () => {
  it('called twice: the second call throws a clear error and the handler runs once', async () => {
    let runs = 0;
    const s = new McpServer({ name: 'twice', version: '1.0.0' });
    s.registerTool('count', {}, () => `run ${++runs}`);
    let second: unknown;
    s.use({
      name: 'greedy',
      async intercept(_call, next) {
        const first = await next();
        try {
          second = await next();
        } catch (error) {
          second = error;
        }
        return first;
      },
    });
    const c = await rawClient(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'count', arguments: {} })), 'run 1');
    assert.equal(runs, 1);
    assert.ok(second instanceof Error);
    assert.match(second.message, /^Interceptor "greedy" called next\(\) twice for tools\/call/);
  });

  it('several interceptors: the first registered outermost; params given to next reach the inner ones and the handler', async () => {
    const order: string[] = [];
    const s = new McpServer({ name: 'order', version: '1.0.0' });
    s.registerTool('show', {}, (args) => JSON.stringify(args));
    const named = (label: string, change?: (p: JSONObject) => JSONObject): Interceptor => ({
      async intercept(call, next) {
        if (call.kind !== 'request' || call.method !== 'tools/call') return next();
        order.push(`${label}> ${JSON.stringify(call.params?.arguments)}`);
        const result = await next(change?.(call.params!));
        order.push(`${label}<`);
        return result;
      },
    });
    s.use(named('outer', (p) => ({ ...p, arguments: { injected: 'by outer' } })));
    s.use(named('inner'));
    const c = await rawClient(s);
    assert.equal(textOf(await c.request('tools/call', { name: 'show', arguments: { from: 'client' } })), '{"injected":"by outer"}');
    assert.deepEqual(order, ['outer> {"from":"client"}', 'inner> {"injected":"by outer"}', 'inner<', 'outer<']);
  });

  it('an interceptor that throws refuses the request; the error reaches the client as it is', async () => {
    const s = server().use({
      intercept() {
        throw invalidParams('refused by policy');
      },
    });
    const c = await rawClient(s, { initialize: false });
    const answer = await c.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    assert.deepEqual(answer.error, { code: -32602, message: 'refused by policy' });
  });
});

describe('no promise of their own', () => {
  it('rateLimit and requireScopes hand a synchronous outcome through as it is (and a throw as a throw)', () => {
    const request = {
      kind: 'request',
      direction: 'incoming',
      id: 1,
      info: { authInfo: { clientId: 'c', scopes: ['s'], audience: [] } },
      era: { claim: undefined },
    } as unknown as CallContext;
    for (const interceptor of [rateLimit({ limit: 1 }), requireScopes({ all: ['s'] })]) {
      const chain = incomingLayer(interceptor, undefined)(() => ({ answered: 'at once' }));
      assert.deepEqual(chain('tools/call', { name: 'x' }, request), { answered: 'at once' }, interceptor.name);
    }
    const limited = incomingLayer(rateLimit({ limit: 1 }), undefined)(() => ({}));
    limited('tools/call', { name: 'x' }, request);
    assert.throws(() => limited('tools/call', { name: 'x' }, request), /Rate limit exceeded/);
  });
});

describe('outgoing', () => {
  it("{ direction: 'outgoing' } wraps the server's requests to the client and may inject _meta (trace context)", async () => {
    const seen: Seen[] = [];
    const s = server();
    s.registerTool('roots', {}, async (_a, ctx) => String((await ctx.listRoots()).length));
    s.use(
      {
        async intercept(call, next) {
          seen.push(snapshot(call));
          return next(call.kind === 'request' ? { ...call.params, _meta: { traceparent: '00-abc-def-01' } } : undefined);
        },
      },
      { direction: 'outgoing' },
    );
    const c = await rawClient(s, { name: 'roots-client', capabilities: { roots: {} }, answer: () => ({ roots: [{ uri: 'file:///a' }] }) });
    assert.equal(textOf(await c.request('tools/call', { name: 'roots', arguments: {} })), '1');
    const sent = c.received.find((m) => m.method === 'roots/list')!;
    assert.deepEqual((sent.params as JSONObject)._meta, { traceparent: '00-abc-def-01' });
    assert.deepEqual(
      seen.map((x) => [x.direction, x.kind, x.method, x.era, x.clientInfo, x.connection]),
      [['outgoing', 'request', 'roots/list', '2025', 'roots-client', true]],
      'incoming requests are not seen by an outgoing interceptor',
    );
  });
});

describe('use() forms', () => {
  it('the deprecated once-per-connection middleware still works, once per connection', async () => {
    let made = 0;
    const calls: string[] = [];
    const legacy: Middleware = (next) => {
      made++;
      return (method, params, ctx) => {
        if (ctx.kind === 'request') calls.push(method);
        return next(method, params, ctx);
      };
    };
    const s = server().use(legacy);
    await rawClient(s);
    await rawClient(s);
    assert.equal(made, 2);
    assert.deepEqual(calls, ['initialize', 'ping', 'initialize', 'ping']);
  });

  it('refuses what is neither (TypeError naming both forms)', () => {
    assert.throws(() => server().use({} as never), /interceptor \(\{ intercept\(call, next\)/);
    assert.throws(() => server().use({ intercept() {} }, 'sideways' as never), /direction must be/);
  });

  it('an interceptor added while a connection is open reaches it', async () => {
    const seen: Seen[] = [];
    const s = server();
    const c = await rawClient(s);
    s.use(recorder(seen));
    await c.request('ping');
    assert.deepEqual(
      seen.map((x) => x.method),
      ['ping'],
    );
  });
});
