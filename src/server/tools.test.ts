/**
 * `tools/call` answers at once when it can: `ToolRegistry.callHandler()` (what the server's method
 * table runs) returns the result itself when the schema checks and the handler answered at
 * once, a promise when any of them returned one; `call` always returns a promise.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { McpError } from '../jsonrpc/errors.js';
import { isThenable } from '../jsonrpc/values.js';
import type { ServerRequestContext } from './context.js';
import { McpServer } from './server.js';

const NO_CTX = undefined as unknown as ServerRequestContext;

async function registry() {
  const server = new McpServer({ name: 'tools-test', version: '1.0.0' });
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;
  server.registerTool('echo', { inputSchema: text }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('later', { inputSchema: text }, async ({ text }) => ({ content: [{ type: 'text', text: `later ${text}` }] }));
  server.registerTool('refuses', {}, () => {
    throw new McpError(-32042, 'needs a URL elicitation');
  });
  server.registerTool('breaks', {}, () => {
    throw new Error('disk full');
  });
  server.registerTool('typed', { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, () => ({
    structuredContent: { n: 'not a number' as unknown as number },
  }));
  // an asynchronous refinement: zod's Standard Schema validate returns a promise for it
  server.registerTool('checked', { inputSchema: z.object({ code: z.string().refine(async (c) => c === 'ok', 'wrong code') }) }, ({ code }) => `code ${code}`);
  await server.tools.ready();
  return server.tools;
}

test('tools/call: synchronous steps give the result itself, an asynchronous one a promise', async () => {
  const tools = await registry();
  const call = tools.callHandler();
  const now = call({ name: 'echo', arguments: { text: 'hi' } }, NO_CTX);
  assert.equal(isThenable(now), false);
  assert.deepEqual(now, { content: [{ type: 'text', text: 'hi' }] });
  const invalid = call({ name: 'echo', arguments: { text: 1 } }, NO_CTX);
  assert.equal(isThenable(invalid), false);
  assert.equal((invalid as { isError?: boolean }).isError, true);

  const later = call({ name: 'later', arguments: { text: 'hi' } }, NO_CTX);
  assert.equal(isThenable(later), true);
  assert.deepEqual(await later, { content: [{ type: 'text', text: 'later hi' }] });

  const checked = call({ name: 'checked', arguments: { code: 'ok' } }, NO_CTX);
  assert.equal(isThenable(checked), true, 'the input check returned a promise');
  assert.deepEqual(await checked, { content: [{ type: 'text', text: 'code ok' }] });
  const wrong = await call({ name: 'checked', arguments: { code: 'no' } }, NO_CTX);
  assert.equal(wrong.isError, true);
  assert.match((wrong.content[0] as { text: string }).text, /wrong code/);

  // the output schema is enforced on the synchronous path too
  const typed = call({ name: 'typed', arguments: {} }, NO_CTX);
  assert.equal(isThenable(typed), false);
  assert.match((typed as { content: Array<{ text: string }> }).content[0]!.text, /does not match its output schema/);
});

test('tools/call: failures at once are thrown (protocol errors) or tool errors; call() turns throws into rejections', async () => {
  const tools = await registry();
  const call = tools.callHandler();
  assert.throws(
    () => call({ name: 'refuses', arguments: {} }, NO_CTX),
    (e: unknown) => e instanceof McpError && e.code === -32042,
  );
  assert.throws(
    () => call({ name: 'nope', arguments: {} }, NO_CTX),
    (e: unknown) => e instanceof McpError && e.code === -32602,
  );
  const broke = call({ name: 'breaks', arguments: {} }, NO_CTX);
  assert.deepEqual(broke, { content: [{ type: 'text', text: 'disk full' }], isError: true });
  await assert.rejects(tools.call({ name: 'refuses', arguments: {} }, NO_CTX), (e: unknown) => e instanceof McpError && e.code === -32042);
  await assert.rejects(tools.call({ name: 'nope', arguments: {} }, NO_CTX), (e: unknown) => e instanceof McpError && e.code === -32602);
  assert.deepEqual(await tools.call({ name: 'echo', arguments: { text: 'x' } }, NO_CTX), { content: [{ type: 'text', text: 'x' }] });
});
