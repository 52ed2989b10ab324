/**
 * The POST checks shared by every path of the Streamable HTTP server. The Accept rule is
 * 2025-03-26 › Transports › Streamable HTTP › Sending Messages to the Server: the client
 * MUST list both `application/json` and `text/event-stream` (406 otherwise, RFC 9110
 * § 15.5.7); media ranges per RFC 9110 § 12.5.1.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { check } from '../../../test/abuse/chunk-splits.js';
import { accepts, classifyPost, endpointPostRefusal, PostBody } from './post-checks.js';
import type { HttpRequest } from './types.js';

function request(headers: Record<string, string>): HttpRequest {
  return { method: 'POST', url: '/mcp', headers: (name) => headers[name] ?? null };
}

const range = fc.constantFrom(
  'application/json',
  'APPLICATION/JSON',
  'application/*',
  'text/event-stream',
  'Text/Event-Stream',
  'text/*',
  '*/*',
  'text/html',
  'application/xml',
  'application/json-seq',
  'text/event-streams',
  '',
  ' ',
  '*',
  'application',
);
const param = fc.constantFrom('', ';q=0.9', '; charset=utf-8', ';', ' ;q=0');
const acceptValue = fc
  .array(
    fc.tuple(fc.constantFrom('', ' ', '  '), range, param).map((p) => p.join('')),
    { maxLength: 5 },
  )
  .map((parts) => parts.join(','));

test('the one-pass Accept check of a POST agrees with accepts() for both media types', () => {
  check(
    fc.property(acceptValue, (accept) => {
      const admitted = accepts(accept, 'application/json') && accepts(accept, 'text/event-stream');
      const reply = endpointPostRefusal(request({ accept, 'content-type': 'application/json' }));
      assert.equal(reply === undefined, admitted, JSON.stringify(accept));
      if (reply !== undefined) assert.equal(reply.status, 406, JSON.stringify(accept));
    }),
    500,
  );
  assert.equal(endpointPostRefusal(request({ 'content-type': 'application/json' }))?.status, 406, 'no Accept header');
});

test('classifyPost: empty batch and initialize in a batch are 400 -32600; a single invalid value carries its id', () => {
  // JSON-RPC 2.0 § 6: an empty array is an invalid request; 2025-03-26 › Lifecycle: initialize MUST NOT be part of a batch
  for (const value of [
    [],
    [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'initialize', params: {} },
    ],
  ]) {
    const reply = classifyPost(value);
    assert.ok(!(reply instanceof PostBody));
    assert.equal(reply.status, 400);
    assert.equal((JSON.parse(reply.body!) as { error: { code: number } }).error.code, -32600);
  }
  const invalid = classifyPost({ jsonrpc: '2.0', id: 7, method: 42 });
  assert.ok(!(invalid instanceof PostBody));
  assert.deepEqual((JSON.parse(invalid.body!) as { id: unknown }).id, 7);
  const batch = classifyPost([{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/progress' }, 'junk']);
  assert.ok(batch instanceof PostBody);
  assert.deepEqual([batch.ids, batch.batch, batch.hasInvalid, batch.initialize, batch.replyId], [['a'], true, true, false, null]);
  const init = classifyPost({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
  assert.ok(init instanceof PostBody);
  assert.deepEqual([init.initialize, init.replyId], [true, 0]);
});
