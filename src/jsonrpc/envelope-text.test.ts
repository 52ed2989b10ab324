/**
 * The envelope shortcut of the one serialization every transport uses: whatever the
 * message, the text is byte for byte what `JSON.stringify` writes, and the shortcut is
 * taken for the messages a session sends.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { envelopeText, resultResponseText } from './envelope-text.js';
import { serializeMessage } from './preset-json.js';

test('the messages a session sends take the shortcut and read as JSON.stringify writes them', () => {
  const messages: object[] = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello "world" \\ ✓ \u2028' } } },
    { jsonrpc: '2.0', id: 'req-7', method: 'ping' },
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 3, progress: 0.5, when: new Date(0) } },
    { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'ok' }] } },
    { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    { jsonrpc: '2.0', id: 4, result: {} },
  ];
  for (const message of messages) {
    const text = envelopeText(message);
    assert.notEqual(text, undefined, JSON.stringify(message));
    assert.equal(text, JSON.stringify(message));
    assert.equal(serializeMessage(message), JSON.stringify(message));
  }
});

test('ids, methods and payloads JSON writes differently still come out as it writes them', () => {
  const messages: object[] = [
    { jsonrpc: '2.0', id: 'quote " and \\ and \n and é and \ud800', method: 'a"b\\c\u0001' },
    { jsonrpc: '2.0', id: -0, method: 'x' },
    { jsonrpc: '2.0', id: 1, method: 'x', params: undefined },
    { jsonrpc: '2.0', id: 1, method: 'x', params: () => 1 },
    { jsonrpc: '2.0', id: 1, result: undefined },
    { jsonrpc: '2.0', id: 1, method: 'x', params: [1, undefined, 'two'] },
  ];
  for (const message of messages) assert.equal(envelopeText(message), JSON.stringify(message), JSON.stringify(message));
});

test('anything outside the plain envelope is left to JSON.stringify', () => {
  const proto = { inherited: 1 };
  const cases: object[] = [
    { id: 1, jsonrpc: '2.0', method: 'x' }, // members in another order
    { jsonrpc: '2.0', method: 'x', id: 1 },
    { jsonrpc: '2.0', id: 1, params: {}, method: 'x' },
    { jsonrpc: '2.0', id: 1, method: 'x', params: {}, extra: true }, // a fifth member
    { jsonrpc: '2.0', id: 1, result: {}, error: {} },
    { jsonrpc: '2.0', method: 'x', params: {}, id: 1 },
    { jsonrpc: '1.0', id: 1, method: 'x' },
    { jsonrpc: '2.0', id: 1.5, method: 'x' }, // ids JSON may write otherwise
    { jsonrpc: '2.0', id: 2 ** 60, method: 'x' },
    { jsonrpc: '2.0', id: Number.NaN, method: 'x' },
    { jsonrpc: '2.0', id: {}, method: 'x' },
    { jsonrpc: '2.0', id: 1, method: 7 },
    { jsonrpc: '2.0', id: 1, method: 'x', params: { toJSON: (key: string) => ({ key }) } }, // would see '' instead of 'params'
    { jsonrpc: '2.0', id: 1, method: 'x', toJSON: () => 'replaced' },
    Object.assign(Object.create(proto) as object, { jsonrpc: '2.0', id: 1, method: 'x' }), // an inherited enumerable member
    { jsonrpc: '2.0' },
  ];
  for (const message of cases) {
    assert.equal(envelopeText(message), undefined, JSON.stringify(message));
    assert.equal(serializeMessage(message), JSON.stringify(message));
  }
});

test("property: for any object, the text is JSON.stringify's or there is none", () => {
  const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('tools/call', 'notifications/progress', 'a"b', 'tab\t'));
  const anything = fc.oneof(text, fc.integer(), fc.double(), fc.constant(null), fc.constant(undefined), fc.jsonValue(), fc.array(fc.jsonValue()));
  const id = fc.oneof(fc.integer(), fc.double(), text, fc.constant(null), fc.jsonValue());
  // the shapes a session sends, with any values, and now and then a member moved, added or dropped
  const shaped = fc
    .tuple(
      fc.constantFrom('request', 'notification', 'result', 'error'),
      id,
      text,
      anything,
      fc.boolean(),
      fc.option(fc.tuple(fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error', 'other'), anything), { freq: 4 }),
    )
    .map(([shape, idValue, method, payload, withPayload, extra]) => {
      const message: Record<string, unknown> = { jsonrpc: '2.0' };
      if (shape !== 'notification') message.id = idValue;
      if (shape === 'request' || shape === 'notification') {
        message.method = method;
        if (withPayload) message.params = payload;
      } else message[shape] = payload;
      if (extra !== null) {
        if (extra[0] === 'jsonrpc') delete message.jsonrpc;
        message[extra[0]] = extra[1];
      }
      return message;
    });
  let taken = 0;
  let runs = 0;
  fc.assert(
    fc.property(shaped, (message) => {
      runs++;
      const out = envelopeText(message);
      if (out === undefined) return;
      taken++;
      assert.equal(out, JSON.stringify(message));
    }),
    { numRuns: 3000 },
  );
  // the shortcut is taken for many of them (about a third): a test that never takes it would prove nothing
  assert.ok(taken > runs / 5, `the shortcut was taken ${taken} times in ${runs}`);
});

test("property: a response written from its id and result is JSON.stringify's text of it, or none", () => {
  const id = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null), fc.jsonValue());
  const result = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.constant({ toJSON: () => 'custom' }), fc.constant(new Date(0)));
  fc.assert(
    fc.property(id, result, (idValue, resultValue) => {
      const text = resultResponseText(idValue, resultValue);
      if (text !== undefined) assert.equal(text, JSON.stringify({ jsonrpc: '2.0', id: idValue, result: resultValue }));
    }),
  );
  // the ones a server sends take it; a result with its own toJSON and an id JSON writes differently do not
  assert.equal(resultResponseText(7, { content: [] }), '{"jsonrpc":"2.0","id":7,"result":{"content":[]}}');
  assert.equal(resultResponseText('a"b', {}), '{"jsonrpc":"2.0","id":"a\\"b","result":{}}');
  assert.equal(resultResponseText(1, new Date(0)), undefined);
  assert.equal(resultResponseText(1.5, {}), undefined);
});
