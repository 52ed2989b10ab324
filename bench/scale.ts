/**
 * The scale section of `npm run bench` (`--section=scale`; opt-in, needs redis-server): what
 * sharing sessions through Redis costs, three deployments side by side in one run:
 * - `no Redis`: one Streamable HTTP handler, sessions in memory only;
 * - `Redis`: one handler with a RedisSessionDirectory on a redis-server started for the run
 *   (test/helpers/redis);
 * - `3 × Redis`: three handlers, each with its own Redis connection and directory on the same
 *   prefix, every request to the next one in turn (what a round-robin proxy does; the requests
 *   go through `handler.fetch` in this process, no sockets, so the figures are the handlers'
 *   and Redis', not the network's).
 *
 * Figures per deployment (Redis commands: INFO commandstats, all clients, the counter's own
 * INFO calls left out; every deployment runs alone, one after the other):
 * - (a) a 2025-11-25 session every instance holds already: calls/s of `tools/call` (echo) at
 *   one in flight, its ratio to `no Redis`, and Redis commands per call (target 0);
 * - (b) the 2026-07-28 era (no session: each request carries its own `_meta`): calls/s,
 *   ratio, and Redis commands per call (target 0);
 * - (c) a server→client request: a `tools/call` whose tool asks the client to sample, the
 *   session's GET stream held by one instance, the call made on the next one and the answer
 *   POSTed to the one after (in `3 × Redis` all three differ: the request and its answer
 *   each cross instances): Redis commands per such call (target: 1 per crossing, so 2 here, 0
 *   on one instance), and calls/s;
 * - the first request to an instance that must restore the session (one script call plus
 *   the commands it runs inside Redis).
 * Results are printed and written to `bench-results/scale.json`; the exit status is 1 when a
 * target is not met or the run failed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../src/http/server/handler.js';
import type { JSONObject } from '../src/jsonrpc/types.js';
import type { RedisConnection } from '../src/redis/connection.js';
import { get, LATEST, openSession, post, rpc, SseReader } from '../test/helpers/http/server-harness.js';
import { startRedis } from '../test/helpers/redis/redis-server.js';
import { commandsExecuted, type SessionInstance, sessionInstance, stateServer } from '../test/helpers/redis/session-instance.js';
import type { BenchConfig } from './config.js';
import { errorMessage } from './report.js';
import { formatNumber, formatTable } from './stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(resolve(HERE, '..', '..'), 'bench-results', 'scale.json');
const STATELESS = '2026-07-28';
/** Bound on waiting for one server→client request on the GET stream. */
const EVENT_BOUND_MS = 20_000;

/** One deployment: its handlers (requests go to each in turn) and, with Redis, a connection to count commands on. */
interface Deployment {
  readonly name: string;
  readonly handlers: readonly StreamableHttpHandler[];
  readonly redis: RedisConnection | undefined;
  close(): Promise<void>;
}

let nextId = 1;

async function expectOk(res: Response, what: string): Promise<void> {
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${what} answered HTTP ${res.status}: ${text.slice(0, 300)}`);
  if (text.includes('"error"')) throw new Error(`${what} answered an error: ${text.slice(0, 300)}`);
}

function echo2025(handler: StreamableHttpHandler, sessionId: string): Promise<void> {
  return post(handler, rpc(nextId++, 'tools/call', { name: 'echo', arguments: { text: 'x' } }), { sessionId, protocolVersion: LATEST }).then((res) =>
    expectOk(res, 'tools/call (2025-11-25)'),
  );
}

const statelessMeta: JSONObject = {
  'io.modelcontextprotocol/protocolVersion': STATELESS,
  'io.modelcontextprotocol/clientInfo': { name: 'scale-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function echo2026(handler: StreamableHttpHandler): Promise<void> {
  const params = { name: 'echo', arguments: { text: 'x' }, _meta: statelessMeta };
  return post(handler, rpc(nextId++, 'tools/call', params), { protocolVersion: STATELESS, headers: { 'mcp-method': 'tools/call', 'mcp-name': 'echo' } }).then(
    (res) => expectOk(res, 'tools/call (2026-07-28)'),
  );
}

/**
 * One `ask` call: made on `asker`; the sampling request it sends arrives on `stream` (the
 * session's GET stream, on whichever instance holds it); the answer is POSTed to `answerer`.
 */
async function askOnce(asker: StreamableHttpHandler, answerer: StreamableHttpHandler, stream: SseReader, sessionId: string): Promise<void> {
  const asked = post(asker, rpc(nextId++, 'tools/call', { name: 'ask', arguments: {} }), { sessionId, protocolVersion: LATEST });
  let request: { id: unknown; method: string } | undefined;
  while (request === undefined) {
    const event = await stream.next(EVENT_BOUND_MS);
    if (event.data === '') continue;
    const message = JSON.parse(event.data) as { id?: unknown; method?: string };
    if (message.method === 'sampling/createMessage') request = message as { id: unknown; method: string };
  }
  const answer = await post(
    answerer,
    { jsonrpc: '2.0', id: request.id, result: { role: 'assistant', model: 'bench', content: { type: 'text', text: 'ok' } } },
    { sessionId, protocolVersion: LATEST },
  );
  await answer.text();
  if (answer.status !== 202) throw new Error(`the sampling answer got HTTP ${answer.status}`);
  await expectOk(await asked, 'tools/call ask');
}

/** Calls per second of `calls` sequential runs of `op(i)`. */
async function rate(calls: number, op: (i: number) => Promise<void>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < calls; i++) await op(i);
  return calls / ((performance.now() - start) / 1000);
}

/** Redis commands per run of `op` over `runs` runs (undefined without Redis). */
async function commandsPer(redis: RedisConnection | undefined, runs: number, op: (i: number) => Promise<void>): Promise<number | undefined> {
  if (redis === undefined) {
    for (let i = 0; i < runs; i++) await op(i);
    return undefined;
  }
  const before = await commandsExecuted(redis);
  for (let i = 0; i < runs; i++) await op(i);
  return ((await commandsExecuted(redis)) - before) / runs;
}

const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;

interface Figures {
  callsPerSecond2025: number;
  commandsPerCall2025: number | undefined;
  callsPerSecond2026: number;
  commandsPerCall2026: number | undefined;
  asksPerSecond: number;
  commandsPerAsk: number | undefined;
  /** Instances the server→client request and its answer crossed per ask (0 on one instance). */
  crossingsPerAsk: number;
  commandsForRestore: number | undefined;
}

/** A deployment with its session open, its GET stream held, and its Redis command counts taken. */
interface Prepared {
  readonly figures: Figures;
  readonly echo2025: (i: number) => Promise<void>;
  readonly echo2026: (i: number) => Promise<void>;
  readonly ask: () => Promise<void>;
  readonly r2025: number[];
  readonly r2026: number[];
  readonly rAsk: number[];
  close(): Promise<void>;
}

/** Opens the session on `d`, warms every path up and counts Redis commands per call (a), (b), (c). */
async function prepare(d: Deployment, calls: number, asks: number): Promise<Prepared> {
  const n = d.handlers.length;
  const at = (i: number) => d.handlers[i % n]!;
  const sessionId = await openSession(d.handlers[0]!);
  await echo2025(d.handlers[0]!, sessionId);
  // the first request to another instance restores the session there
  let commandsForRestore: number | undefined;
  if (n > 1) commandsForRestore = await commandsPer(d.redis, 1, () => echo2025(d.handlers[1]!, sessionId));
  const e2025 = (i: number) => echo2025(at(i), sessionId);
  const e2026 = (i: number) => echo2026(at(i));
  // (c): GET stream on instance 0, the call on the next, the answer to the one after
  const res = await get(d.handlers[0]!, sessionId, { 'mcp-protocol-version': LATEST });
  if (res.status !== 200) throw new Error(`GET stream answered HTTP ${res.status}`);
  const stream = new SseReader(res);
  const ask = () => askOnce(d.handlers[1 % n]!, d.handlers[2 % n]!, stream, sessionId);
  // warm-up: every path, untimed and uncounted
  for (let i = 0; i < Math.min(calls, 500); i++) {
    await e2025(i);
    await e2026(i);
  }
  for (let i = 0; i < Math.min(asks, 50); i++) await ask();
  const figures: Figures = {
    callsPerSecond2025: 0,
    commandsPerCall2025: await commandsPer(d.redis, calls, e2025),
    callsPerSecond2026: 0,
    commandsPerCall2026: await commandsPer(d.redis, calls, e2026),
    asksPerSecond: 0,
    commandsPerAsk: await commandsPer(d.redis, asks, ask),
    crossingsPerAsk: n >= 3 ? 2 : 0,
    commandsForRestore,
  };
  return { figures, echo2025: e2025, echo2026: e2026, ask, r2025: [], r2026: [], rAsk: [], close: () => stream.cancel() };
}

/** Runs the section; resolves with the exit status (0, or 1 when a target is missed or the run failed). */
export async function runScaleBench(config: BenchConfig): Promise<number> {
  console.log('Scale: one instance without Redis, one with Redis, three sharing sessions through Redis (round-robin)');
  let redis;
  try {
    redis = await startRedis();
  } catch (error) {
    console.log(`  skipped: ${errorMessage(error)}`);
    return 1;
  }
  const deployments: Deployment[] = [];
  try {
    const alone = createStreamableHttpHandler({ server: stateServer(), responseMode: 'json' });
    deployments.push({ name: 'no Redis', handlers: [alone], redis: undefined, close: () => alone.close() });
    const one = await sessionInstance(redis.url, 'bench-scale-1:');
    deployments.push({ name: 'Redis', handlers: [one.handler], redis: one.redis, close: () => one.close() });
    const three: SessionInstance[] = [];
    for (let i = 0; i < 3; i++) three.push(await sessionInstance(redis.url, 'bench-scale-3:'));
    deployments.push({
      name: '3 × Redis',
      handlers: three.map((t) => t.handler),
      redis: three[0]!.redis,
      close: async () => void (await Promise.all(three.map((t) => t.close()))),
    });

    const calls = Math.min(config.calls, 5000);
    const asks = Math.max(10, Math.min(Math.floor(calls / 10), 500));
    const prepared: Prepared[] = [];
    for (const d of deployments) prepared.push(await prepare(d, calls, asks));
    // rates: the deployments take turns in every repetition, so none is favoured by warm-up or drift
    for (let rep = 0; rep < config.reps; rep++) {
      for (const p of prepared) {
        p.r2025.push(await rate(calls, p.echo2025));
        p.r2026.push(await rate(calls, p.echo2026));
        p.rAsk.push(await rate(asks, p.ask));
      }
    }
    const figures = prepared.map((p) => ({
      ...p.figures,
      callsPerSecond2025: median(p.r2025),
      callsPerSecond2026: median(p.r2026),
      asksPerSecond: median(p.rAsk),
    }));
    for (const p of prepared) await p.close();
    const base = figures[0]!;
    const cmd = (v: number | undefined) => (v === undefined ? '–' : formatNumber(v, 3));
    const ratio = (v: number, of: number) => formatNumber(v / of, 2);
    console.log(
      formatTable([
        ['figure', ...deployments.map((d) => d.name)],
        ['(a) calls/s, 2025-11-25 session held', ...figures.map((f) => formatNumber(f.callsPerSecond2025, 0))],
        ['(a) ratio to no Redis', ...figures.map((f) => ratio(f.callsPerSecond2025, base.callsPerSecond2025))],
        ['(a) Redis commands per tools/call', ...figures.map((f) => cmd(f.commandsPerCall2025))],
        ['(b) calls/s, 2026-07-28 era', ...figures.map((f) => formatNumber(f.callsPerSecond2026, 0))],
        ['(b) ratio to no Redis', ...figures.map((f) => ratio(f.callsPerSecond2026, base.callsPerSecond2026))],
        ['(b) Redis commands per tools/call', ...figures.map((f) => cmd(f.commandsPerCall2026))],
        ['(c) tools/call with sampling, calls/s', ...figures.map((f) => formatNumber(f.asksPerSecond, 0))],
        ['(c) ratio to no Redis', ...figures.map((f) => ratio(f.asksPerSecond, base.asksPerSecond))],
        ['(c) instance crossings per call (request, answer)', ...figures.map((f) => String(f.crossingsPerAsk))],
        ['(c) Redis commands per call', ...figures.map((f) => cmd(f.commandsPerAsk))],
        ['first call on another instance (restore), commands', ...figures.map((f) => cmd(f.commandsForRestore))],
      ]),
    );
    const targets: Array<[string, boolean, string]> = [];
    for (const [i, f] of figures.entries()) {
      const name = deployments[i]!.name;
      if (f.commandsPerCall2025 !== undefined)
        targets.push([`${name}: Redis round trips per tools/call on a held session: 0`, f.commandsPerCall2025 === 0, cmd(f.commandsPerCall2025)]);
      if (f.commandsPerCall2026 !== undefined)
        targets.push([`${name}: Redis round trips per tools/call in the 2026-07-28 era: 0`, f.commandsPerCall2026 === 0, cmd(f.commandsPerCall2026)]);
      if (f.commandsPerAsk !== undefined) {
        targets.push([
          `${name}: Redis round trips per server→client request: 1 per instance crossing (${f.crossingsPerAsk})`,
          f.commandsPerAsk <= f.crossingsPerAsk,
          cmd(f.commandsPerAsk),
        ]);
      }
    }
    for (const [what, met, measured] of targets) console.log(`  ${met ? '[met    ]' : '[NOT MET]'} ${what}  (measured ${measured})`);
    const result = { calls, asks, reps: config.reps, deployments: Object.fromEntries(deployments.map((d, i) => [d.name, figures[i]])) };
    mkdirSync(dirname(RESULTS_FILE), { recursive: true });
    writeFileSync(RESULTS_FILE, JSON.stringify(result, null, 2) + '\n');
    return targets.every(([, met]) => met) ? 0 : 1;
  } catch (error) {
    console.log(`  failed: ${errorMessage(error)}`);
    return 1;
  } finally {
    for (const d of deployments) await d.close().catch(() => {});
    await redis.close();
  }
}
