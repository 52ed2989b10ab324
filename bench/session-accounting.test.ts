import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AccountingResult } from './session-accounting.js';

const rowsBytes = (rows: AccountingResult['rows']): number => rows.reduce((s, r) => s + r.bytes, 0);

const TOOL = join(dirname(fileURLToPath(import.meta.url)), 'session-accounting.js');

// The accounting runs in its own process: it needs --expose-gc.
test('session accounting: one transport, server connection, endpoint and JSON-RPC channel per idle session, and the total matches the heap', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', TOOL, '--sessions=200', '--json'], { timeout: 120_000 });
  const result = JSON.parse(stdout) as AccountingResult;
  assert.equal(result.sessions, 200);
  const count = (label: string): number | undefined => result.rows.find((r) => r.label === label)?.count;
  for (const cls of ['StreamableSessionTransport', 'ServerConnection', 'Endpoint', 'RpcChannel']) assert.equal(count(`object: ${cls}`), 1, cls);
  const sum = rowsBytes(result.rows);
  assert.ok(Math.abs(sum - result.snapshotBytes) < 1, 'the rows add up to the total');
  // every session holds some kilobytes, and heapUsed agrees with what the sessions hold to
  // within a factor of 3 — a sanity check, not a measurement. The comparison leaves out the
  // "other" row: one-off objects (compiled code, feedback, tables that grew) divided by only 200
  // sessions, about 4 KB per session here, and whatever V8 compiled between the snapshots on a
  // busy machine; heapUsed itself moved from 1.9 to 4.0 KB per session between runs on one.
  const perSession = rowsBytes(result.rows.filter((r) => !r.label.startsWith('other')));
  assert.ok(result.snapshotBytes > 1000 && result.snapshotBytes < 50_000, `total ${result.snapshotBytes}`);
  assert.ok(perSession > 1000, `per-session rows ${perSession}`);
  assert.ok(
    result.heapUsedBytes > perSession / 3 && result.heapUsedBytes < perSession * 3,
    `heapUsed ${result.heapUsedBytes} vs the per-session rows' ${perSession}`,
  );
});

test('session accounting refuses an unknown option', async () => {
  await assert.rejects(promisify(execFile)(process.execPath, ['--expose-gc', TOOL, '--nope']), (e: { stderr?: string }) =>
    /unknown option "--nope"/.test(e.stderr ?? ''),
  );
});
