/**
 * Units of the first-hour pieces of the CLI: the stdio-stderr relay (lines cleaned, split
 * and long lines bounded), the transport tap (every optional transport member forwarded;
 * task sightings only for our own calls), the tool-parameter table, and the
 * load-error helpers (caret under esbuild's location, the CommonJS hint).
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { tempDir } from '../../test/helpers/cli/install.js';
import type { Transport, TransportReceiver } from '../transport/types.js';
import { addCaret, commonJsHint } from './serve/load-errors.js';
import { MAX_STDERR_LINE_CHARS, relayStderr } from './server-stderr.js';
import { TapTransport, type TaskSighting } from './tap-transport.js';
import { parameterList, parametersOf, typeOf } from './tool-help.js';
import { refusedUrlReason } from './url-elicitation.js';

test('relayStderr: whole lines, cleaned; a split UTF-8 character and a line without newline survive; long lines are cut', async () => {
  const stream = new PassThrough();
  const lines: string[] = [];
  relayStderr(stream, (l) => lines.push(l), false);
  const euro = Buffer.from('€');
  stream.write(Buffer.concat([Buffer.from('\u001b]0;x\u0007a'), euro.subarray(0, 1)]));
  stream.write(Buffer.concat([euro.subarray(1), Buffer.from('\r\nsecond\n')]));
  stream.write('x'.repeat(MAX_STDERR_LINE_CHARS + 5));
  stream.end('tail');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(lines, ['\\x1b]0;x\\x07a€', 'second', 'x'.repeat(MAX_STDERR_LINE_CHARS), `${'x'.repeat(5)}tail`]);
  const quiet = new PassThrough();
  const none: string[] = [];
  relayStderr(quiet, (l) => none.push(l), true);
  quiet.end('hidden\n');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(none, []);
  assert.equal(quiet.readableFlowing, true, 'a quiet stream is still drained');
});

/** A transport whose sends resolve when the test says so. */
function slowTransport(): {
  transport: Transport;
  sent: unknown[];
  release: () => void;
  closedAt: () => number | undefined;
  receiver: () => TransportReceiver;
} {
  const sent: unknown[] = [];
  let releaseAll: () => void = () => {};
  const gate = new Promise<void>((r) => (releaseAll = r));
  let closed: number | undefined;
  let receiver: TransportReceiver | undefined;
  return {
    sent,
    release: () => releaseAll(),
    closedAt: () => closed,
    receiver: () => receiver!,
    transport: {
      start: (r) => void (receiver = r),
      send: (m) => {
        sent.push(m);
        return gate;
      },
      close: async () => void (closed = Date.now()),
    },
  };
}

/** The optional members of `Transport`: a member added there and not listed here fails to compile. */
// biome-ignore lint/complexity/noBannedTypes: `{} extends Pick<T, K>` holds exactly when K is optional; the empty type is the point
type OptionalKey<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];
const OPTIONAL_MEMBERS: Record<OptionalKey<Transport>, true> = {
  sessionId: true,
  peer: true,
  network: true,
  answersRequests: true,
  requestIdPrefix: true,
  setProtocolVersion: true,
  fresh: true,
  deliverHere: true,
  peerCancelled: true,
};

test('TapTransport: forwards every optional member of the transport it wraps, and only what it has', async () => {
  const versions: string[] = [];
  const inner = slowTransport();
  const full: Transport = {
    ...inner.transport,
    sessionId: 'session-1',
    peer: 'http://127.0.0.1:1/mcp',
    network: 'tcp',
    answersRequests: false,
    requestIdPrefix: 'node-a:',
    setProtocolVersion: (v) => void versions.push(v),
    fresh: () => slowTransport().transport,
    deliverHere: () => true,
    peerCancelled: () => {},
  };
  const tap = new TapTransport(full);
  for (const key of Object.keys(OPTIONAL_MEMBERS) as Array<OptionalKey<Transport>>) {
    if (typeof full[key] === 'function') assert.equal(typeof tap[key], 'function', `${key} is forwarded`);
    else assert.equal(tap[key], full[key], `${key} is forwarded`);
  }
  tap.setProtocolVersion('2025-11-25');
  assert.deepEqual(versions, ['2025-11-25']);
  assert.ok(tap.fresh!() instanceof TapTransport, 'fresh() wraps the fresh transport the same way');
  const bare = new TapTransport(inner.transport);
  assert.equal(bare.fresh, undefined, 'no fresh() when the wrapped transport has none');
  assert.equal(bare.peer, undefined);
  assert.equal(bare.answersRequests, undefined);
  assert.equal(bare.requestIdPrefix, undefined);
  await bare.close();
  assert.ok(inner.closedAt() !== undefined, 'close() closes the transport underneath');
});

test('TapTransport: task sightings for the tasks our tools/call became, not for other tasks/get answers', async () => {
  const inner = slowTransport();
  const seen: TaskSighting[] = [];
  const tap = new TapTransport(inner.transport, { onTask: (t) => seen.push(t) });
  const delivered: unknown[] = [];
  await tap.start({ message: (d) => delivered.push(d), error() {}, closed() {} });
  void tap.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
  inner.receiver().message(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { resultType: 'task', taskId: 't1', status: 'working' } }));
  void tap.send({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't1' } });
  inner.receiver().message({ jsonrpc: '2.0', id: 2, result: { taskId: 't1', status: 'completed', statusMessage: 'done' } });
  void tap.send({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { taskId: 'other' } });
  inner.receiver().message({ jsonrpc: '2.0', id: 3, result: { taskId: 'other', status: 'working' } });
  assert.deepEqual(seen, [
    { taskId: 't1', status: 'working' },
    { taskId: 't1', status: 'completed', statusMessage: 'done' },
  ]);
  assert.equal(delivered.length, 3, 'every message still reaches the client, unchanged');
  assert.equal(typeof delivered[0], 'string');
});

test('tool parameters: types, required, defaults, enums, arrays, unions', () => {
  const schema = {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Where' },
      edits: { type: 'array', items: { type: 'object' } },
      mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
      n: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      raw: {},
    },
    required: ['path', 'edits'],
  };
  assert.equal(parameterList(schema), 'path edits mode? n? raw?');
  assert.equal(parameterList({ type: 'object', properties: { z: {}, a: {} }, required: ['a'] }), 'a z?', 'required first');
  const many = { type: 'object', properties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`param${i}`, {}])) };
  assert.equal(parameterList(many).length, 48);
  assert.ok(parameterList(many).endsWith('…'));
  assert.deepEqual(
    parametersOf(schema).map((p) => [p.name, p.type, p.required, p.default]),
    [
      ['path', 'string', true, ''],
      ['edits', 'array of object', true, ''],
      ['mode', 'string (a, b)', false, '"a"'],
      ['n', 'integer|null', false, ''],
      ['raw', 'any', false, ''],
    ],
  );
  assert.equal(typeOf({ type: ['array', 'null'], items: { type: 'string' } }), 'array of string|null');
  assert.equal(parameterList(undefined), '');
});

test("load errors: a caret under esbuild's file:line:column (and the real extension); the CommonJS hint only where it applies", () => {
  const dir = tempDir('mcpkit-load-errors-');
  const file = join(dir, 'bad.mts');
  writeFileSync(file, 'ok\nconst x: number = ;\n');
  const text = addCaret(`Transform failed with 1 error:\n${join(dir, 'bad.ts')}:2:18: ERROR: Unexpected ";"`);
  assert.equal(text, `Transform failed with 1 error:\n${file}:2:18: ERROR: Unexpected ";"\n    const x: number = ;\n                      ^`);
  assert.equal(addCaret('no location here'), 'no location here');
  writeFileSync(join(dir, 'package.json'), '{}');
  assert.match(commonJsHint(join(dir, 's.ts'), 'ERR_PACKAGE_PATH_NOT_EXPORTED')!, /has no "type": "module".*name the file .*s\.mts/);
  assert.match(commonJsHint(join(dir, 's.cts'), 'ERR_REQUIRE_ESM')!, /is a CommonJS module.*name it .*s\.mts/);
  assert.equal(commonJsHint(join(dir, 's.mts'), 'ERR_PACKAGE_PATH_NOT_EXPORTED'), undefined);
  assert.equal(commonJsHint(join(dir, 's.ts'), 'some other failure'), undefined);
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  assert.equal(commonJsHint(join(dir, 's.ts'), 'ERR_PACKAGE_PATH_NOT_EXPORTED'), undefined);
});

test('refusedUrlReason: https passes; http, other schemes and garbage are explained', () => {
  assert.equal(refusedUrlReason('https://example.com/x'), undefined);
  assert.match(refusedUrlReason('http://example.com/x')!, /declined: only https:\/\/ pages are opened .* over http:/);
  assert.match(refusedUrlReason('javascript:alert(1)')!, /declined/);
  assert.match(refusedUrlReason('not a url')!, /not a valid URL; declined/);
  assert.doesNotMatch(refusedUrlReason('http://e.com/\u001b]0;x\u0007')!, /[\u001b\u0007]/);
});
