/**
 * `rateLimit`'s table of buckets (middleware.ts): one bucket per key, the oldest dropped past
 * `maxKeys` — also when a connection remembers it as the bucket of its last call (it is then
 * looked up again, and starts full). Driven directly with interceptor contexts (unit test); the
 * behaviour over real connections is in test/transcripts/middleware.test.ts and
 * src/http/server/stateless/scopes.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpError } from '../jsonrpc/errors.js';
import type { InterceptContext, Interceptor } from './interceptors.js';
import { RATE_LIMITED_CODE, rateLimit } from './middleware.js';

/** A call of `tools/call` with `key`, on connection `connection` (any object stands for one). */
const callFor = (key: string, connection: object): InterceptContext & { key: string } =>
  ({ direction: 'incoming', kind: 'request', method: 'tools/call', params: undefined, key, connection }) as unknown as InterceptContext & { key: string };

/** `interceptor` as one connection would run it. */
const on = (interceptor: Interceptor) => {
  const connection = {};
  return (key: string) => Promise.resolve().then(() => interceptor.intercept(callFor(key, connection), async () => 'ok'));
};

async function outcome(handler: (key: string) => Promise<unknown>, key: string): Promise<string> {
  try {
    return (await handler(key)) as string;
  } catch (error) {
    assert.ok(error instanceof McpError && error.code === RATE_LIMITED_CODE);
    return 'limited';
  }
}

describe('rateLimit buckets', () => {
  it('drops the oldest bucket past maxKeys, even the one used last', async () => {
    const mw = rateLimit({ limit: 1, windowMs: 60_000, maxKeys: 1, now: () => 0, keyOf: (ctx) => (ctx as { key?: string }).key });
    const first = on(mw);
    const second = on(mw);
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
    const first = on(mw);
    const second = on(mw);
    assert.equal(await outcome(first, 'p'), 'ok');
    assert.equal(await outcome(second, 'p'), 'ok');
    assert.equal(await outcome(first, 'p'), 'limited');
    assert.equal(await outcome(second, 'q'), 'ok');
  });
});
