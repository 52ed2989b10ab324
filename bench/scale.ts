/**
 * The scale section of `npm run bench` (`--section=scale`; opt-in, needs redis-server): what
 * sharing sessions through Redis costs. Three Streamable HTTP handlers in this process, each
 * with its own Redis connection and RedisSessionDirectory on one redis-server started for the
 * run (test/helpers/redis), serve one session; calls go through `handler.fetch` (no sockets,
 * so the figures are the handlers' and Redis', not the network's).
 *
 * Figures: Redis commands per `tools/call` (INFO commandstats, all clients, the counter's own
 * INFO calls left out) on a session the instance holds (target 0), on the first request to
 * an instance that must restore it (one script call plus the commands it runs inside Redis),
 * and calls per second at one in flight on one instance and round-robin over the three (each
 * call to the next). Results are printed and written to `bench-results/scale.json`; the exit
 * status is 1 when the held-session target is not met.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { BenchConfig } from './config.js';
import { errorMessage } from './report.js';
import { formatNumber, formatTable } from './stats.js';
import { LATEST, openSession, post, rpc } from '../test/helpers/http/server-harness.js';
import { startRedis } from '../test/helpers/redis/redis-server.js';
import { commandsExecuted, sessionInstance, type SessionInstance } from '../test/helpers/redis/session-instance.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(resolve(HERE, '..', '..'), 'bench-results', 'scale.json');

let nextId = 1;
async function echo(instance: SessionInstance, sessionId: string): Promise<void> {
  const res = await post(instance.handler, rpc(nextId++, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), { sessionId, protocolVersion: LATEST });
  if (res.status !== 200) throw new Error(`tools/call answered ${res.status}`);
  await res.text();
}

/** Calls per second of `calls` sequential calls, each to `pick(i)`. */
async function rate(calls: number, sessionId: string, pick: (i: number) => SessionInstance): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < calls; i++) await echo(pick(i), sessionId);
  return calls / ((performance.now() - start) / 1000);
}

/** Runs the section; resolves with the exit status (0, or 1 when a target is missed or the run failed). */
export async function runScaleBench(config: BenchConfig): Promise<number> {
  console.log('Scale: sessions shared by three instances through Redis');
  let redis;
  try {
    redis = await startRedis();
  } catch (error) {
    console.log(`  skipped: ${errorMessage(error)}`);
    return 1;
  }
  const instances: SessionInstance[] = [];
  try {
    for (let i = 0; i < 3; i++) instances.push(await sessionInstance(redis.url, 'bench-scale:'));
    const [a, b] = instances as [SessionInstance, SessionInstance, SessionInstance];
    const sessionId = await openSession(a.handler);
    await echo(a, sessionId);
    const calls = Math.min(config.calls, 5000);

    let before = await commandsExecuted(a.redis);
    for (let i = 0; i < calls; i++) await echo(a, sessionId);
    const held = ((await commandsExecuted(a.redis)) - before) / calls;

    before = await commandsExecuted(a.redis);
    await echo(b, sessionId);
    const restore = (await commandsExecuted(a.redis)) - before;

    for (const instance of instances) await echo(instance, sessionId);
    const single: number[] = [];
    const spread: number[] = [];
    for (let rep = 0; rep < config.reps; rep++) {
      single.push(await rate(calls, sessionId, () => a));
      spread.push(await rate(calls, sessionId, (i) => instances[i % 3]!));
    }
    const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
    const result = { calls, reps: config.reps, redisCommandsPerHeldCall: held, redisCommandsPerRestore: restore, callsPerSecondOneInstance: median(single), callsPerSecondRoundRobin: median(spread) };
    console.log(
      formatTable([
        ['figure', 'value'],
        ['Redis commands per tools/call, session held', formatNumber(held, 3)],
        ['Redis commands for the first call on another instance (restore)', String(restore)],
        ['calls/s, one instance', formatNumber(result.callsPerSecondOneInstance, 0)],
        ['calls/s, round-robin over three', formatNumber(result.callsPerSecondRoundRobin, 0)],
      ]),
    );
    const met = held === 0;
    console.log(`  ${met ? '[met    ]' : '[NOT MET]'} Redis round trips per tools/call on a held session: 0  (measured ${formatNumber(held, 3)})`);
    mkdirSync(dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(RESULTS_FILE, JSON.stringify(result, null, 2) + '\n');
    return met ? 0 : 1;
  } catch (error) {
    console.log(`  failed: ${errorMessage(error)}`);
    return 1;
  } finally {
    for (const instance of instances) await instance.close().catch(() => {});
    await redis.close();
  }
}
