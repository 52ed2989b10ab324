/**
 * A typed tool's failures reach the developer (`ServerOptions.onError`, stderr by default)
 * while the client keeps getting its tool error; results of the wrong shape are refused at
 * run time with an error naming the tool (the compiler refuses them too: infer.test.ts).
 * A real client over the in-memory transport; the default reporter in a child process.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DIST } from '../../test/helpers/repo.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { connectInMemory } from '../testing/in-memory.js';
import { InMemoryTransport } from '../transport/memory.js';
import { McpServer } from './server.js';
import { ToolHandlerError } from './tools.js';

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

test('a handler that throws: the client gets the message as a tool error, onError a ToolHandlerError naming the tool with the stack', async () => {
  const reported: Error[] = [];
  const server = new McpServer({ name: 'failures', version: '1.0.0' }, { onError: (e) => reported.push(e) });
  server.registerTool('save', {}, async () => {
    throw new RangeError('disk full');
  });
  server.registerTool('save-now', {}, () => {
    throw new Error('read-only file system');
  });
  const pair = await connectInMemory(server);
  try {
    const later = await pair.client.callTool({ name: 'save', arguments: {} });
    assert.deepEqual(later, { content: [{ type: 'text', text: 'disk full' }], isError: true }, "the client's message is as it was");
    const now = await pair.client.callTool({ name: 'save-now', arguments: {} });
    assert.equal(textOf(now), 'read-only file system');
    assert.equal(reported.length, 2);
    const [first, second] = reported as [ToolHandlerError, ToolHandlerError];
    assert.ok(first instanceof ToolHandlerError);
    assert.equal(first.tool, 'save');
    assert.equal(first.message, 'tool save threw RangeError: disk full');
    assert.ok(first.cause instanceof RangeError);
    assert.match(first.stack ?? '', /^RangeError: disk full\n\s+at /, 'the thrown error’s stack is kept');
    assert.equal(second.tool, 'save-now');
  } finally {
    await pair.close();
  }
});

test('the default onError prints one line per tool failure on stderr, and the stack with MCPKIT_DEBUG=1', () => {
  const url = (path: string) => pathToFileURL(join(DIST, path)).href;
  const script = `
    import { InMemoryTransport } from ${JSON.stringify(url('index.js'))};
    import { McpServer } from ${JSON.stringify(url('server/index.js'))};
    import { Client } from ${JSON.stringify(url('client/index.js'))};
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('weather', {}, function fetchForecast() { throw new Error('upstream said 503'); });
    const [a, b] = InMemoryTransport.createPair();
    await server.connect(a);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(b);
    const result = await client.callTool({ name: 'weather', arguments: {} });
    process.stdout.write(JSON.stringify(result));
    await client.close();
  `;
  const run = (debug: string | undefined) => {
    const env = { ...process.env };
    delete env.MCPKIT_DEBUG;
    if (debug !== undefined) env.MCPKIT_DEBUG = debug;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), { content: [{ type: 'text', text: 'upstream said 503' }], isError: true });
    return child.stderr;
  };
  const plain = run(undefined);
  assert.equal(plain, 'mcpkit server: ToolHandlerError: tool weather threw Error: upstream said 503\n');
  const debug = run('1');
  assert.match(debug, /^mcpkit server: ToolHandlerError: tool weather threw Error: upstream said 503\n/);
  assert.match(debug, /\nError: upstream said 503\n\s+at .*fetchForecast /, 'the stack is where the handler threw');
});

test('a result of the wrong shape is refused at run time with an error naming the tool', async () => {
  const reported: Error[] = [];
  const server = new McpServer({ name: 'shapes', version: '1.0.0' }, { onError: (e) => reported.push(e) });
  // what JavaScript callers, casts and `any` can return (the compiler refuses each)
  const wrong: Record<string, unknown> = {
    'text-member': { text: 'hi' },
    'content-string': { content: 'hello' },
    contents: { contents: [{ type: 'text', text: 'x' }] },
    result: { result: 42 },
    'no-type': { content: [{ text: 'x' }] },
    'bad-text': { content: [{ type: 'text', text: 3 }] },
    'bad-image': { content: [{ type: 'image', data: 'AAAA' }] },
    'structured-array': { structuredContent: [1, 2] },
    'is-error-string': { content: [], isError: 'yes' },
    number: 42,
    nothing: undefined,
  };
  for (const [name, value] of Object.entries(wrong)) server.registerTool(name, {}, () => value as never);
  server.registerTool('structured-text', { outputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, (() => 'text') as never);
  const pair = await connectInMemory(server);
  try {
    const expected: Record<string, RegExp> = {
      'text-member': /^Tool text-member returned an object without "content" or "structuredContent" \(its members: text\); return a string, \{ content: /,
      'content-string': /^Tool content-string returned "content" that is a string, not an array of content blocks/,
      contents: /^Tool contents returned an object without "content" or "structuredContent" \(its members: contents\)/,
      result: /^Tool result returned an object without "content" or "structuredContent" \(its members: result\)/,
      'no-type': /^Tool no-type returned content\[0\] has no "type"/,
      'bad-text': /^Tool bad-text returned content\[0\] of type "text" without a string "text"/,
      'bad-image': /^Tool bad-image returned content\[0\] of type "image" without a string "data" \(base64\) and "mimeType"/,
      'structured-array': /^Tool structured-array returned "structuredContent" that is an array; it must be a JSON object/,
      'is-error-string': /^Tool is-error-string returned "isError" that is a string; it must be a boolean/,
      number: /^Tool number returned a number; return a string/,
      nothing: /^Tool nothing returned undefined; return a string/,
      'structured-text': /^Tool structured-text returned text but declares an output schema/,
    };
    for (const [name, pattern] of Object.entries(expected)) {
      const result = await pair.client.callTool({ name, arguments: {} });
      assert.equal(result.isError, true, name);
      assert.match(textOf(result), pattern, name);
    }
    assert.equal(reported.length, Object.keys(expected).length, 'each refusal went to onError too');
    assert.ok(reported.every((e) => e instanceof ToolHandlerError && expected[e.tool]!.test(e.message)));
  } finally {
    await pair.close();
  }
});

test('results of the right shapes pass unchanged', async () => {
  const server = new McpServer({ name: 'shapes-ok', version: '1.0.0' }, { onError: (e) => assert.fail(e) });
  server.registerTool('text', {}, () => 'hi');
  server.registerTool('content', {}, () => ({
    content: [
      { type: 'text', text: 'a' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///a', name: 'a' },
      { type: 'resource', resource: { uri: 'file:///b', text: 'b' } },
    ],
  }));
  server.registerTool('structured', { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, () => ({
    structuredContent: { n: 1 },
  }));
  server.registerTool('structured-error', { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, () => ({
    content: [{ type: 'text', text: 'no n today' }],
    isError: true,
  }));
  const pair = await connectInMemory(server);
  try {
    assert.deepEqual(await pair.client.callTool({ name: 'text', arguments: {} }), { content: [{ type: 'text', text: 'hi' }] });
    assert.equal((await pair.client.callTool({ name: 'content', arguments: {} })).content.length, 4);
    assert.deepEqual(await pair.client.callTool({ name: 'structured', arguments: {} }), {
      content: [{ type: 'text', text: '{"n":1}' }],
      structuredContent: { n: 1 },
    });
    assert.deepEqual(await pair.client.callTool({ name: 'structured-error', arguments: {} }), {
      content: [{ type: 'text', text: 'no n today' }],
      isError: true,
    });
  } finally {
    await pair.close();
  }
});

test('a 2026-07-28 request that asks for input is not reported, even when the handler lets the signal through a catch', async () => {
  const reported: Error[] = [];
  const server = new McpServer({ name: 'mrtr', version: '1.0.0' }, { onError: (e) => reported.push(e) });
  server.registerTool('ask', {}, async (_args, ctx) => {
    try {
      const answer = await ctx.elicitForm({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      return `hello ${String((answer.content as JSONObject | undefined)?.name)}`;
    } catch (error) {
      throw new Error(`wrapped: ${(error as Error).message}`);
    }
  });
  const [serverEnd, peer] = InMemoryTransport.createPair();
  await server.connect(serverEnd);
  const answered = new Promise<JSONObject>((resolve) =>
    peer.start({ message: (data) => resolve(JSON.parse(data as string) as JSONObject), error: () => {}, closed: () => {} }),
  );
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  };
  await peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {}, _meta } });
  const response = await answered;
  assert.equal((response.result as JSONObject).resultType, 'input_required');
  assert.deepEqual(reported, []);
  await server.close();
});
