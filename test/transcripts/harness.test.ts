/**
 * The harness must catch what it is there to catch: a schema violation in an emitted
 * message, and an allowance that matches nothing.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpServer } from '../../src/server/server.js';
import { Harness, handshake, request, result } from './harness.js';

function brokenServer(): McpServer {
  const server = new McpServer({ name: 'broken', version: '1.0.0' });
  // A raw tool's result goes on the wire as returned: `content` must be an array.
  server.registerRawTool({ name: 'broken', inputSchema: { type: 'object' } }, () => ({ content: 'not an array' }) as never);
  return server;
}

test('a malformed result is reported as a violation of the negotiated revision', async () => {
  const h = new Harness();
  try {
    const c = await h.raw(brokenServer());
    await c.run([...handshake('2025-06-18'), { send: request(1, 'tools/call', { name: 'broken' }) }, { expect: result(1, { content: 'not an array' }) }]);
    assert.throws(
      () => h.assertClean(),
      (e: Error) => /\[2025-06-18\] tools\/call result \(CallToolResult\): \/result\/content must be array/.test(e.message),
    );
  } finally {
    await h.close();
  }
});

test('an allowance that matches nothing fails the test', async () => {
  const h = new Harness();
  try {
    const c = await h.raw(brokenServer());
    await c.init();
    h.allowViolation(/never reported/);
    assert.throws(() => h.assertClean(), /allowed violation\(s\) never reported/);
  } finally {
    await h.close();
  }
});
