import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base64url, fromBase64url } from '../../jsonrpc/base64url.js';
import { McpError } from '../../jsonrpc/errors.js';
import {
  canonicalJson,
  checkInputResponses,
  InputRequiredSignal,
  InputRound,
  RequestStateCodec,
  validateElicitAnswer,
  validateRootsAnswer,
  validateSamplingAnswer,
} from './mrtr.js';

const params = { name: 'tool', arguments: { b: 1, a: [1, { y: 2, x: 1 }] } };

async function refused(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof McpError);
  assert.equal(err.code, -32602);
  return err.message;
}

describe('multi round-trip requests: request state', () => {
  it('round-trips answers for the same request, whatever the key order on the wire', async () => {
    const codec = new RequestStateCodec({ secret: 'a secret of sixteen+ bytes' });
    const state = await codec.seal({ k: { action: 'accept' } }, 'tools/call', params, undefined);
    const reordered = { arguments: { a: [1, { x: 1, y: 2 }], b: 1 }, name: 'tool', _meta: { anything: 1 }, inputResponses: {}, requestState: state };
    assert.deepEqual(await codec.open(state, 'tools/call', reordered, undefined), { k: { action: 'accept' } });
  });

  it('refuses altered, foreign, expired and malformed states', async () => {
    const codec = new RequestStateCodec({ secret: 'a secret of sixteen+ bytes', principal: (auth) => (auth as { sub?: string } | undefined)?.sub });
    const state = await codec.seal({}, 'tools/call', params, { sub: 'alice' });
    const [body, mac] = state.split('.');
    const forged = base64url(new TextEncoder().encode(JSON.stringify({ v: 1, x: Date.now() + 1e6, a: { k: 'forged' } })));
    assert.match(await refused(codec.open(`${forged}.${mac}`, 'tools/call', params, { sub: 'alice' })), /verification/);
    assert.match(await refused(codec.open(`${body}.${mac}x`, 'tools/call', params, { sub: 'alice' })), /malformed/);
    assert.match(await refused(codec.open(state + '-TAMPERED', 'tools/call', params, { sub: 'alice' })), /malformed/);
    await refused(codec.open(state, 'prompts/get', params, { sub: 'alice' }));
    await refused(codec.open(state, 'tools/call', { ...params, arguments: {} }, { sub: 'alice' }));
    await refused(codec.open(state, 'tools/call', params, { sub: 'bob' }));
    await refused(codec.open(state, 'tools/call', params, undefined));
    await refused(new RequestStateCodec({ secret: 'another secret of 16+ bytes' }).open(state, 'tools/call', params, { sub: 'alice' }));
    await refused(codec.open('nonsense', 'tools/call', params, undefined));
    const short = new RequestStateCodec({ secret: 'a secret of sixteen+ bytes', ttlMs: 1 });
    const old = await short.seal({}, 'tools/call', params, undefined);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.match(await refused(short.open(old, 'tools/call', params, undefined)), /expired/);
  });

  it('binds a state to the principal of mcpkit/auth auth info by default', async () => {
    const codec = new RequestStateCodec({ secret: 'a secret of sixteen+ bytes' });
    const alice = { issuer: 'https://as', subject: 'alice', clientId: 'app' };
    const state = await codec.seal({}, 'tools/call', params, alice);
    assert.deepEqual(await codec.open(state, 'tools/call', params, { ...alice }), {});
    await refused(codec.open(state, 'tools/call', params, { ...alice, subject: 'bob' }));
    await refused(codec.open(state, 'tools/call', params, undefined));
  });

  it('refuses weak secrets and bad lifetimes', () => {
    assert.throws(() => new RequestStateCodec({ secret: 'short' }), RangeError);
    assert.throws(() => new RequestStateCodec({ ttlMs: 0 }), RangeError);
  });

  it('canonical JSON and base64url helpers', () => {
    assert.equal(canonicalJson({ b: [2, { d: 1, c: undefined }], a: 'x' }), '{"a":"x","b":[2,{"d":1}]}');
    const bytes = new Uint8Array([0, 250, 251, 255]);
    assert.deepEqual(fromBase64url(base64url(bytes)), bytes);
    assert.equal(fromBase64url('a+b'), undefined);
  });
});

describe('multi round-trip requests: input rounds', () => {
  it('answers known keys, records the others and signals', () => {
    const round = new InputRound(
      { 'elicitation-1': { action: 'decline' } },
      { 'sampling-1': { role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } } },
    );
    assert.deepEqual(round.resolve(round.key('elicitation/create', undefined), { method: 'elicitation/create' }, validateElicitAnswer(undefined)), {
      action: 'decline',
    });
    assert.equal(round.resolve(round.key('sampling/createMessage', undefined), { method: 'sampling/createMessage' }, validateSamplingAnswer).model, 'm');
    assert.throws(() => round.resolve(round.key('roots/list', undefined), { method: 'roots/list' }, validateRootsAnswer), InputRequiredSignal);
    assert.throws(() => round.resolve(round.key('roots/list', 'mine'), { method: 'roots/list' }, validateRootsAnswer), InputRequiredSignal);
    assert.ok(round.hasPending);
    assert.deepEqual(Object.keys(round.pendingRequests()), ['roots-1', 'mine']);
    assert.deepEqual(Object.keys(round.carried()).sort(), ['elicitation-1', 'sampling-1']);
  });

  it('validates answers and the inputResponses container', () => {
    assert.throws(() => validateElicitAnswer(undefined)(12345, 'k'), McpError);
    assert.throws(
      () => validateElicitAnswer({ type: 'object', properties: { n: { type: 'string' } }, required: ['n'] })({ action: 'accept', content: {} }, 'k'),
      McpError,
    );
    assert.throws(() => validateSamplingAnswer({ role: 'assistant' }, 'k'), McpError);
    assert.throws(() => validateRootsAnswer({ roots: [{}] }, 'k'), McpError);
    assert.throws(() => checkInputResponses(null), McpError);
    assert.throws(() => checkInputResponses([]), McpError);
    assert.throws(() => checkInputResponses({ k: 1 }), McpError);
    assert.equal(checkInputResponses(undefined), undefined);
  });
});
