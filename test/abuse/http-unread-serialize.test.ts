/**
 * Fault and abuse suite, HTTP server: while unread replies fill the outbound budget's admitted
 * share, a new large reply is refused *before it is serialized* (no text of it is ever made),
 * and its client still gets the JSON-RPC -32000 error for its request (503 in JSON mode, an
 * error event in SSE mode); a small reply is still sent. In-process, against mcpkit's server
 * on 127.0.0.1 with a budget of its own; whether a reply was serialized is seen by a `toJSON`
 * in its result, which only serialization calls.
 *
 * Old behaviour: the budget was checked by the Node adapter when it received the reply's
 * text, so a refused reply had been serialized (its text and SSE framing made) first.
 */

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { OutboundBudget, serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/server.js';
import { eventually, neverReadingPost, openSession, REVISION } from './http-child.js';

const MiB = 1024 * 1024;

for (const responseMode of ['json', 'sse'] as const) {
  test(`abuse (${responseMode}): past the budget's admitted share a large reply is refused unserialized, with the same -32000 error; a small one is sent`, {
    timeout: 60_000,
  }, async () => {
    /** The tags of the results serialized so far. */
    const serialized: string[] = [];
    const server = new McpServer({ name: 'budget', version: '1.0.0' });
    server.registerTool(
      'blob',
      { description: 'a result of `size` characters', inputSchema: { type: 'object', properties: { size: { type: 'number' }, tag: { type: 'string' } } } },
      (args: { size?: number; tag?: string }) => {
        const tag = args.tag ?? '';
        return { content: [{ type: 'text', text: 'b'.repeat(args.size ?? 1) }], _meta: { probe: { toJSON: () => (serialized.push(tag), tag) } } };
      },
    );
    // admitted share: 16 MiB; a laggard's 32 MiB reply keeps most of it waiting, under the whole 48 MiB
    const budget = new OutboundBudget(48 * MiB);
    const reports: Error[] = [];
    const http = await serveNode(createStreamableHttpHandler({ server, responseMode }), { budget, stallTimeoutMs: 60_000, onError: (e) => reports.push(e) });
    let laggard: Socket | undefined;
    const client = new Client({ name: 'budget-client', version: '1.0.0' });
    try {
      const sessionId = await openSession(http.url);
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'blob', arguments: { size: 32 * MiB, tag: 'laggard' } } });
      laggard = await neverReadingPost(http.url, body, { 'mcp-session-id': sessionId, 'mcp-protocol-version': REVISION });
      assert.ok(await eventually(() => budget.total > 16 * MiB, 20_000), `the laggard's reply waits (${budget.total} of ${budget.maxTotalQueuedBytes})`);
      assert.deepEqual(serialized, ['laggard'], 'a reply is admitted while nothing waits');

      await client.connect(new StreamableHttpClientTransport({ url: http.url, openGetStream: false }));
      const refused = await client.callTool({ name: 'blob', arguments: { size: 1 * MiB, tag: 'large' } }).then(
        () => assert.fail('the large reply was sent'),
        (e: unknown) => e,
      );
      assert.ok(refused instanceof McpError && refused.code === -32000, `the client gets -32000 for its request: ${String(refused)}`);
      assert.match(refused.message, /The result of this request \(\d+ bytes\) was not sent: .*retry it later/);
      assert.ok(!serialized.includes('large'), 'the refused reply was never serialized');
      assert.ok(
        reports.some((e) => (e as { reason?: string }).reason === 'refused' && /refused a reply of \d+ bytes to request/.test(e.message)),
        'the refusal is reported',
      );

      const small = await client.callTool({ name: 'blob', arguments: { size: 1000, tag: 'small' } });
      assert.equal((small.content as Array<{ text: string }>)[0]!.text.length, 1000, 'a reply no larger than a slice is never refused');
      assert.ok(serialized.includes('small'));
    } finally {
      laggard?.destroy();
      await client.close();
      await http.close();
    }
  });
}
