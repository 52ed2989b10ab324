/**
 * Layering: every import between library modules goes one way, and era-specific code stays
 * behind a short list of seams.
 *
 * Design note: the check reads the `src/` TypeScript files (so type-only imports count: a
 * type is still a dependency on the layer that defines it) and finds import specifiers with
 * a regex, as entry-points.test.ts does: static `import`/`export ... from` at the start of a
 * line, side-effect imports, and `import()` of a literal relative path. Every folder of
 * `src/` is placed in a layer ({@link PLACEMENT}); {@link ALLOWED} lists, per layer, the
 * layers it may import. Test files (`*.test.ts`, which may stay beside their code) are
 * exempt; everything else in `src/` ships, so it must be library code: it imports nothing
 * outside `src/` (the test tree in test/, bench/, conformance/, examples/) and no test file,
 * and an entry point (an export of package.json, or the CLI) reaches it. An edge the table
 * does not allow fails unless it is one of today's {@link ACCEPTED_EXCEPTIONS}; an exception
 * that no longer matches an import fails too, so the lists only ever shrink. The same holds
 * for the era seams ({@link ERA_SEAMS}). docs/architecture.md describes the layers in prose.
 *
 * Within a layer too, library modules import one way: no import cycle, not even through
 * type-only imports or re-exports (a module that needs a type of a module that needs it back
 * cannot be read, tested or moved on its own). Lazy `import()` edges are exempt (they load
 * on demand, as `mcpkit demo --redis` loads mcpkit/redis), and so are tests.
 */

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/repo.js';

const ROOT = REPO_ROOT;
const SRC = join(ROOT, 'src');

type Layer =
  | 'jsonrpc'
  | 'types'
  | 'framing'
  | 'transport'
  | 'session'
  | 'protocol'
  | 'core'
  | 'schema'
  | 'server'
  | 'client'
  | 'stdio'
  | 'http'
  | 'tasks'
  | 'auth'
  | 'extensions'
  | 'compose'
  | 'client-node'
  | 'redis'
  | 'otel'
  | 'testing'
  | 'demo'
  | 'cli';

/**
 * Where each part of `src/` sits, by path prefix (relative to `src/`, `/`-separated); the
 * longest matching prefix wins. A new folder must be added here (the test says so).
 */
const PLACEMENT: ReadonlyArray<readonly [prefix: string, layer: Layer]> = [
  // the bottom: JSON-RPC values and errors, and the spec's type names
  ['jsonrpc/', 'jsonrpc'],
  ['types.ts', 'types'],
  // pure codecs: newline-delimited JSON and SSE
  ['framing/', 'framing'],
  // the transport contract and the in-memory pair
  ['transport/', 'transport'],
  // ids, correlation, timeouts, cancellation, progress
  ['session/', 'session'],
  // revision tables, dispatch, capability gating, middleware
  ['protocol/', 'protocol'],
  // the `mcpkit` entry point: core types, errors, session, protocol (no roles)
  ['index.ts', 'core'],
  // user schemas (Standard Schema, JSON Schema validators)
  ['schema/', 'schema'],
  // the roles; the server's registries live inside server/
  ['server/', 'server'],
  ['client/', 'client'],
  // the pool's Node.js side: config files, stdio and HTTP transport factories (`mcpkit/client/node`)
  ['client/node/', 'client-node'],
  // transports and extensions above the roles
  ['stdio/', 'stdio'],
  ['http/', 'http'],
  ['tasks/', 'tasks'],
  ['auth/', 'auth'],
  // the official extensions (skills, apps), built on the roles' public APIs
  ['extensions/', 'extensions'],
  // composition over the roles: mount, visibility, proxy, the client pool's naming rules
  ['compose/', 'compose'],
  // the naming rules import nothing; the client pool (client/) shares them with mount and proxy
  ['compose/names.ts', 'protocol'],
  // the stores and the bus shared between instances through Redis (`mcpkit/redis`)
  ['redis/', 'redis'],
  // OpenTelemetry instrumentation of both roles (`mcpkit/otel`), through their public seams
  ['otel/', 'otel'],
  // shipped test helpers (`mcpkit/testing`)
  ['testing/', 'testing'],
  // the top: the demo server and the CLI that serves it
  ['demo/', 'demo'],
  ['cli/', 'cli'],
];

const BOTTOM: readonly Layer[] = ['jsonrpc', 'types'];
const BELOW_SESSION: readonly Layer[] = [...BOTTOM, 'framing', 'transport'];
const BELOW_ROLES: readonly Layer[] = [...BELOW_SESSION, 'session', 'protocol', 'schema'];
const ROLES: readonly Layer[] = ['server', 'client'];
const EXTENSIONS: readonly Layer[] = ['stdio', 'http', 'tasks', 'auth'];

/**
 * The allowed import edges: each layer and the layers it may import (its own is implied).
 * Read top to bottom it is one direction; the roles are peers (neither imports the other),
 * and so are the transports and extensions above them (see {@link ACCEPTED_EXCEPTIONS}).
 */
const ALLOWED: Readonly<Record<Layer, readonly Layer[]>> = {
  jsonrpc: [],
  types: ['jsonrpc'],
  framing: [...BOTTOM],
  transport: [...BOTTOM, 'framing'],
  session: [...BELOW_SESSION],
  protocol: [...BELOW_SESSION, 'session'],
  core: [...BELOW_SESSION, 'session', 'protocol'],
  schema: [...BELOW_SESSION, 'session', 'protocol'],
  server: [...BELOW_ROLES],
  client: [...BELOW_ROLES],
  // stdio and http are transports, but above the roles: the HTTP handler binds an
  // McpServer (one server session per Mcp-Session-Id) and the client transports read the
  // method constants and the stateless era's `_meta`.
  stdio: [...BELOW_ROLES, ...ROLES],
  http: [...BELOW_ROLES, ...ROLES],
  tasks: [...BELOW_ROLES, ...ROLES],
  auth: [...BELOW_ROLES, ...ROLES],
  extensions: [...BELOW_ROLES, ...ROLES],
  // the proxy extends its roles with the task methods (tasks/wire.ts: the tables, pure) and
  // forwards the official extensions' methods (extensions/*/wire.ts: their tables, pure); the
  // gateway serves its server through the (runtime-neutral) Streamable HTTP handler
  compose: [...BELOW_ROLES, ...ROLES, 'tasks', 'http', 'extensions'],
  'client-node': [...BELOW_ROLES, ...ROLES, ...EXTENSIONS],
  // implements the stores the HTTP transport and the tasks engine define
  redis: [...BELOW_ROLES, ...ROLES, ...EXTENSIONS],
  otel: [...BELOW_ROLES, ...ROLES],
  testing: [...BELOW_ROLES, ...ROLES, ...EXTENSIONS],
  demo: [...BELOW_ROLES, ...ROLES, ...EXTENSIONS, 'extensions'],
  // `mcpkit demo` serves the demo server; `mcpkit demo --redis URL` loads mcpkit/redis on demand; `mcpkit list --config FILE` builds its pool with mcpkit/client/node; `mcpkit proxy` serves mcpkit/compose's proxy
  cli: [...BELOW_ROLES, ...ROLES, ...EXTENSIONS, 'demo', 'redis', 'compose', 'client-node'],
};

/**
 * Today's imports that the table does not allow, accepted, each with its reason
 * (`importer -> target`, paths relative to `src/`). Adding one needs a reason as good.
 */
const ACCEPTED_EXCEPTIONS: Readonly<Record<string, string>> = {
  // auth is HTTP authorization: it implements the contracts the HTTP transport defines
  'auth/web.ts -> http/server/types.ts': 're-exports the HttpAuthorizer contract auth implements (types only; mcpkit/auth re-exports all of auth/web.ts)',
  'auth/server/bearer.ts -> http/server/types.ts': 'requireBearerAuth() returns an HttpAuthorizer over HttpRequest/HttpReply (types only)',
  'auth/server/third-party.ts -> http/server/types.ts': 'the third-party authorization routes answer HttpRequest with HttpReply (types only)',
  'auth/server/third-party.ts -> http/server/web.ts': 'reuses the Request/Response conversion of the web-standard adapter for those routes',
  'auth/client/oauth-client.ts -> http/client/common.ts': 'the OAuth client implements the HttpAuthorization hook of the HTTP client transports (types only)',
};

/** Server-side and client-side modules, by prefix: neither side imports the other. */
const SIDES: ReadonlyArray<readonly [prefix: string, side: 'server' | 'client']> = [
  ['server/', 'server'],
  ['http/server/', 'server'],
  ['auth/server/', 'server'],
  ['stdio/server-transport.ts', 'server'],
  ['client/', 'client'],
  ['http/client/', 'client'],
  ['auth/client/', 'client'],
  ['stdio/client-transport.ts', 'client'],
];

/** The server's registries (keyed sets, pagination, schema handling): they never import the role. */
const REGISTRIES: ReadonlySet<string> = new Set(
  ['tools', 'resources', 'prompts', 'completions', 'pagination', 'uri-template', 'infer', 'json-check', 'content-compat'].map((n) => `server/${n}.ts`),
);
/** The server role's modules (connections, handshake, era layers, middleware, entry point). */
const SERVER_ROLE: ReadonlySet<string> = new Set(
  [
    'server',
    'connection',
    'interceptors',
    'era',
    'client-answers',
    'stateless/layer',
    'stateless/request',
    'stateless/dispatch',
    'stateless/mrtr',
    'middleware',
    'index',
  ].map((n) => `server/${n}.ts`),
);

/**
 * The 2026-07-28 (stateless) era's folder in each layer: a module is of that era exactly
 * when it lives under a `stateless/` folder (`protocol/stateless/`, `server/stateless/`,
 * `http/server/stateless/`, …), so the era's code is found by where it is, not by its name.
 */
const ERA_2026_FOLDER = /(?:^|\/)stateless\//;
/** A name that says "2026-07-28 era" (a `stateless*` or `mrtr` module): it must be in the era's folder. */
const ERA_2026_NAME = /(?:^|\/)(?:stateless(?:-[a-z0-9-]+)?|mrtr)\.ts$/;
/** Modules that serve the 2025 era only; no 2026-era module may import them. */
const ERA_2025_ONLY: ReadonlySet<string> = new Set([
  'http/server/session-transport.ts', // Mcp-Session-Id sessions, GET stream, resumption
  'http/server/legacy-sse.ts', // 2024-11-05 HTTP+SSE
  'http/client/legacy-sse.ts',
]);

/**
 * Today's seams: 2025-era (or era-neutral) modules that import a 2026-era module, each
 * with the targets it may import and why. Everything else of the 2026 era is reached only
 * through these.
 */
const ERA_SEAMS: Readonly<Record<string, { readonly targets: readonly string[]; readonly reason: string }>> = {
  'protocol/incoming.ts': {
    targets: ['protocol/stateless/wire.ts'],
    reason: 'the era of a request is read once, where it enters: a claiming `_meta` picks that revision’s table',
  },
  'protocol/table.ts': { targets: ['protocol/stateless/wire.ts'], reason: 'the 2026-07-28 method table sits with the other revision tables' },
  'server/server.ts': {
    targets: ['protocol/stateless/wire.ts', 'server/stateless/layer.ts', 'server/stateless/dispatch.ts'],
    reason: 'McpServer splits its revisions by era, holds the StatelessLayer and its handler table, and serves connectionless 2026 requests',
  },
  'server/era.ts': { targets: ['server/stateless/request.ts'], reason: 'the era strategy interface names the 2026 strategy’s type (types only)' },
  'server/index.ts': {
    targets: [
      'protocol/stateless/wire.ts',
      'server/stateless/layer.ts',
      'server/stateless/request.ts',
      'server/stateless/mrtr.ts',
      'server/stateless/dispatch.ts',
    ],
    reason: 'entry point: re-exports the era’s public names',
  },
  'client/client.ts': {
    targets: ['protocol/stateless/wire.ts', 'client/stateless/client.ts'],
    reason: 'the Client picks the era when it connects and hands 2026 calls to StatelessClient',
  },
  'client/index.ts': { targets: ['protocol/stateless/wire.ts', 'client/stateless/client.ts'], reason: 'entry point: re-exports the era’s public names' },
  'http/index.ts': {
    targets: ['http/server/stateless/post.ts', 'http/server/stateless/exchange.ts'],
    reason: 'entry point: re-exports the era’s public names',
  },
  'http/server/index.ts': {
    targets: ['http/server/stateless/post.ts', 'http/server/stateless/exchange.ts'],
    reason: 'entry point (`mcpkit/http/server`): re-exports the era’s public names',
  },
  'http/server/handler.ts': {
    targets: ['http/server/stateless/post.ts'],
    reason: 'one URL serves both eras: a POST that claims 2026 goes to StatelessPostHandler',
  },
  'tasks/index.ts': { targets: ['tasks/stateless/tasks.ts'], reason: 'entry point: re-exports the era’s public names' },
  'tasks/server.ts': { targets: ['tasks/stateless/tasks.ts'], reason: 'TaskServer installs the 2026 extension form beside the 2025-11-25 one' },
  'tasks/wire.ts': { targets: ['protocol/stateless/wire.ts'], reason: 'chooses the wire form of a task result by revision' },
  'compose/source.ts': {
    targets: ['protocol/stateless/wire.ts'],
    reason:
      'an in-process mounted server is called through its connectionless 2026-07-28 dispatch (the outer caller’s context per request): the request’s `_meta` is built and read there',
  },
  'demo/server.ts': { targets: ['demo/stateless/tools.ts', 'demo/stateless/tasks.ts'], reason: 'the demo registers its 2026-only tools' },
  'cli/connection.ts': { targets: ['protocol/stateless/wire.ts'], reason: '--protocol-version picks the era' },
  'cli/commands/call.ts': { targets: ['protocol/stateless/wire.ts'], reason: 'explains a direct answer only for the 2025 era' },
  'cli/commands/ping.ts': { targets: ['protocol/stateless/wire.ts'], reason: 'pings a 2026 server with server/discover' },
};

// ───────────── the scan ─────────────

/** Static imports and re-exports at the start of a line, side-effect imports, literal `import()`. */
const STATIC = /^(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"](\.\.?\/[^'"]+)['"]\s*\)/g;
/** A module started or loaded by its URL (`new URL('./x.js', import.meta.url)`): reached, not imported. */
const BY_URL = /\bnew URL\(\s*['"](\.\.?\/[^'"]+\.js)['"]\s*,\s*import\.meta\.url\s*\)/g;

/** One import between two library files, paths relative to `src/` with `/`. */
interface Edge {
  readonly from: string;
  readonly to: string;
}

/** A test beside its code: compiled for the tests only, never shipped (tsconfig.json excludes it). */
function isTestFile(name: string): boolean {
  return name.endsWith('.test.ts');
}

/** Every non-test `.ts` file under `src/` (what dist/ ships), relative, `/`-separated, sorted. */
function sourceFiles(): string[] {
  const out: string[] = [];
  (function walk(dir: string) {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !isTestFile(name)) out.push(relative(SRC, path).split(sep).join('/'));
    }
  })(SRC);
  return out;
}

/** `./x.js` named in `file`, as the path of its source `x.ts` relative to `src/` (`../` when outside). */
function sourceOf(file: string, spec: string): string {
  return relative(SRC, resolve(SRC, dirname(file), spec.slice(0, -3) + '.ts'))
    .split(sep)
    .join('/');
}

/** The relative specifiers that name TypeScript modules (`./x.js` → `x.ts`), resolved from `file`. */
function modulesNamed(file: string, specs: string[]): string[] {
  return specs.filter((spec) => spec.startsWith('.') && spec.endsWith('.js')).map((spec) => sourceOf(file, spec));
}

/** The static imports of `file` (`import`, `import type`, `export ... from`, side-effect imports), resolved. */
function staticImportsOf(file: string): string[] {
  return modulesNamed(
    file,
    [...readFileSync(join(SRC, file), 'utf8').matchAll(STATIC)].map((m) => (m[1] ?? m[2])!),
  );
}

/** The relative imports of `file` that name TypeScript modules: static ones and literal `import()`, resolved. */
function importsOf(file: string): string[] {
  const dynamic = [...readFileSync(join(SRC, file), 'utf8').matchAll(DYNAMIC)].map((m) => m[1]!);
  return [...staticImportsOf(file), ...modulesNamed(file, dynamic)];
}

/** The modules `file` loads by URL (child process scripts, workers), resolved as {@link importsOf} does. */
function loadedBy(file: string): string[] {
  return [...readFileSync(join(SRC, file), 'utf8').matchAll(BY_URL)].map((m) => sourceOf(file, m[1]!));
}

function placementOf(path: string): Layer | undefined {
  let best: readonly [string, Layer] | undefined;
  for (const entry of PLACEMENT) if (path.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  return best?.[1];
}

function sideOf(path: string): 'server' | 'client' | undefined {
  return SIDES.find(([prefix]) => path.startsWith(prefix))?.[1];
}

function isEra2026(path: string): boolean {
  return ERA_2026_FOLDER.test(path);
}

const FILES = sourceFiles();
const EDGES: Edge[] = FILES.flatMap((from) => importsOf(from).map((to) => ({ from, to })));

/** Edges between two library modules (both inside `src/`). */
function libraryEdges(): Edge[] {
  return EDGES.filter((e) => !e.to.startsWith('../'));
}

/** Fails listing `problems`, and listing allowances that matched nothing (stale, to remove). */
function report(problems: string[], unused: string[], what: string): void {
  const lines = [...problems, ...unused.map((u) => `${what} no longer matches an import; remove it: ${u}`)];
  assert.deepEqual(lines, [], `\n${lines.join('\n')}`);
}

/**
 * The import cycles of `graph` (module → the modules it imports): each strongly connected
 * component of more than one module, or a module that imports itself, as its modules
 * (sorted) and one shortest cycle through the first of them. Sorted by that first module.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): Array<{ modules: string[]; example: string[] }> {
  // Tarjan's algorithm, iterative (no recursion depth to outgrow)
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = graph.get(frame.node) ?? [];
      if (frame.edge < targets.length) {
        const to = targets[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      for (let member = stack.pop(); ; member = stack.pop()) {
        onStack.delete(member!);
        component.push(member!);
        if (member === frame.node) break;
      }
      components.push(component);
    }
  }
  const cycles = components
    .filter((c) => c.length > 1 || (graph.get(c[0]!) ?? []).includes(c[0]!))
    .map((component) => {
      const modules = component.sort();
      return { modules, example: shortestCycle(graph, modules[0]!, new Set(modules)) };
    });
  return cycles.sort((a, b) => (a.modules[0]! < b.modules[0]! ? -1 : 1));
}

/** A shortest path from `start` back to itself inside `within` (breadth first): `[start, ..., start]`. */
function shortestCycle(graph: ReadonlyMap<string, readonly string[]>, start: string, within: ReadonlySet<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at]!;
    for (const to of graph.get(node) ?? []) {
      if (!within.has(to)) continue;
      if (to === start) {
        const chain: string[] = [];
        for (let step: string | undefined = node; step !== start && step !== undefined; step = cameFrom.get(step)) chain.unshift(step);
        return [start, ...chain, start];
      }
      if (cameFrom.has(to)) continue;
      cameFrom.set(to, node);
      queue.push(to);
    }
  }
  return [start];
}

// ───────────── the tests ─────────────

test('the scan finds the imports (sanity: a known edge and enough of them)', () => {
  assert.ok(FILES.length > 100, `found ${FILES.length} source files`);
  assert.ok(EDGES.some((e) => e.from === 'protocol/endpoint.ts' && e.to === 'session/session.ts'));
  assert.ok(
    EDGES.some((e) => e.from === 'index.ts' && e.to === 'jsonrpc/errors.ts'),
    'export ... from is an edge',
  );
  for (const edge of EDGES)
    assert.ok(existsSync(join(SRC, edge.to)), `src/${edge.from} imports ${join('src', edge.to)}, which does not exist (a misread import?)`);
});

test('every folder and root file of src/ has a layer', () => {
  const unplaced = [...new Set(FILES.filter((f) => placementOf(f) === undefined).map((f) => f.split('/')[0]!))];
  assert.deepEqual(unplaced, [], `add these to PLACEMENT in test/packaging/layering.test.ts: ${unplaced.join(', ')}`);
});

test('the table itself goes one way: no cycle', () => {
  const graph = ALLOWED as Readonly<Record<string, readonly Layer[]>>;
  const state = new Map<string, 'open' | 'done'>();
  const visit = (layer: string, path: string[]): void => {
    if (state.get(layer) === 'done') return;
    assert.notEqual(state.get(layer), 'open', `ALLOWED has a cycle: ${[...path, layer].join(' -> ')}`);
    state.set(layer, 'open');
    for (const next of graph[layer] ?? []) visit(next, [...path, layer]);
    state.set(layer, 'done');
  };
  for (const layer of Object.keys(graph)) visit(layer, []);
});

test('the cycle finder finds cycles, type-only ones and self-imports included (sanity)', () => {
  const graph = new Map<string, string[]>([
    ['a.ts', ['b.ts', 'x.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['x.ts', ['y.ts']],
    ['y.ts', []],
    ['s.ts', ['s.ts']],
  ]);
  assert.deepEqual(importCycles(graph), [
    { modules: ['a.ts', 'b.ts', 'c.ts'], example: ['a.ts', 'b.ts', 'c.ts', 'a.ts'] },
    { modules: ['s.ts'], example: ['s.ts', 's.ts'] },
  ]);
  assert.deepEqual(
    importCycles(
      new Map([
        ['x.ts', ['y.ts']],
        ['y.ts', []],
      ]),
    ),
    [],
  );
  // the scan counts `import type` and `export ... from` as static edges
  assert.ok(staticImportsOf('cli/commands/call.ts').includes('tasks/index.ts'), 'import type is an edge');
  assert.ok(staticImportsOf('index.ts').includes('jsonrpc/errors.ts'), 'export ... from is an edge');
});

test('no import cycle between library modules, not even a type-only one', () => {
  const graph = new Map(FILES.map((file) => [file, staticImportsOf(file).filter((to) => FILES.includes(to))]));
  const cycles = importCycles(graph).map(
    ({ modules, example }) =>
      `${modules.length} modules: ${modules.map((m) => `src/${m}`).join(', ')}\n    e.g. ${example.map((m) => `src/${m}`).join(' -> ')}`,
  );
  assert.deepEqual(
    cycles,
    [],
    `import cycles in src/ (type-only imports and re-exports count):\n  ${cycles.join('\n  ')}\n` +
      'Break each: move what both sides need (usually a type or an interface) into a leaf module that imports neither, ' +
      'or let the lower module define the contract and the higher one implement it.',
  );
});

test('library code imports nothing outside src/ and no test file', () => {
  const problems = EDGES.filter((e) => e.to.startsWith('../') || isTestFile(e.to)).map(
    (e) => `src/${e.from} imports ${join('src', e.to)}: library code may not depend on test code`,
  );
  report(problems, [], '');
});

test('everything src/ ships is reached from an entry point (test-only code lives in test/)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> };
  const toSource = (built: string): string => built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
  // every export, and the CLI that bin/mcpkit.js starts
  const entries = [...Object.values(pkg.exports).map((e) => toSource(e.import)), 'cli/main.ts'];
  for (const entry of entries) assert.ok(FILES.includes(entry), `entry point src/${entry} does not exist`);
  const reached = new Set<string>();
  const queue = [...entries];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (reached.has(file) || !FILES.includes(file)) continue;
    reached.add(file);
    queue.push(...importsOf(file), ...loadedBy(file));
  }
  const unreached = FILES.filter((f) => !reached.has(f)).map((f) => `src/${f}`);
  assert.deepEqual(unreached, [], 'no entry point reaches these, so they are dead or test-only: delete them, or move them to test/ (helpers to test/helpers/)');
});

test('no import goes the wrong way between layers', () => {
  const problems: string[] = [];
  const used = new Set<string>();
  for (const { from, to } of EDGES) {
    const a = placementOf(from);
    const b = placementOf(to);
    if (a === undefined || b === undefined || a === b) continue;
    if (ALLOWED[a].includes(b)) continue;
    const key = `${from} -> ${to}`;
    if (key in ACCEPTED_EXCEPTIONS) {
      used.add(key);
      continue;
    }
    problems.push(`src/${from} imports src/${to}: ${a} may not depend on ${b}`);
  }
  report(
    problems,
    Object.keys(ACCEPTED_EXCEPTIONS).filter((k) => !used.has(k)),
    'ACCEPTED_EXCEPTIONS entry',
  );
});

test('server-side and client-side modules do not import each other', () => {
  const problems: string[] = [];
  for (const { from, to } of libraryEdges()) {
    const a = sideOf(from);
    const b = sideOf(to);
    if (a !== undefined && b !== undefined && a !== b) problems.push(`src/${from} imports src/${to}: ${a} side may not depend on ${b} side`);
  }
  report(problems, [], '');
});

test('the server registries do not import the server role', () => {
  for (const file of [...REGISTRIES, ...SERVER_ROLE]) assert.ok(FILES.includes(file), `src/${file} is listed in layering.test.ts but does not exist`);
  const problems = libraryEdges()
    .filter((e) => REGISTRIES.has(e.from) && SERVER_ROLE.has(e.to))
    .map((e) => `src/${e.from} imports src/${e.to}: server registries may not depend on the server role`);
  report(problems, [], '');
});

test('2025-era modules reach 2026-07-28 code only through the listed seams', () => {
  const problems: string[] = [];
  const used = new Set<string>();
  for (const { from, to } of libraryEdges()) {
    if (isEra2026(from) || !isEra2026(to)) continue;
    if (ERA_SEAMS[from]?.targets.includes(to)) {
      used.add(`${from} -> ${to}`);
      continue;
    }
    problems.push(
      `src/${from} imports src/${to}: a 2025-era module may not depend on 2026-07-28 code (add a seam to ERA_SEAMS with its reason, or move the code)`,
    );
  }
  const listed = Object.entries(ERA_SEAMS).flatMap(([from, seam]) => seam.targets.map((to) => `${from} -> ${to}`));
  report(
    problems,
    listed.filter((k) => !used.has(k)),
    'ERA_SEAMS entry',
  );
});

test('2026-07-28 code lives in its era’s folders only', () => {
  const misplaced = FILES.filter((f) => ERA_2026_NAME.test(f) && !ERA_2026_FOLDER.test(f)).map(
    (f) => `src/${f} is named for the 2026-07-28 era: move it into its layer's stateless/ folder`,
  );
  report(misplaced, [], '');
  assert.ok(FILES.filter((f) => ERA_2026_FOLDER.test(f)).length >= 10, 'the era folders hold the era');
});

test('2026-07-28 modules do not import 2025-only modules', () => {
  for (const file of ERA_2025_ONLY) assert.ok(FILES.includes(file), `src/${file} is listed in layering.test.ts but does not exist`);
  const problems = libraryEdges()
    .filter((e) => isEra2026(e.from) && ERA_2025_ONLY.has(e.to))
    .map((e) => `src/${e.from} imports src/${e.to}: 2026-07-28 code may not depend on a 2025-only module`);
  report(problems, [], '');
});
