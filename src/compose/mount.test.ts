/**
 * mount() with in-process servers, driven over in-memory connections in both eras (a
 * 2025-11-25 session and connectionless 2026-07-28 requests): the merged catalogue and its
 * pagination, routing, the inner server's view of the caller, progress, cancellation, error
 * codes, list_changed and resources/updated, and collisions at mount time and later.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually } from '../../test/helpers/http/server-harness.js';
import { meta2026, rawClient, textOf } from '../../test/helpers/raw-server-client.js';
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { mount } from './mount.js';
import type { MountSource } from './source.js';

/** An inner server: a tool, a slow tool with progress, a failing tool, a prompt with completion, a resource and a template. */
function innerServer(name = 'inner'): { server: McpServer; seen: JSONObject[]; aborted: string[] } {
  const seen: JSONObject[] = [];
  const aborted: string[] = [];
  const server = new McpServer({ name, version: '1' });
  server.registerTool('whoami', { description: 'who is calling' }, (_args, ctx) => {
    seen.push({ client: ctx.clientInfo?.name ?? null, principal: (ctx.authInfo as { subject?: string } | undefined)?.subject ?? null });
    return `${name}: hello ${ctx.clientInfo?.name ?? '?'}`;
  });
  server.registerTool('slow', { inputSchema: { type: 'object', properties: { wait: { type: 'boolean' } } } }, async (args, ctx) => {
    await ctx.sendProgress(1, 2, 'half');
    if (args.wait === true) {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted.push('slow');
    }
    await ctx.sendProgress(2, 2, 'done');
    return 'slow done';
  });
  server.registerTool('fail', {}, () => {
    throw new McpError(-32042, 'URL elicitation required', { why: 'test' });
  });
  server.registerPrompt(
    'greet',
    { arguments: [{ name: 'who', required: true }], complete: { who: (v: string) => ['alice', 'bob'].filter((n) => n.startsWith(v)) } } as never,
    ((args: { who: string }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `hi ${args.who}` } }],
    })) as never,
  );
  server.registerResource('file:///notes.txt', { name: 'notes' }, (uri) => ({ uri, text: `${name} notes` }));
  server.registerResourceTemplate(
    'item://{id}',
    { name: 'item', complete: { id: (v: string) => ['a1', 'a2', 'b1'].filter((x) => x.startsWith(v)) } } as never,
    ((uri: string, vars: { id: string }) => ({
      uri,
      text: `${name} item ${vars.id} at ${uri}`,
    })) as never,
  );
  return { server, seen, aborted };
}

const result = (response: JSONObject): JSONObject => {
  assert.equal(response.error, undefined, JSON.stringify(response.error));
  return response.result as JSONObject;
};

describe('mount: an in-process server', () => {
  it('merges the catalogue with names and URIs rewritten, and routes calls, gets, reads and completions', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    outer.registerTool('own', {}, () => 'outer own');
    const { server } = innerServer('a');
    await mount(outer, 'a', server);
    const c = await rawClient(outer, { name: 'caller' });
    const tools = (result(await c.request('tools/list')).tools as JSONObject[]).map((t) => t.name);
    assert.deepEqual(tools, ['own', 'a_whoami', 'a_slow', 'a_fail']);
    assert.equal(textOf(await c.request('tools/call', { name: 'a_whoami', arguments: {} })), 'a: hello caller', 'the inner server sees the outer caller');
    assert.equal(textOf(await c.request('tools/call', { name: 'own', arguments: {} })), 'outer own');
    const prompts = result(await c.request('prompts/list')).prompts as JSONObject[];
    assert.deepEqual(
      prompts.map((p) => p.name),
      ['a_greet'],
    );
    const got = result(await c.request('prompts/get', { name: 'a_greet', arguments: { who: 'zoe' } }));
    assert.equal(((got.messages as JSONObject[])[0]!.content as JSONObject).text, 'hi zoe');
    const resources = result(await c.request('resources/list')).resources as JSONObject[];
    assert.deepEqual(
      resources.map((r) => r.uri),
      ['mcpkit+mount://a/file:///notes.txt'],
    );
    const read = result(await c.request('resources/read', { uri: 'mcpkit+mount://a/file:///notes.txt' }));
    assert.equal((read.contents as JSONObject[])[0]!.text, 'a notes');
    const templates = result(await c.request('resources/templates/list')).resourceTemplates as JSONObject[];
    assert.deepEqual(
      templates.map((t) => t.uriTemplate),
      ['mcpkit+mount://a/item://{id}'],
    );
    const item = result(await c.request('resources/read', { uri: 'mcpkit+mount://a/item://b1' }));
    assert.equal((item.contents as JSONObject[])[0]!.text, 'a item b1 at item://b1');
    const byPrompt = result(await c.request('completion/complete', { ref: { type: 'ref/prompt', name: 'a_greet' }, argument: { name: 'who', value: 'a' } }));
    assert.deepEqual((byPrompt.completion as JSONObject).values, ['alice']);
    const byTemplate = result(
      await c.request('completion/complete', { ref: { type: 'ref/resource', uri: 'mcpkit+mount://a/item://{id}' }, argument: { name: 'id', value: 'a' } }),
    );
    assert.deepEqual((byTemplate.completion as JSONObject).values, ['a1', 'a2']);
  });

  it('unknown names stay the server’s own answers; source errors keep their JSON-RPC code', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    await mount(outer, 'a', innerServer('a').server);
    const c = await rawClient(outer);
    const unknown = (await c.request('tools/call', { name: 'a_nope', arguments: {} })).error as JSONObject;
    assert.deepEqual([unknown.code, unknown.message], [-32602, 'Unknown tool: a_nope']);
    const failed = (await c.request('tools/call', { name: 'a_fail', arguments: {} })).error as JSONObject;
    assert.deepEqual([failed.code, failed.message, failed.data], [-32042, 'URL elicitation required', { why: 'test' }]);
    const missing = (await c.request('resources/read', { uri: 'mcpkit+mount://a/file:///nope' })).error as JSONObject;
    assert.equal(missing.code, -32002);
    const foreign = (await c.request('resources/read', { uri: 'mcpkit+mount://b/file:///notes.txt' })).error as JSONObject;
    assert.equal(foreign.code, -32002, 'an unmounted prefix is nobody’s resource');
  });

  it('relays progress with the caller’s token and cancels the inner call with the caller’s cancellation', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    const inner = innerServer('a');
    await mount(outer, 'a', inner.server);
    const c = await rawClient(outer);
    const done = result(await c.request('tools/call', { name: 'a_slow', arguments: {}, _meta: { progressToken: 'tok' } }));
    assert.equal((done.content as JSONObject[])[0]!.text, 'slow done');
    const progress = c.received.filter((m) => m.method === 'notifications/progress').map((m) => m.params as JSONObject);
    assert.deepEqual(
      progress.map((p) => [p.progressToken, p.progress, p.message]),
      [
        ['tok', 1, 'half'],
        ['tok', 2, 'done'],
      ],
    );
    void c.request('tools/call', { name: 'a_slow', arguments: { wait: true }, _meta: { progressToken: 'w' } });
    await eventually(
      () => c.received.some((m) => m.method === 'notifications/progress' && (m.params as JSONObject).progressToken === 'w'),
      10_000,
      'first progress',
    );
    const id = c.received.length; // the request ids: initialize 1, ping 2, call 3, call 4
    await c.notify('notifications/cancelled', { requestId: 4, reason: 'stop' });
    await eventually(() => inner.aborted.length === 1, 10_000, 'the inner handler saw the abort');
    assert.ok(id > 0);
  });

  it('pages the merged catalogue (pageSize) and serves every item once', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' }, { pageSize: 2 });
    for (let i = 0; i < 3; i++) outer.registerTool(`own${i}`, {}, () => 'x');
    const source = new McpServer({ name: 'big', version: '1' }, { pageSize: 2 });
    for (let i = 0; i < 5; i++) source.registerTool(`t${i}`, {}, () => 'x');
    await mount(outer, 'b', source, { pageSize: 3 });
    const c = await rawClient(outer);
    const names: string[] = [];
    let cursor: unknown;
    for (let page = 0; page < 10; page++) {
      const r = result(await c.request('tools/list', cursor === undefined ? {} : { cursor: cursor as string }));
      names.push(...(r.tools as JSONObject[]).map((t) => t.name as string));
      assert.ok((r.tools as JSONObject[]).length <= 3);
      cursor = r.nextCursor;
      if (cursor === undefined) break;
    }
    assert.deepEqual(names, ['own0', 'own1', 'own2', 'b_t0', 'b_t1', 'b_t2', 'b_t3', 'b_t4']);
    const bad = (await c.request('tools/list', { cursor: 'garbage' })).error as JSONObject;
    assert.equal(bad.code, -32602);
  });

  it('announces list_changed when the source’s list changes, and serves the new item', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    const { server } = innerServer('a');
    await mount(outer, 'a', server);
    const c = await rawClient(outer);
    server.registerTool('late', {}, () => 'late one');
    await eventually(() => c.received.some((m) => m.method === 'notifications/tools/list_changed'), 10_000, 'tools list_changed');
    await eventually(() => outer.tools.get('a_late') === undefined, 1, 'not a local tool');
    const tools = (result(await c.request('tools/list')).tools as JSONObject[]).map((t) => t.name);
    assert.ok(tools.includes('a_late'), tools.join());
    assert.equal(textOf(await c.request('tools/call', { name: 'a_late', arguments: {} })), 'late one');
  });

  it('forwards a subscription and announces the source’s resources/updated with the URI rewritten', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    const { server } = innerServer('a');
    await mount(outer, 'a', server);
    const c = await rawClient(outer);
    result(await c.request('resources/subscribe', { uri: 'mcpkit+mount://a/file:///notes.txt' }));
    await server.notifyResourceUpdated('file:///notes.txt');
    await eventually(() => c.received.some((m) => m.method === 'notifications/resources/updated'), 10_000, 'resources/updated');
    const updated = c.received.find((m) => m.method === 'notifications/resources/updated')!.params as JSONObject;
    assert.equal(updated.uri, 'mcpkit+mount://a/file:///notes.txt');
  });

  it('serves connectionless 2026-07-28 requests: list, call with the caller’s identity', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    const inner = innerServer('a');
    await mount(outer, 'a', inner.server);
    const c = await rawClient(outer, { initialize: false });
    const tools = (result(await c.request('tools/list', { _meta: meta2026('new') })).tools as JSONObject[]).map((t) => t.name);
    assert.deepEqual(tools, ['a_whoami', 'a_slow', 'a_fail']);
    assert.equal(textOf(await c.request('tools/call', { name: 'a_whoami', arguments: {}, _meta: meta2026('new') })), 'a: hello new');
    assert.deepEqual(inner.seen.at(-1), { client: 'new', principal: null });
  });
});

describe('mount: collisions', () => {
  it('merging (no prefix) a source with a name the server serves is refused at mount time, nothing mounted', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    outer.registerTool('whoami', {}, () => 'mine');
    await assert.rejects(mount(outer, '', innerServer('a').server), /Cannot mount without a prefix: tools "whoami" \(the server's own\)/);
    await mount(outer, 'a', innerServer('a').server);
    await assert.rejects(mount(outer, 'a', innerServer('b').server), /already mounted/);
    const other = new McpServer({ name: 'x', version: '1' });
    other.registerTool('a_whoami', {}, () => 'x');
    await assert.rejects(mount(outer, '', other), /tools "a_whoami" \(mount "a"\)/);
    const c = await rawClient(outer);
    const tools = (result(await c.request('tools/list')).tools as JSONObject[]).map((t) => t.name);
    assert.deepEqual(tools, ['whoami', 'a_whoami', 'a_slow', 'a_fail']);
  });

  it('a collision arising later hides the later item and reports it once; the first keeps serving', async () => {
    const errors: string[] = [];
    const outer = new McpServer({ name: 'outer', version: '1' });
    const first = new McpServer({ name: 'first', version: '1' });
    first.registerTool('one', {}, () => 'from first');
    const second = new McpServer({ name: 'second', version: '1' });
    second.registerTool('two', {}, () => 'from second');
    await mount(outer, '', first, { onError: (e) => errors.push(e.message) });
    await mount(outer, '', second);
    const c = await rawClient(outer);
    second.registerTool('one', {}, () => 'from second');
    await eventually(() => errors.length === 1, 10_000, 'the collision reported');
    assert.match(errors[0]!, /Mount "": tools "one" collides with mount "", which served it first; the mount's one is hidden/);
    const tools = (result(await c.request('tools/list')).tools as JSONObject[]).map((t) => t.name);
    assert.deepEqual(tools, ['one', 'two']);
    assert.equal(textOf(await c.request('tools/call', { name: 'one', arguments: {} })), 'from first');
    outer.registerTool('two', {}, () => 'the server’s own');
    assert.equal(textOf(await c.request('tools/call', { name: 'two', arguments: {} })), 'the server’s own', 'at once, before any source changes');
    assert.deepEqual(
      (result(await c.request('tools/list')).tools as JSONObject[]).map((t) => t.name),
      ['two', 'one'],
      'listed once',
    );
    assert.equal(errors.length, 2);
    assert.match(errors[1]!, /Mount "": tools "two" collides with the server itself, which served it first/);
  });
});

describe('mount: hostile and endless sources, unmount', () => {
  it('a URI that names another prefix inside the path stays with its own source', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    const a = new McpServer({ name: 'a', version: '1' });
    a.registerResourceTemplate('{+rest}', { name: 'anything' }, ((uri: string) => ({ uri, text: `a read ${uri}` })) as never);
    const b = new McpServer({ name: 'b', version: '1' });
    b.registerResource('file:///secret', { name: 'secret' }, (uri) => ({ uri, text: 'b secret' }));
    await mount(outer, 'a', a);
    await mount(outer, 'b', b);
    const c = await rawClient(outer);
    for (const uri of ['mcpkit+mount://a/mcpkit+mount://b/file:///secret', 'mcpkit+mount://a/../b/file:///secret']) {
      const read = result(await c.request('resources/read', { uri }));
      assert.equal((read.contents as JSONObject[])[0]!.text, `a read ${uri.slice('mcpkit+mount://a/'.length)}`, uri);
    }
    assert.equal((result(await c.request('resources/read', { uri: 'mcpkit+mount://b/file:///secret' })).contents as JSONObject[])[0]!.text, 'b secret');
  });

  it('a source whose list never ends is read up to maxSourcePages, reported, and served that far', async () => {
    const errors: string[] = [];
    let requests = 0;
    const endless: MountSource = {
      capabilities: () => ({ tools: {} }),
      request: async (method, params) => {
        requests++;
        const n = Number((params?.cursor as string | undefined) ?? '0');
        return method === 'tools/list' ? { tools: [{ name: `t${n}`, inputSchema: { type: 'object' } }], nextCursor: String(n + 1) } : {};
      },
      on: () => () => {},
      close: async () => {},
    };
    const outer = new McpServer({ name: 'outer', version: '1' });
    await mount(outer, 'e', endless, { maxSourcePages: 5, onError: (e) => errors.push(e.message) });
    assert.equal(requests, 5);
    assert.match(errors[0]!, /Mount "e": tools\/list of the source has more than 5 pages/);
    const c = await rawClient(outer);
    assert.deepEqual(
      (result(await c.request('tools/list')).tools as JSONObject[]).map((t) => t.name),
      ['e_t0', 'e_t1', 'e_t2', 'e_t3', 'e_t4'],
    );
  });

  it('unmount removes the source’s items and announces it', async () => {
    const outer = new McpServer({ name: 'outer', version: '1' });
    outer.registerTool('own', {}, () => 'own');
    const m = await mount(outer, 'a', innerServer('a').server);
    const c = await rawClient(outer);
    await m.unmount();
    await eventually(() => c.received.some((x) => x.method === 'notifications/tools/list_changed'), 10_000, 'list_changed');
    assert.deepEqual(
      (result(await c.request('tools/list')).tools as JSONObject[]).map((t) => t.name),
      ['own'],
    );
    const gone = (await c.request('tools/call', { name: 'a_whoami', arguments: {} })).error as JSONObject;
    assert.deepEqual([gone.code, gone.message], [-32602, 'Unknown tool: a_whoami']);
  });
});
