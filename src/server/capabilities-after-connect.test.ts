/**
 * The capabilities are fixed when a server starts serving (spec: Lifecycle › Initialization:
 * they are negotiated in `initialize`). A tool, resource or prompt registered afterwards is
 * either of a kind declared up front (`capabilities` option: it works, with list_changed) or
 * refused at registration with a TypeError naming the option — not a server whose clients
 * later get "needs the tools capability" for every call. Real clients over the in-memory
 * transport.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectInMemory } from '../testing/in-memory.js';
import { McpServer } from './server.js';

test('registering after connect a kind the server did not declare throws a TypeError naming the capabilities option', async () => {
  const server = new McpServer({ name: 'late', version: '1.0.0' });
  const pair = await connectInMemory(server);
  try {
    assert.equal(pair.client.serverCapabilities?.tools, undefined);
    assert.throws(
      () => server.registerTool('late', {}, () => 'x'),
      (e: unknown) =>
        e instanceof TypeError &&
        /^Cannot register tool "late": this server already serves without the "tools" capability/.test(e.message) &&
        e.message.includes('capabilities: { tools: { listChanged: true } }'),
    );
    assert.throws(
      () => server.registerRawTool({ name: 'raw', inputSchema: { type: 'object' } }, () => ({ content: [] })),
      /capabilities: \{ tools: \{ listChanged: true \} \}/,
    );
    assert.throws(
      () => server.registerPrompt('p', {}, () => ({ messages: [] })),
      /Cannot register prompt "p".*capabilities: \{ prompts: \{ listChanged: true \} \}/,
    );
    assert.throws(
      () => server.registerResource('file:///a', { name: 'a' }, () => ({ contents: [] })),
      /Cannot register resource file:\/\/\/a.*capabilities: \{ resources: \{ subscribe: true, listChanged: true \} \}/,
    );
    assert.throws(
      () => server.registerResourceTemplate('file:///{x}', { name: 'x' }, () => ({ contents: [] })),
      /Cannot register resource template file:\/\/\/\{x\}/,
    );
    assert.equal(server.tools.size + server.prompts.size + server.resources.size, 0, 'nothing was registered');
  } finally {
    await pair.close();
  }
});

test('registering before serving needs nothing declared; after ready() the capabilities are fixed too', async () => {
  const server = new McpServer({ name: 'early', version: '1.0.0' });
  server.registerTool('early', {}, () => 'x');
  await server.ready();
  server.registerTool('later', {}, () => 'y'); // tools were declared: fine
  assert.throws(() => server.registerPrompt('p', {}, () => ({ messages: [] })), /"prompts" capability/);
});

test('declared up front, tools added after connect are listed, announced and callable', async () => {
  const server = new McpServer({ name: 'declared', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } } });
  const pair = await connectInMemory(server);
  try {
    assert.deepEqual(pair.client.serverCapabilities?.tools, { listChanged: true });
    assert.deepEqual((await pair.client.listTools()).tools, []);
    const announced = new Promise<void>((resolve) => pair.client.on('notifications/tools/list_changed', () => resolve()));
    server.registerTool('added', { inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, ({ n }) => `n=${n}`);
    await announced;
    assert.deepEqual(
      (await pair.client.listTools()).tools.map((t) => t.name),
      ['added'],
    );
    assert.deepEqual(await pair.client.callTool({ name: 'added', arguments: { n: 2 } }), { content: [{ type: 'text', text: 'n=2' }] });
    server.registerPrompt('hello', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }));
    assert.equal((await pair.client.getPrompt('hello')).messages.length, 1);
  } finally {
    await pair.close();
  }
});
