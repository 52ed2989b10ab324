/**
 * Interop: one mcpkit server with three mounted sources — an in-process McpServer, and the
 * official `@modelcontextprotocol/server-everything` and `server-memory` over stdio (mcpkit
 * clients) — served over Streamable HTTP and driven by the official v1 SDK client: the merged
 * catalogue (all pages), calls routed to each source, resources read through rewritten URIs
 * and templates, a prompt, completions routed, list_changed propagated, a collision refused,
 * progress relayed from server-everything, cancellation propagated to the in-process server
 * and to the stdio upstream (its client sends `notifications/cancelled`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '../../src/client/client.js';
import { mount } from '../../src/compose/mount.js';
import { type NodeServerHandle, serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import { McpServer } from '../../src/server/server.js';
import { StdioClientTransport } from '../../src/stdio/client-transport.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { eventually } from '../helpers/http/server-harness.js';
import { REPO_ROOT } from '../helpers/repo.js';

const pkg = (name: string) => join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-mount-'));

let http: NodeServerHandle;
let everything: Client;
let memory: Client;
let local: McpServer;
let caller: V1Client;
const aborted: string[] = [];
const sentUpstream: string[] = [];
const mountErrors: string[] = [];

before(async () => {
  everything = new Client({ name: 'door', version: '1' });
  const toEverything = new StdioClientTransport({ command: process.execPath, args: [pkg('server-everything'), 'stdio'], stderr: 'ignore' });
  // observes what the mount's client writes to the upstream (the real transport sends it)
  const send = toEverything.send.bind(toEverything);
  toEverything.send = (message, options) => {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    if (text.includes('"notifications/cancelled"')) sentUpstream.push('notifications/cancelled');
    return send(message, options);
  };
  await everything.connect(toEverything);
  memory = new Client({ name: 'door', version: '1' });
  await memory.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [pkg('server-memory')],
      env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
      stderr: 'ignore',
    }),
  );
  local = new McpServer({ name: 'local', version: '1' });
  local.registerTool('wait', {}, async (_args, ctx) => {
    await ctx.sendProgress(1, 2);
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    aborted.push('wait');
    return 'aborted';
  });
  local.registerTool('whoami', {}, (_args, ctx) => `caller: ${ctx.clientInfo?.name ?? '?'}`);
  const door = new McpServer({ name: 'door', version: '1' }, { pageSize: 7 });
  door.registerTool('own', {}, () => 'the door itself');
  await mount(door, 'local', local, { onError: (e) => mountErrors.push(e.message) });
  await mount(door, 'every', everything);
  await mount(door, 'mem', memory);
  const clash = new McpServer({ name: 'clash', version: '1' });
  clash.registerTool('own', {}, () => 'not the door');
  clash.registerTool('every_echo', {}, () => 'not server-everything');
  await assert.rejects(
    mount(door, '', clash),
    /Cannot mount without a prefix: tools "own" \(the server's own\), tools "every_echo" \(mount "every"\) already served/,
    'merging a source whose names are taken is refused',
  );
  http = await serveNode(createStreamableHttpHandler({ server: door }), { port: 0, host: '127.0.0.1' });
  caller = new V1Client({ name: 'official-v1', version: '1' });
  await caller.connect(new V1Http(new URL(http.url)));
});

after(async () => {
  await caller?.close();
  await http?.close();
  await everything?.close();
  await memory?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every tool over every page. */
async function allTools(): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const r = await caller.listTools(cursor === undefined ? {} : { cursor });
    names.push(...r.tools.map((t) => t.name));
    cursor = r.nextCursor;
    if (cursor === undefined) break;
  }
  return names;
}

const text = (r: unknown): string => (r as { content: Array<{ text: string }> }).content[0]!.text;

describe('mount: in-process, server-everything and server-memory behind one door (official v1 client over HTTP)', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('lists the merged catalogue over several pages', async () => {
    const names = await allTools();
    assert.equal(names[0], 'own');
    for (const n of [
      'local_wait',
      'local_whoami',
      'every_echo',
      'every_get-sum',
      'every_trigger-long-running-operation',
      'mem_create_entities',
      'mem_read_graph',
    ])
      assert.ok(names.includes(n), `${n} in ${names.join()}`);
    assert.equal(new Set(names).size, names.length, 'every tool once');
    assert.ok(names.length > 7, 'more than one page');
  });

  it('routes calls to each source; the in-process one sees the caller', async () => {
    assert.equal(text(await caller.callTool({ name: 'own', arguments: {} })), 'the door itself');
    assert.equal(text(await caller.callTool({ name: 'local_whoami', arguments: {} })), 'caller: official-v1');
    assert.match(text(await caller.callTool({ name: 'every_echo', arguments: { message: 'hi' } })), /hi/);
    assert.match(text(await caller.callTool({ name: 'every_get-sum', arguments: { a: 2, b: 3 } })), /5/);
    await caller.callTool({ name: 'mem_create_entities', arguments: { entities: [{ name: 'door', entityType: 'thing', observations: ['mounted'] }] } });
    assert.match(text(await caller.callTool({ name: 'mem_read_graph', arguments: {} })), /mounted/);
    const unknown = await caller.callTool({ name: 'every_nope', arguments: {} }).catch((e: { code: number; message: string }) => e);
    assert.equal((unknown as { code: number }).code, -32602);
  });

  it('reads resources through rewritten URIs and templates; gets a prompt; routes completions', async () => {
    const resources = (await caller.listResources()).resources.map((r) => r.uri);
    assert.ok(resources.includes('mcpkit+mount://mem/memory://knowledge-graph'), resources.join());
    const doc = resources.find((u) => u.startsWith('mcpkit+mount://every/demo://resource/static/'))!;
    const read = await caller.readResource({ uri: doc });
    assert.equal(read.contents[0]!.uri, doc.slice('mcpkit+mount://every/'.length), 'contents keep the source’s URI');
    const templates = (await caller.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.ok(templates.includes('mcpkit+mount://every/demo://resource/dynamic/text/{resourceId}'), templates.join());
    const dynamic = await caller.readResource({ uri: 'mcpkit+mount://every/demo://resource/dynamic/text/3' });
    assert.ok(dynamic.contents.length > 0);
    const prompt = await caller.getPrompt({ name: 'every_args-prompt', arguments: { city: 'Lyon', state: 'ARA' } });
    assert.match(JSON.stringify(prompt.messages), /Lyon/);
    const completed = await caller.complete({ ref: { type: 'ref/prompt', name: 'every_completable-prompt' }, argument: { name: 'department', value: 'E' } });
    assert.ok(completed.completion.values.length > 0 && completed.completion.values.every((v) => v.startsWith('E')), JSON.stringify(completed));
  });

  it('propagates list_changed from the in-process source', async () => {
    let changed = 0;
    caller.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    local.registerTool('late', {}, () => 'late');
    await eventually(() => changed > 0, 20_000, 'tools/list_changed at the official client');
    assert.ok((await allTools()).includes('local_late'));
    assert.deepEqual(mountErrors, []);
  });

  it('forwards a subscription to server-everything and relays its resources/updated with the URI rewritten', async () => {
    const updated: string[] = [];
    caller.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    const doc = (await caller.listResources()).resources.map((r) => r.uri).find((u) => u.startsWith('mcpkit+mount://every/demo://resource/static/'))!;
    await caller.subscribeResource({ uri: doc });
    await caller.callTool({ name: 'every_toggle-subscriber-updates', arguments: {} });
    await eventually(() => updated.includes(doc), 20_000, 'resources/updated of the rewritten URI');
    await caller.callTool({ name: 'every_toggle-subscriber-updates', arguments: {} });
    await caller.unsubscribeResource({ uri: doc });
  });

  it('relays progress from server-everything to the caller', async () => {
    const seen: number[] = [];
    const r = await caller.callTool({ name: 'every_trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    assert.match(text(r), /completed/);
    assert.deepEqual(seen, [1, 2, 3]);
  });

  it('propagates cancellation to the in-process source and to the stdio upstream', async () => {
    const controller = new AbortController();
    const pending = caller.callTool({ name: 'local_wait', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('enough'),
    });
    await assert.rejects(pending);
    await eventually(() => aborted.length === 1, 20_000, 'the in-process handler saw the abort');
    const upstream = new AbortController();
    const long = caller.callTool({ name: 'every_trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
      signal: upstream.signal,
      onprogress: () => upstream.abort('enough'),
    });
    await assert.rejects(long);
    await eventually(() => sentUpstream.includes('notifications/cancelled'), 20_000, 'the mount cancelled the upstream request');
  });
});
