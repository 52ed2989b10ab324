import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpServer } from '../../server/server.js';
import { createStreamableHttpHandler } from './handler.js';
import { InboundBudget } from './inbound.js';
import { describeWebRequest } from './web.js';

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

/**
 * A `Request` as a runtime's server hands one over (a declared Content-Length), counting
 * every access to `body`: on Bun asking for it builds a JS stream.
 */
function counted(init: RequestInit & { headers: Record<string, string> }, url = 'http://127.0.0.1/mcp'): { request: Request; bodyReads: () => number } {
  const request = new Request(url, init);
  let reads = 0;
  const real = Object.getOwnPropertyDescriptor(Request.prototype, 'body')!.get!;
  Object.defineProperty(request, 'body', {
    get() {
      reads++;
      return real.call(this) as ReadableStream<Uint8Array> | null;
    },
  });
  return { request, bodyReads: () => reads };
}

test('web path: a body of declared length is read whole by text(), without touching request.body; a GET never touches it', async () => {
  const handler = createStreamableHttpHandler({ server: new McpServer({ name: 't', version: '1' }) });
  const post = counted({
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'content-length': String(INIT.length) },
    body: INIT,
  });
  const response = await handler.fetch(post.request);
  assert.equal(response.status, 200);
  assert.match(await response.text(), /"protocolVersion":"2025-11-25"/);
  assert.equal(post.bodyReads(), 0);
  const get = counted({ method: 'GET', headers: { accept: 'text/event-stream' } });
  const refused = await handler.fetch(get.request);
  await refused.body?.cancel();
  assert.equal(get.bodyReads(), 0);
  await handler.close();
});

test('web path: a declared length within the limit reserves it in the budget and gives it back; text past the limit is still refused (413)', async () => {
  const budget = new InboundBudget(1000);
  const ok = describeWebRequest(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-length': '5' }, body: 'hello' }), budget);
  assert.equal(typeof ok.body, 'function');
  assert.equal(await (ok.body as (max: number) => Promise<string>)(100), 'hello');
  assert.equal(budget.held, 0);
  // an in-process Request may lie about its length: text longer than the limit is refused all the same
  const liar = describeWebRequest(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-length': '5' }, body: 'x'.repeat(200) }), budget);
  await assert.rejects((liar.body as (max: number) => Promise<string>)(100), /exceeds 100 bytes/);
  assert.equal(budget.held, 0);
  // a declared length that does not fit the budget is refused before anything is read
  const big = describeWebRequest(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-length': '2000' }, body: 'y'.repeat(2000) }),
    budget,
  );
  await assert.rejects(
    (big.body as (max: number) => Promise<string>)(4000),
    (error: Error) => error.name === 'BodyBudgetError' || /budget|inbound/i.test(error.message),
  );
  assert.equal(budget.held, 0);
  // Content-Length: 0 reads nothing
  const empty = describeWebRequest(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-length': '0' } }), budget);
  assert.equal(await (empty.body as (max: number) => Promise<string>)(100), '');
});
