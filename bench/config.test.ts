import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from './config.js';

test('defaults give the full benchmark', () => {
  const c = parseConfig([], {});
  assert.equal(c.calls, 20000);
  assert.equal(c.reps, 5);
  assert.equal(c.coldStarts, 10);
  assert.equal(c.memoryCalls, 100000);
  assert.equal(c.quick, false);
  assert.equal(c.only, null);
  assert.equal(c.timeoutMs, 300000);
});

test('--quick shrinks the counts and the environment overrides both', () => {
  const q = parseConfig(['--quick'], {});
  assert.equal(q.quick, true);
  assert.ok(q.calls < 20000 && q.reps < 5 && q.memoryCalls < 100000);
  const e = parseConfig(['--quick'], { BENCH_CALLS: '777', BENCH_REPS: '3', BENCH_MEMORY_CALLS: '5', BENCH_TIMEOUT_S: '2' });
  assert.equal(e.calls, 777);
  assert.equal(e.reps, 3);
  assert.equal(e.memoryCalls, 5);
  assert.equal(e.timeoutMs, 2000);
  assert.equal(parseConfig([], { BENCH_CALLS: '' }).calls, 20000);
});

test('--only and BENCH_ONLY select servers, the flag winning', () => {
  assert.deepEqual(parseConfig([], { BENCH_ONLY: 'bare, official' }).only, ['bare', 'official']);
  assert.deepEqual(parseConfig(['--only=mcpkit'], { BENCH_ONLY: 'bare' }).only, ['mcpkit']);
  assert.throws(() => parseConfig(['--only='], {}), /at least one/);
});

test('--section and BENCH_SECTION pick sections, in run order, the flag winning', () => {
  assert.deepEqual(parseConfig([], {}).sections, ['stdio', 'http', 'payload', 'cli', 'client', 'cold-start']);
  assert.deepEqual(parseConfig(['--section=payload'], {}).sections, ['payload']);
  assert.deepEqual(parseConfig(['--section=cold-start,client'], {}).sections, ['client', 'cold-start']);
  assert.deepEqual(parseConfig(['--section=cli'], {}).sections, ['cli']);
  assert.deepEqual(parseConfig(['--section=http'], {}).sections, ['http']);
  assert.deepEqual(parseConfig(['--section=http,stdio'], {}).sections, ['stdio', 'http']);
  assert.deepEqual(parseConfig(['--section=stdio'], { BENCH_SECTION: 'http' }).sections, ['stdio']);
  assert.deepEqual(parseConfig([], { BENCH_SECTION: 'http' }).sections, ['http']);
  assert.deepEqual(parseConfig(['--section=instructions,http'], {}).sections, ['http', 'instructions'], 'instructions runs only when named');
  assert.equal(parseConfig(['--quick'], {}).instructionCalls, 2000);
  assert.equal(parseConfig([], { BENCH_INSTR_WARMUP: '7' }).instructionWarmup, 7);
  assert.throws(() => parseConfig(['--section=grpc'], {}), /unknown section "grpc"/);
  assert.throws(() => parseConfig(['--section='], {}), /at least one/);
});

test('BENCH_SESSIONS sets the idle-session count', () => {
  assert.equal(parseConfig([], {}).sessions, 1000);
  assert.equal(parseConfig(['--quick'], { BENCH_SESSIONS: '50' }).sessions, 50);
  assert.throws(() => parseConfig([], { BENCH_SESSIONS: '-1' }), /BENCH_SESSIONS/);
});

test('malformed values and unknown options are refused', () => {
  assert.throws(() => parseConfig([], { BENCH_CALLS: '0' }), /BENCH_CALLS must be a positive integer/);
  assert.throws(() => parseConfig([], { BENCH_REPS: '2.5' }), /BENCH_REPS/);
  assert.throws(() => parseConfig([], { BENCH_CALLS: 'many' }), /BENCH_CALLS/);
  assert.throws(() => parseConfig(['--fast'], {}), /unknown option "--fast"/);
  assert.equal(parseConfig(['--help'], {}).help, true);
});

test('--http-driver and BENCH_HTTP_DRIVER pick the HTTP client, raw by default', () => {
  assert.equal(parseConfig([], {}).httpDriver, 'raw');
  assert.equal(parseConfig([], { BENCH_HTTP_DRIVER: 'node-http' }).httpDriver, 'node-http');
  assert.equal(parseConfig(['--http-driver=raw'], { BENCH_HTTP_DRIVER: 'node-http' }).httpDriver, 'raw');
  assert.throws(() => parseConfig([], { BENCH_HTTP_DRIVER: 'undici' }), /unknown HTTP driver "undici"; known: raw, node-http/);
  assert.throws(() => parseConfig(['--http-driver='], {}), /unknown HTTP driver ""/);
});
