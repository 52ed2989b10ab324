/**
 * Abuse: lines longer than the stdio server's line limit (4 MiB by default). The server must
 * answer each with a JSON-RPC error at once (so the caller does not wait out its timeout),
 * skip the rest of the line in bounded memory, and keep serving the connection.
 *
 * Expected codes, JSON-RPC 2.0 section 5.1: -32600 Invalid Request for a line that is JSON as
 * far as the server looked but too large to be accepted (the same code the session gives a
 * message over its size limit); -32700 Parse error for a line that is visibly not JSON.
 * Section 5: the reply carries the request's id when it could be read, null otherwise; a
 * response or a notification is never answered (section 4.1, 5).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initializeLine, sleep, spawnDemo, stopChild } from './stdio-demo-child.js';

const OVER = 'x'.repeat(4 * 1024 * 1024 + 16); // one value that alone exceeds the 4 MiB line limit

interface Reply {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

test('an oversized stdio line gets a JSON-RPC error reply and the connection keeps working', { timeout: 120_000 }, async () => {
  const child = spawnDemo();
  child.stderr.resume();
  const replies: Reply[] = [];
  let tail = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (tail + chunk).split('\n');
    tail = lines.pop()!;
    for (const line of lines) if (line.length > 0) replies.push(JSON.parse(line) as Reply);
  });
  const send = (text: string): void => {
    child.stdin.write(text + '\n');
  };
  /** Waits (bounded) until `count` replies have arrived, and returns the newest ones. */
  const next = async (count: number): Promise<Reply[]> => {
    const from = replies.length;
    for (let i = 0; i < 1200 && replies.length < from + count; i++) await sleep(25);
    return replies.slice(from);
  };
  try {
    child.stdin.write(initializeLine('big'));
    assert.ok((await next(1))[0]?.result, 'initialized');
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

    // The id comes first: answered with that id.
    send(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"name":"echo","arguments":{"message":"${OVER}"}}}`);
    let [reply] = await next(1);
    assert.equal(reply?.id, 'first');
    assert.equal(reply?.error?.code, -32600);

    // The id comes last (the order the official TypeScript SDK writes): still recovered.
    send(`{"method":"tools/call","params":{"name":"echo","arguments":{"message":"${OVER}","nested":[{"a":"}\\"]"}]}},"jsonrpc":"2.0","id":42}`);
    [reply] = await next(1);
    assert.equal(reply?.id, 42);
    assert.equal(reply?.error?.code, -32600);

    // Not JSON at all: a parse error with id null.
    send(`this is not json ${OVER}`);
    [reply] = await next(1);
    assert.equal(reply?.id, null);
    assert.equal(reply?.error?.code, -32700);

    // A batch: the ids of its members are not worth digging out; one null-id error.
    send(`[{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"${OVER}"}}]`);
    [reply] = await next(1);
    assert.equal(reply?.id, null);
    assert.equal(reply?.error?.code, -32600);

    // A response and a notification are never answered; the next request shows nothing came.
    send(`{"jsonrpc":"2.0","id":99,"result":{"pad":"${OVER}"}}`);
    send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"${OVER}"}}`);
    send(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'tools/call', params: { name: 'echo', arguments: { message: 'still here' } } }));
    const after = await next(1);
    await sleep(100);
    assert.deepEqual(
      replies.slice(replies.length - after.length).map((r) => r.id),
      ['after'],
      'only the request after them was answered',
    );
    assert.deepEqual((after[0]?.result as { content?: unknown[] } | undefined)?.content, [{ type: 'text', text: 'still here' }]);
  } finally {
    await stopChild(child);
  }
});
