/**
 * The web-standard path reads what it needs of a `Request` once, and a complete JSON reply
 * carries the one header a runtime sends on its fast path: `handler.fetch` reads the URL and
 * the `Host` header once each (the guard's reading is handed to the core), and JSON replies
 * after `initialize` hold `Content-Type` alone (no `Mcp-Session-Id` repeated per reply).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeHandler, openSession, rpc } from '../../../test/helpers/http/server-harness.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** A `Request` that counts the reads of its URL and of each header name (the way a runtime's own request is read). */
function countingRequest(body: unknown, headers: Record<string, string>): { request: Request; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const count = (name: string): void => {
    reads.set(name, (reads.get(name) ?? 0) + 1);
  };
  class CountingHeaders extends Headers {
    override get(name: string): string | null {
      count(name.toLowerCase());
      return super.get(name);
    }
  }
  const counted = new CountingHeaders({
    host: '127.0.0.1:3000',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...headers,
  });
  class CountingRequest extends Request {
    override get url(): string {
      count('(url)');
      return super.url;
    }
    override get headers(): Headers {
      return counted;
    }
  }
  return { request: new CountingRequest('http://127.0.0.1:3000/mcp', { method: 'POST', body: JSON.stringify(body) }), reads };
}

test('handler.fetch reads the URL and the Host header once per request, in both eras', async () => {
  const handler = makeHandler({ responseMode: 'json' });
  const sessionId = await openSession(handler);
  const session = countingRequest(rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }), {
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-11-25',
  });
  const res = await handler.fetch(session.request);
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as any).id, 1);
  assert.equal(session.reads.get('(url)'), 1, 'the URL is read once');
  assert.equal(session.reads.get('host'), 1, 'Host is read once');
  const stateless = countingRequest(rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: META }), {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'echo',
  });
  const res2 = await handler.fetch(stateless.request);
  assert.equal(res2.status, 200);
  assert.equal(((await res2.json()) as any).id, 2);
  assert.equal(stateless.reads.get('(url)'), 1, 'the URL is read once');
  assert.equal(stateless.reads.get('host'), 1, 'Host is read once');
  await handler.close();
});

test('a JSON reply after initialize carries Content-Type alone; the initialize reply still assigns the session', async () => {
  const handler = makeHandler({ responseMode: 'json' });
  const sessionId = await openSession(handler); // asserts the initialize reply's Mcp-Session-Id
  const res = await handler.fetch(
    new Request('http://localhost:3000/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify(rpc(1, 'tools/list')),
    }),
  );
  assert.equal(res.status, 200);
  const names: string[] = [];
  res.headers.forEach((value, name) => {
    names.push(`${name}: ${value}`);
  });
  assert.deepEqual(names, ['content-type: application/json']);
  assert.equal(((await res.json()) as any).id, 1);
  await handler.close();
});
