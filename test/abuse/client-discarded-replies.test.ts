/**
 * A server's response the client discards unread — a stdio line over `maxLineBytes`, a
 * message over the session's `maxMessageChars`, or one nested deeper than `maxDepth` — fails
 * the request it answers at once, with an error that says so, instead of leaving it to wait
 * for its whole timeout. Real processes for stdio; the hostile in-memory server otherwise.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { StdioClientTransport } from '../../src/stdio/client-transport.js';
import { answerHandshake, HttpPeer, openSse } from './client-peer.js';
import { hostileServer } from './hostile-server.js';

const TIMEOUT_MS = 20_000;
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-discarded-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function failure(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await promise.then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

test('stdio: a response line over maxLineBytes fails its request at once', async () => {
  const server = join(dir, 'big-reply.mjs');
  writeFileSync(
    server,
    `let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let i = buffered.indexOf('\\n'); i >= 0; i = buffered.indexOf('\\n')) {
    const m = JSON.parse(buffered.slice(0, i));
    buffered = buffered.slice(i + 1);
    if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'big', version: '1' } } }) + '\\n');
    if (m.method === 'tools/call') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'x'.repeat(64 * 1024) }] } }) + '\\n');
    if (m.method === 'tools/list') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(0));
`,
  );
  const client = new Client({ name: 'c', version: '1' }, { onError: () => {} });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [server], maxLineBytes: 16 * 1024 }));
  try {
    const { error, ms } = await failure(client.callTool({ name: 'big', arguments: {} }, { timeoutMs: TIMEOUT_MS }));
    assert.ok(error instanceof LocalError && error.code === 'message_too_large', String(error));
    assert.match(error.message, /response to request \d+ exceeds the 16384-byte line limit \(maxLineBytes\)/);
    assert.ok(ms < TIMEOUT_MS / 2, `failed after ${ms} ms`);
    // the connection goes on
    assert.deepEqual((await client.listTools()).tools, []);
  } finally {
    await client.close();
  }
});

test('a response over maxMessageChars fails its request at once', async () => {
  const transport = hostileServer({
    tools: [],
    call: () => `{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"${'y'.repeat(20_000)}"}]}}`,
  });
  const client = new Client({ name: 'c', version: '1' }, { limits: { maxMessageChars: 10_000 }, onError: () => {} });
  await client.connect(transport);
  try {
    const { error, ms } = await failure(client.callTool({ name: 'big', arguments: {} }, { timeoutMs: TIMEOUT_MS }));
    assert.ok(error instanceof LocalError && error.code === 'message_too_large', String(error));
    assert.match(error.message, /exceeds the limit of 10000 characters \(maxMessageChars\)/);
    assert.ok(ms < TIMEOUT_MS / 2, `failed after ${ms} ms`);
  } finally {
    await client.close();
  }
});

test('a response nested deeper than maxDepth fails its request at once', async () => {
  const deep = '['.repeat(200) + ']'.repeat(200);
  const transport = hostileServer({ tools: [], call: () => `{"jsonrpc":"2.0","id":$ID,"result":{"content":[],"structuredContent":{"v":${deep}}}}` });
  const client = new Client({ name: 'c', version: '1' }, { onError: () => {} });
  await client.connect(transport);
  try {
    const { error, ms } = await failure(client.callTool({ name: 'deep', arguments: {} }, { timeoutMs: TIMEOUT_MS }));
    assert.ok(error instanceof LocalError && error.code === 'invalid_message', String(error));
    assert.match(error.message, /nests deeper than 64 levels/);
    assert.ok(ms < TIMEOUT_MS / 2, `failed after ${ms} ms`);
  } finally {
    await client.close();
  }
});

/** How a server writes one message as an SSE event: on one `data:` line, or over several. */
const SSE_SHAPES: Array<[string, (message: unknown) => string]> = [
  ['on one data line', (m) => `data: ${JSON.stringify(m)}\n\n`],
  // pretty-printed: the long line crosses the limit, the message closes on a later line
  [
    'pretty-printed over several data lines',
    (m) =>
      `${JSON.stringify(m, null, 1)
        .split('\n')
        .map((l) => `data: ${l}\n`)
        .join('')}\n`,
  ],
  // every line short: the lines together cross the limit
  [
    'split into short data lines',
    (m) =>
      `${JSON.stringify(m, null, 1)
        .replace(/"z{1000,}"/, (t) =>
          t
            .slice(1, -1)
            .match(/.{1,100}/g)!
            .map((p) => `"${p}"`)
            .join(',\n'),
        )
        .split('\n')
        .map((l) => `data: ${l}\n`)
        .join('')}\n`,
  ],
];

for (const [shape, encode] of SSE_SHAPES) {
  test(`Streamable HTTP: an SSE event over maxEventChars that holds a response (${shape}) fails its request at once`, { timeout: 60_000 }, async () => {
    const server = await HttpPeer.listen((r, res) => {
      if (answerHandshake(r, res)) return;
      const m = r.message;
      if (m !== undefined && !Array.isArray(m) && m.method === 'tools/call') {
        // the response, too big, on a stream the server then keeps open
        openSse(res);
        const text = shape.startsWith('split') ? ['z'.repeat(64 * 1024)] : 'z'.repeat(64 * 1024);
        res.write(encode({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'big' }], structuredContent: { text } } }));
        return;
      }
      if (m !== undefined && !Array.isArray(m) && m.method === 'tools/list') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }));
        return;
      }
      res.writeHead(400).end();
    });
    const transport = new StreamableHttpClientTransport({ url: server.url('/mcp'), maxEventChars: 16 * 1024 });
    const client = new Client({ name: 'c', version: '1' }, { onError: () => {} });
    try {
      await client.connect(transport);
      const { error, ms } = await failure(client.callTool({ name: 'big', arguments: {} }, { timeoutMs: TIMEOUT_MS }));
      assert.ok(error instanceof LocalError && error.code === 'message_too_large', String(error));
      assert.match(error.message, /response to request \d+ exceeds 16384 characters \(maxEventChars\)/);
      assert.ok(ms < TIMEOUT_MS / 2, `failed after ${ms} ms`);
    } finally {
      await client.close();
      await server.close();
    }
  });
}
