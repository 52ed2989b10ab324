import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CallContext, composeLayers, fromMiddleware, type InnerHandler, type Layer, type Middleware } from './middleware.js';

const CTX: CallContext = { direction: 'incoming', kind: 'request', id: 1 };

test('composeLayers: a chain of layers answers at once and throws at once', () => {
  const seen: string[] = [];
  const tag =
    (name: string): Layer =>
    (next) =>
    (method, params, ctx) => {
      seen.push(name);
      return next(method, params, ctx);
    };
  const terminal: InnerHandler = (method) => {
    if (method === 'fail') throw new Error('refused');
    return { method };
  };
  const chain = composeLayers([tag('outer'), tag('inner')], terminal);
  assert.deepEqual(chain('m', undefined, CTX), { method: 'm' }, 'the value itself, not a promise');
  assert.deepEqual(seen, ['outer', 'inner'], 'the first registered runs outermost');
  assert.throws(() => chain('fail', undefined, CTX), /refused/);
});

test('fromMiddleware: a middleware gets a next that always returns a promise', async () => {
  const outcomes: unknown[] = [];
  // written against MethodHandler's contract: it calls .then on what next returns
  const chaining: Middleware = (next) => (method, params, ctx) =>
    next(method, params, ctx).then(
      (value) => (outcomes.push(['ok', value]), value),
      (error: unknown) => {
        outcomes.push(['failed', (error as Error).message]);
        throw error;
      },
    );
  const terminal: InnerHandler = (method) => {
    if (method === 'fail') throw new Error('refused');
    return method === 'later' ? Promise.resolve('deferred') : 'at once';
  };
  const chain = composeLayers([fromMiddleware(chaining)], terminal);
  assert.equal(await chain('now', undefined, CTX), 'at once');
  assert.equal(await chain('later', undefined, CTX), 'deferred');
  await assert.rejects(Promise.resolve(chain('fail', undefined, CTX)), /refused/, 'a synchronous throw reaches it as a rejection');
  assert.deepEqual(outcomes, [
    ['ok', 'at once'],
    ['ok', 'deferred'],
    ['failed', 'refused'],
  ]);
});
