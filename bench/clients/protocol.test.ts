import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_KINDS, clientsFor, heapRow, parseClientArgs, runLoops } from './protocol.js';

test('parseClientArgs reads the client, transport and mode, and refuses anything else', () => {
  assert.deepEqual(parseClientArgs(['--client=mcpkit', '--transport=stdio']), { client: 'mcpkit', transport: 'stdio', mode: 'json', era: '2025' });
  assert.deepEqual(parseClientArgs(['--client=official-v2', '--transport=http', '--mode=sse']), {
    client: 'official-v2',
    transport: 'http',
    mode: 'sse',
    era: '2025',
  });
  assert.equal(parseClientArgs(['--client=mcpkit', '--transport=http', '--era=2026']).era, '2026');
  assert.throws(() => parseClientArgs(['--client=official', '--transport=http', '--era=2026']), /raw and mcpkit/);
  assert.throws(() => parseClientArgs(['--client=mcpkit', '--transport=stdio', '--era=2026']), /raw and mcpkit/);
  assert.throws(() => parseClientArgs(['--client=grpc', '--transport=http']), /bad argument/);
  assert.throws(() => parseClientArgs(['--client=raw']), /required/);
  assert.throws(() => parseClientArgs(['--client=raw', '--transport=http', '--extra']), /bad argument/);
});

test('runLoops makes exactly `calls` calls with at most `inFlight` outstanding', async () => {
  for (const [calls, inFlight] of [
    [1, 1],
    [10, 1],
    [10, 3],
    [5, 32],
    [100, 32],
  ] as const) {
    let made = 0;
    let outstanding = 0;
    let most = 0;
    await runLoops(
      async () => {
        made++;
        outstanding++;
        most = Math.max(most, outstanding);
        await new Promise((r) => setImmediate(r));
        outstanding--;
      },
      calls,
      inFlight,
    );
    assert.equal(made, calls);
    assert.equal(most, Math.min(calls, inFlight));
  }
});

test('runLoops rejects with the first failure and stops starting calls', async () => {
  let made = 0;
  await assert.rejects(
    runLoops(
      async () => {
        made++;
        if (made === 3) throw new Error('boom');
      },
      1000,
      2,
    ),
    /boom/,
  );
  assert.ok(made < 10, `made ${made} calls after the failure`);
  await assert.rejects(
    runLoops(async () => {}, 0, 1),
    RangeError,
  );
  await assert.rejects(
    runLoops(async () => {}, 1, 0),
    RangeError,
  );
});

test('heapRow: slope in KB per 10k calls between the first and last checkpoints', () => {
  const row = heapRow([
    { calls: 0, heapUsedKb: 1000 },
    { calls: 50_000, heapUsedKb: 1500 },
    { calls: 100_000, heapUsedKb: 2000 },
  ]);
  assert.equal(row.slopeKbPer10k, 100);
  assert.equal(heapRow([{ calls: 0, heapUsedKb: 5 }]).slopeKbPer10k, null);
  assert.equal(heapRow([]).slopeKbPer10k, null);
});

test('clientsFor: the fetch floor and mcpkit over fetch run over HTTP only', () => {
  assert.deepEqual(clientsFor('stdio', CLIENT_KINDS), ['raw', 'mcpkit', 'official', 'official-v2']);
  assert.deepEqual(clientsFor('http', CLIENT_KINDS), CLIENT_KINDS);
});
