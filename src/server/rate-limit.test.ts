/**
 * `rateLimit`'s table of buckets (middleware.ts): one bucket per key, the oldest dropped past
 * `maxKeys` — also when a connection remembers it as the bucket of its last call (it is then
 * looked up again, and starts full). Driven directly with call contexts (unit test); the
 * behaviour over real connections is in test/transcripts/middleware.test.ts and
 * src/http/server/stateless/scopes.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import type { CallContext, MethodHandler } from '../protocol/middleware.js';
import { RATE_LIMITED_CODE, rateLimit } from './middleware.js';

const ok: MethodHandler = async () => 'ok';
const ctxFor = (key: string): CallContext & { key: string } => ({ direction: 'incoming', kind: 'request', key });

async function outcome(handler: MethodHandler, key: string): Promise<string> {
  try {
    return (await handler('tools/call', undefined, ctxFor(key))) as string;
  } catch (error) {
    assert.ok(error instanceof McpError && error.code === RATE_LIMITED_CODE);
    return 'limited';
  }
}

describe('rateLimit buckets', () => {
  it('drops the oldest bucket past maxKeys, even one a connection used last', async () => {
    const mw = rateLimit({ limit: 1, windowMs: 60_000, maxKeys: 1, now: () => 0, keyOf: (ctx) => (ctx as { key?: string }).key });
    const first = mw(ok);
    const second = mw(ok);
    assert.equal(await outcome(first, 'a'), 'ok');
    assert.equal(await outcome(first, 'a'), 'limited');
    // another connection's key takes the only place: a's bucket is dropped
    assert.equal(await outcome(second, 'b'), 'ok');
    // the first connection's next call with key a starts a full bucket (and drops b's)
    assert.equal(await outcome(first, 'a'), 'ok');
    assert.equal(await outcome(second, 'b'), 'ok');
    assert.equal(await outcome(second, 'b'), 'limited');
  });

  it('counts one key together across connections', async () => {
    const mw = rateLimit({ limit: 2, windowMs: 60_000, now: () => 0, keyOf: (ctx) => (ctx as { key?: string }).key });
    const first = mw(ok);
    const second = mw(ok);
    assert.equal(await outcome(first, 'p'), 'ok');
    assert.equal(await outcome(second, 'p'), 'ok');
    assert.equal(await outcome(first, 'p'), 'limited');
    assert.equal(await outcome(second, 'q'), 'ok');
  });
});
