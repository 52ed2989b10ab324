/**
 * What a stdio client's `connect()` and requests reject with when the server process ends on
 * its own: the ProcessExitedError itself (docs/transports.md checks `instanceof
 * ProcessExitedError`), with the exit code and stderr.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../client/client.js';
import { ProcessExitedError, StdioClientTransport } from './client-transport.js';

test('connect() to a server that exits before answering rejects with a ProcessExitedError', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['-e', 'process.stderr.write("no config found\\n"); setTimeout(() => process.exit(3), 50)'],
  });
  const client = new Client({ name: 'c', version: '1' });
  const error = await client.connect(transport).then(
    () => assert.fail('connected'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ProcessExitedError, `rejected with ${String(error)}`);
  assert.equal(error.exitCode, 3);
  assert.match(error.stderr, /no config found/);
  assert.match(transport.stderrTail(), /no config found/);
});

test('connect() with a command that cannot start rejects with a ProcessExitedError', async () => {
  const client = new Client({ name: 'c', version: '1' });
  const error = await client.connect(new StdioClientTransport({ command: '/nonexistent/mcp-server' })).then(
    () => assert.fail('connected'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ProcessExitedError, `rejected with ${String(error)}`);
  assert.match(error.message, /could not be started/);
});
