/**
 * visibility(): per-caller lists and calls over Streamable HTTP in both eras (a 2025-11-25
 * session and connectionless 2026-07-28 POSTs, callers told apart by bearer token), on a
 * plain server and on one with a mounted server; hidden items answered exactly as unknown
 * ones (compared with the server's own answer for a name that does not exist); tool
 * transforms; glob matching and policy checks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerAsker } from '../../test/helpers/http/bearer-asker.js';
import { eventually } from '../../test/helpers/http/server-harness.js';
import { V2026 } from '../../test/helpers/raw-server-client.js';
import type { HttpAuthorizer, HttpRequest } from '../http/server/types.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { globMatch } from './glob.js';
import { mount } from './mount.js';
import { type VisibilityRule, visibility } from './visibility.js';

const authorizer: HttpAuthorizer = {
  async authenticate(req: HttpRequest) {
    const who = (req.headers('authorization') ?? '').replace(/^Bearer /, '');
    if (who !== 'admin' && who !== 'user') return { reply: { status: 401, headers: {}, body: '' } };
    return {
      authInfo: {
        issuer: 'https://as.example',
        subject: who,
        clientId: `${who}-app`,
        scopes: who === 'admin' ? ['tools:all'] : ['tools:read'],
        audience: [],
        expiresAt: undefined,
        token: who,
      },
    };
  },
  sessionOwner: (info) => (info as { subject?: string }).subject,
};

/** What a plain user sees: no `admin_*` or `delete_*` tools, no `secret://` resources, `search` renamed and transformed. */
const USER: VisibilityRule = {
  deny: ['admin_*', 'delete_*', '*_drop'],
  denyResources: ['secret://*', '*://*/secret://*'],
  tools: {
    search: { name: 'find', description: 'Find things (read-only)', arguments: { index: { value: 'public' }, limit: { default: 5 } }, dropOutput: ['cost'] },
  },
};
const policy = visibility(({ scopes }) => (scopes.includes('tools:all') ? undefined : USER));

function plainServer(): McpServer {
  const s = new McpServer({ name: 'governed', version: '1' });
  s.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => String(args.text));
  s.registerTool('admin_reset', {}, () => 'reset done');
  s.registerTool('delete_all', {}, () => 'deleted');
  s.registerTool(
    'search',
    {
      description: 'Search any index',
      inputSchema: { type: 'object', properties: { q: { type: 'string' }, index: { type: 'string' }, limit: { type: 'number' } }, required: ['q', 'index'] },
      outputSchema: { type: 'object', properties: { hits: { type: 'array' }, cost: { type: 'number' } }, required: ['hits', 'cost'] },
    },
    (args) => ({ structuredContent: { hits: [`${String(args.q)} in ${String(args.index)} (${String(args.limit)})`], cost: 42 } }),
  );
  s.registerPrompt('admin_prompt', {}, () => ({ messages: [] }));
  s.registerPrompt('hello', {}, () => ({ messages: [] }));
  s.registerResource('secret://keys', { name: 'keys' }, (uri) => ({ uri, text: 'k' }));
  s.registerResource('file:///readme', { name: 'readme' }, (uri) => ({ uri, text: 'r' }));
  return s;
}

/** Asks `server` as `who` over Streamable HTTP in `era`. */
const asker = (server: McpServer, era: '2025' | typeof V2026) => bearerAsker(server, era, authorizer);

const names = (r: JSONObject, key: string, field = 'name') => {
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return ((r.result as JSONObject)[key] as JSONObject[]).map((t) => t[field]);
};
const errorOf = (r: JSONObject) => {
  const e = r.error as JSONObject;
  assert.ok(e !== undefined, `expected an error, got ${JSON.stringify(r.result)}`);
  return [e.code, e.message];
};

for (const era of ['2025', V2026] as const) {
  describe(`visibility on a plain server (${era})`, () => {
    it('hides denied tools, prompts and resources from the user, not from the admin; hidden is answered as unknown', async () => {
      const s = plainServer().use(policy);
      const { ask, close } = asker(s, era);
      try {
        assert.deepEqual(names(await ask('admin', 'tools/list'), 'tools'), ['echo', 'admin_reset', 'delete_all', 'search']);
        assert.deepEqual(names(await ask('user', 'tools/list'), 'tools'), ['echo', 'find']);
        assert.deepEqual(names(await ask('user', 'prompts/list'), 'prompts'), ['hello']);
        assert.deepEqual(names(await ask('user', 'resources/list'), 'resources', 'uri'), ['file:///readme']);
        assert.deepEqual(names(await ask('admin', 'resources/list'), 'resources', 'uri'), ['secret://keys', 'file:///readme']);
        // hidden ones, compared with the server's own answers for names that do not exist
        assert.deepEqual(
          errorOf(await ask('user', 'tools/call', { name: 'admin_reset', arguments: {} })),
          errorOf(await ask('user', 'tools/call', { name: 'admin_nope', arguments: {} })).map((x) =>
            x === 'Unknown tool: admin_nope' ? 'Unknown tool: admin_reset' : x,
          ),
        );
        assert.deepEqual(errorOf(await ask('user', 'tools/call', { name: 'admin_reset', arguments: {} })), [-32602, 'Unknown tool: admin_reset']);
        assert.deepEqual(errorOf(await ask('user', 'prompts/get', { name: 'admin_prompt' })), [-32602, 'Unknown prompt: admin_prompt']);
        assert.deepEqual(errorOf(await ask('admin', 'prompts/get', { name: 'nope' })), [-32602, 'Unknown prompt: nope']);
        const hiddenRead = errorOf(await ask('user', 'resources/read', { uri: 'secret://keys' }));
        assert.deepEqual(hiddenRead, errorOf(await ask('user', 'resources/read', { uri: 'secret://none' })));
        assert.equal(hiddenRead[0], era === V2026 ? -32602 : -32002);
        assert.equal(textOf(await ask('admin', 'tools/call', { name: 'admin_reset', arguments: {} })), 'reset done');
      } finally {
        await close();
      }
    });

    it('transforms a tool for the user: renamed, described, an argument fixed and hidden, one defaulted, an output field dropped', async () => {
      const s = plainServer().use(policy);
      const { ask, close } = asker(s, era);
      try {
        const find = ((await ask('user', 'tools/list')).result as { tools: JSONObject[] }).tools.find((t) => t.name === 'find')!;
        assert.equal(find.description, 'Find things (read-only)');
        assert.deepEqual(find.inputSchema, { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'number', default: 5 } }, required: ['q'] });
        assert.deepEqual(find.outputSchema, { type: 'object', properties: { hits: { type: 'array' } }, required: ['hits'] });
        const r = (await ask('user', 'tools/call', { name: 'find', arguments: { q: 'cats' } })).result as JSONObject;
        assert.deepEqual(r.structuredContent, { hits: ['cats in public (5)'] });
        assert.ok(!JSON.stringify(r.content).includes('cost'), 'the dropped field is not in the text either');
        const r2 = (await ask('user', 'tools/call', { name: 'find', arguments: { q: 'dogs', limit: 2 } })).result as JSONObject;
        assert.deepEqual(r2.structuredContent, { hits: ['dogs in public (2)'] });
        assert.deepEqual(errorOf(await ask('user', 'tools/call', { name: 'find', arguments: { q: 'x', index: 'private' } })), [
          -32602,
          'Invalid arguments for tool find: "index" is not an argument of this tool; remove it',
        ]);
        assert.deepEqual(
          errorOf(await ask('user', 'tools/call', { name: 'search', arguments: { q: 'x', index: 'private' } })),
          [-32602, 'Unknown tool: search'],
          'the old name is unknown to the user',
        );
        const admin = (await ask('admin', 'tools/call', { name: 'search', arguments: { q: 'x', index: 'private' } })).result as JSONObject;
        assert.deepEqual(admin.structuredContent, { hits: ['x in private (undefined)'], cost: 42 });
      } finally {
        await close();
      }
    });
  });

  describe(`visibility on a server with a mount (${era})`, () => {
    it('the same policy hides mounted tools and resources, and transforms a mounted tool', async () => {
      const outer = new McpServer({ name: 'door', version: '1' });
      outer.registerTool('own', {}, () => 'own');
      await mount(outer, 'gov', plainServer());
      const rule: VisibilityRule = {
        deny: ['gov_admin_*', 'gov_delete_*'],
        denyResources: ['*://*/secret://*'],
        tools: { gov_echo: { name: 'say', arguments: { text: { value: 'fixed' } } } },
      };
      outer.use(visibility(({ scopes }) => (scopes.includes('tools:all') ? undefined : rule)));
      const { ask, close } = asker(outer, era);
      try {
        assert.deepEqual(names(await ask('admin', 'tools/list'), 'tools'), ['own', 'gov_echo', 'gov_admin_reset', 'gov_delete_all', 'gov_search']);
        assert.deepEqual(names(await ask('user', 'tools/list'), 'tools'), ['own', 'say', 'gov_search']);
        assert.equal(textOf(await ask('user', 'tools/call', { name: 'say', arguments: {} })), 'fixed');
        assert.deepEqual(errorOf(await ask('user', 'tools/call', { name: 'gov_admin_reset', arguments: {} })), [-32602, 'Unknown tool: gov_admin_reset']);
        assert.equal(textOf(await ask('admin', 'tools/call', { name: 'gov_admin_reset', arguments: {} })), 'reset done');
        assert.deepEqual(names(await ask('user', 'resources/list'), 'resources', 'uri'), ['mcpkit+mount://gov/file:///readme']);
        const hidden = errorOf(await ask('user', 'resources/read', { uri: 'mcpkit+mount://gov/secret://keys' }));
        assert.equal(hidden[0], era === V2026 ? -32602 : -32002);
      } finally {
        await close();
      }
    });
  });
}

function textOf(r: JSONObject): string {
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return (((r.result as JSONObject).content as JSONObject[])[0] as JSONObject).text as string;
}

describe('visibility: policy checks and globs', () => {
  it('refuses bad globs, renames and argument transforms when built', () => {
    assert.throws(() => visibility({ allow: [''] }), /Glob "" must be a non-empty string/);
    assert.throws(() => visibility({ deny: ['x'.repeat(513)] }), /at most 512/);
    assert.throws(() => visibility({ tools: { a: { name: 'bad name' } } }), /cannot be renamed "bad name"/);
    assert.throws(() => visibility({ tools: { a: { name: 'x' }, b: { name: 'x' } } }), /two tools are renamed "x"/);
    assert.throws(() => visibility({ tools: { a: { arguments: { p: { value: 1, default: 2 } as never } } } }), /exactly one of/);
  });

  it('globs: * any run, ? one character, everything else literal (regex characters included), bounded on hostile input', () => {
    assert.equal(globMatch('admin_*', 'admin_reset'), true);
    assert.equal(globMatch('admin_*', 'xadmin_reset'), false);
    assert.equal(globMatch('*_drop', 'table_drop'), true);
    assert.equal(globMatch('a?c', 'abc'), true);
    assert.equal(globMatch('a?c', 'ac'), false);
    assert.equal(globMatch('a.c', 'abc'), false, 'a dot is a dot');
    assert.equal(globMatch('(x+)+$', '(x+)+$'), true);
    assert.equal(globMatch('*', ''), true);
    assert.equal(globMatch('*a*b*c*d*e*f*g*h*', 'a'.repeat(100_000)), false);
  });
});

describe('visibility by client info', () => {
  it('a function of the caller’s client info decides (an in-memory 2025 session)', async () => {
    const { rawClient } = await import('../../test/helpers/raw-server-client.js');
    const s = plainServer().use(visibility(({ clientInfo }) => (clientInfo?.name === 'trusted-ide' ? undefined : { allow: ['echo', 'hello'] })));
    const trusted = await rawClient(s, { name: 'trusted-ide' });
    const other = await rawClient(s, { name: 'some-bot' });
    assert.deepEqual(names(await trusted.request('tools/list'), 'tools'), ['echo', 'admin_reset', 'delete_all', 'search']);
    assert.deepEqual(names(await other.request('tools/list'), 'tools'), ['echo']);
    assert.deepEqual(names(await other.request('prompts/list'), 'prompts'), ['hello']);
    assert.deepEqual(errorOf(await other.request('tools/call', { name: 'search', arguments: { q: 'x', index: 'i' } })), [-32602, 'Unknown tool: search']);
  });

  it('a subscription to a hidden resource is accepted and never made: no updates of it reach the caller', async () => {
    const { rawClient } = await import('../../test/helpers/raw-server-client.js');
    const s = plainServer().use(visibility(({ clientInfo }) => (clientInfo?.name === 'admin' ? undefined : USER)));
    const admin = await rawClient(s, { name: 'admin' });
    const user = await rawClient(s, { name: 'user' });
    for (const c of [admin, user]) {
      assert.deepEqual((await c.request('resources/subscribe', { uri: 'secret://keys' })).result, {});
      assert.deepEqual((await c.request('resources/subscribe', { uri: 'file:///readme' })).result, {});
    }
    await s.notifyResourceUpdated('secret://keys');
    await s.notifyResourceUpdated('file:///readme');
    const updates = (c: { received: JSONObject[] }) =>
      c.received.filter((m) => m.method === 'notifications/resources/updated').map((m) => (m.params as JSONObject).uri);
    // each connection's notifications arrive in order: once the readme's is there, the secret's would have come before it
    await eventually(() => updates(user).includes('file:///readme') && updates(admin).includes('file:///readme'), 10_000, 'the readme updates');
    assert.deepEqual(updates(admin), ['secret://keys', 'file:///readme']);
    assert.deepEqual(updates(user), ['file:///readme']);
  });
});
