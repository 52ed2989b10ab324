/**
 * Every public method typed as returning a promise returns one, rejected when it fails, and
 * never throws synchronously: `client.callTool(x).catch(f)` must not crash the caller.
 *
 * Design note: the methods are found from what ships, the declarations of every entry point
 * of package.json (dist/), with the TypeScript checker: each exported class, each method
 * (inherited ones included) with a signature returning `Promise`. Each class is built by a
 * factory below in a state where its methods fail (not connected, closed, or given nothing),
 * and every such method is called with no arguments, then with junk arguments: the call must
 * return a thenable (whose rejection is swallowed here). A `TypeError` (what junk of
 * the wrong type, `undefined` for a required object, causes) is left to the type checker; any other synchronous throw (a
 * LocalError `not_connected`, a RangeError for a bad option) is an offender. A class exported later without a
 * factory, and that `new C()` cannot build, fails the test by name, so the list stays whole.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { type RedisServer, startRedis } from '../helpers/redis/redis-server.js';
import { REPO_ROOT } from '../helpers/repo.js';

type Ctor = new (...args: unknown[]) => object;
type Modules = Map<string, Ctor>;

/** Exported classes and their promise-returning methods, from the shipped declarations. */
function promiseMethods(): Map<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string }> };
  const entries = Object.values(pkg.exports).map((e) => join(REPO_ROOT, e.types));
  const program = ts.createProgram(entries, { noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const found = new Map<string, string[]>();
  for (const file of entries) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!);
    for (let symbol of checker.getExportsOfModule(module!)) {
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      if (!(symbol.flags & ts.SymbolFlags.Class) || found.has(symbol.name)) continue;
      const methods: string[] = [];
      for (const property of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
        if (!(property.flags & ts.SymbolFlags.Method)) continue;
        const signatures = checker.getTypeOfSymbol(property).getCallSignatures();
        if (signatures.some((s) => checker.getReturnTypeOfSignature(s).getSymbol()?.name === 'Promise')) methods.push(property.name);
      }
      if (methods.length > 0) found.set(symbol.name, methods);
    }
  }
  return found;
}

/** Every class exported by an entry point, by name, as shipped. */
async function exportedClasses(): Promise<Modules> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> };
  const classes: Modules = new Map();
  for (const entry of Object.values(pkg.exports)) {
    const module = (await import(pathToFileURL(join(REPO_ROOT, entry.import)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) if (typeof value === 'function' && !classes.has(name)) classes.set(name, value as Ctor);
  }
  return classes;
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.close();
});

/** Builds instances in a failing state; a closer ends what they hold afterwards. */
type Factory = (c: Modules) => Promise<object> | object;

function make(c: Modules, name: string, ...args: unknown[]): object {
  return new (c.get(name)!)(...args);
}

const closers: Array<() => unknown> = [];

async function redisConnection(c: Modules): Promise<object> {
  const connection = make(c, 'RedisConnection', { url: redis.url, connectTimeoutMs: 2000 }) as { whenReady(): Promise<void>; close(): Promise<void> };
  await connection.whenReady();
  closers.push(() => connection.close());
  return connection;
}

const mcpServer = (c: Modules) => make(c, 'McpServer', { name: 's', version: '1' });
const client = (c: Modules) => make(c, 'Client', { name: 'c', version: '1' });

const FACTORIES: Record<string, Factory> = {
  StdioClientTransport: (c) => make(c, 'StdioClientTransport', { command: '/nonexistent/mcpkit-promise-test' }),
  TaskServer: (c) => make(c, 'TaskServer', mcpServer(c)),
  StatelessTasks: (c) => make(c, 'StatelessTasks', mcpServer(c), make(c, 'InMemoryTaskStore')),
  TaskClient: (c) => make(c, 'TaskClient', client(c)),
  TaskStoreDurableObject: (c) => make(c, 'TaskStoreDurableObject', { storage: make(c, 'MapKeyValue') }),
  SkillsServer: (c) => make(c, 'SkillsServer', mcpServer(c)),
  SkillsClient: (c) => make(c, 'SkillsClient', client(c)),
  AppsClient: (c) => make(c, 'AppsClient', client(c)),
  StreamableHttpHandler: (c) => make(c, 'StreamableHttpHandler', { server: mcpServer(c) }),
  StreamableHttpClientTransport: (c) => make(c, 'StreamableHttpClientTransport', { url: 'http://127.0.0.1:9/mcp' }),
  SseClientTransport: (c) => make(c, 'SseClientTransport', { url: 'http://127.0.0.1:9/sse' }),
  FallbackTransport: (c) => make(c, 'FallbackTransport', 'http://127.0.0.1:9/mcp'),
  OAuthClient: (c) => make(c, 'OAuthClient', { serverUrl: 'https://127.0.0.1:9/mcp', grant: { type: 'client_credentials' } }),
  PendingTaskRequest: (c) =>
    make(c, 'PendingTaskRequest', undefined, Promise.reject(new Error('failed')).catch(() => undefined) as Promise<unknown>, () =>
      Promise.reject(new Error('failed')),
    ),
  TaskRequestor: (c) => make(c, 'TaskRequestor', make(c, 'Endpoint', 'client', make(c, 'InMemoryTransport'))),
  RecordingTransport: (c) => make(c, 'RecordingTransport', make(c, 'InMemoryTransport'), { side: 'client' }),
  SqliteTaskStore: async (c) => {
    const { default: Database } = (await import('better-sqlite3')) as { default: new (path: string) => { close(): void } };
    const db = new Database(':memory:');
    const store = make(c, 'SqliteTaskStore', db);
    db.close();
    return store;
  },
  McpProxy: async (c) => {
    const upstream = mcpServer(c) as { connect(t: object): Promise<unknown> };
    const pair = c.get('InMemoryTransport') as unknown as { createPair(): [object, object] };
    const open = (c.get('McpProxy') as unknown as { open(o: object): Promise<{ close(): Promise<void> }> }).open;
    const proxy = await open({
      upstream: () => {
        const [mine, theirs] = pair.createPair();
        void upstream.connect(theirs);
        return mine;
      },
      restart: false,
    });
    closers.push(() => proxy.close());
    return proxy;
  },
  RedisEventStore: async (c) => make(c, 'RedisEventStore', await redisConnection(c)),
  RedisBus: async (c) => make(c, 'RedisBus', await redisConnection(c)),
  RedisTaskStore: async (c) => (c.get('RedisTaskStore') as unknown as { open(r: object): Promise<object> }).open(await redisConnection(c)),
  RedisSessionDirectory: async (c) => (c.get('RedisSessionDirectory') as unknown as { open(r: object): Promise<object> }).open(await redisConnection(c)),
  RedisNotifier: async (c) => (c.get('RedisNotifier') as unknown as { open(b: object): Promise<object> }).open(make(c, 'RedisBus', await redisConnection(c))),
  RedisTaskInputRelay: async (c) =>
    (c.get('RedisTaskInputRelay') as unknown as { open(b: object): Promise<object> }).open(make(c, 'RedisBus', await redisConnection(c))),
};

/** Classes whose instances only the library makes (handed to handlers); built from a fake of their inputs is not meaningful. */
const MADE_BY_THE_LIBRARY: Record<string, string> = {
  RequestContext: 'handed to a request handler by a session',
  ServerRequestContext: 'handed to a request handler by a server session',
  SessionEra: 'made by a server session',
  StatelessRequest: 'made by the stateless-era dispatcher',
  StreamableSessionTransport: 'made by StreamableHttpHandler for a session',
  LegacySseTransport: 'made by StreamableHttpHandler for a legacy SSE connection',
  StatelessTaskContext: 'handed to a task handler by StatelessTasks',
  TaskServerRequestContext: 'handed to a task handler by TaskServer',
  TaskRequestContext: 'handed to a task handler by TaskServer',
  TaskWork: 'made by TaskEngine for a running task',
};

const JUNK: unknown[][] = [[], [undefined, undefined, undefined], [{}, {}, {}], ['x', 1, null]];

test('every promise-returning public method rejects instead of throwing', { timeout: 120_000 }, async () => {
  const methods = promiseMethods();
  assert.ok(methods.has('Client') && methods.get('Client')!.includes('callTool'), 'the walk found Client.callTool');
  const classes = await exportedClasses();
  const offenders: string[] = [];
  const unbuilt: string[] = [];
  for (const [name, names] of methods) {
    if (name in MADE_BY_THE_LIBRARY) continue;
    let instance: object;
    try {
      const factory = FACTORIES[name];
      instance = factory !== undefined ? await factory(classes) : make(classes, name);
    } catch (error) {
      unbuilt.push(`${name}: ${(error as Error).message}`);
      continue;
    }
    // close first: everything after it meets a closed object
    const ordered = [...names.filter((m) => m === 'close'), ...names.filter((m) => m !== 'close')];
    for (const method of ordered) {
      for (const args of JUNK) {
        let outcome: unknown;
        try {
          outcome = (instance as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
        } catch (error) {
          // junk of the wrong type (`undefined` for an object parameter) is the type checker's to refuse
          if (error instanceof TypeError) continue;
          offenders.push(
            `${name}.${method}(${args.map((a) => JSON.stringify(a) ?? 'undefined').join(', ')}) threw ${(error as Error)?.name}: ${(error as Error)?.message}`,
          );
          continue;
        }
        assert.equal(typeof (outcome as { then?: unknown })?.then, 'function', `${name}.${method} returned ${String(outcome)}, not a promise`);
        (outcome as Promise<unknown>).catch(() => {});
      }
    }
  }
  for (const close of closers) await Promise.resolve(close()).catch(() => {});
  assert.deepEqual(unbuilt, [], 'classes this test cannot build: add a factory');
  assert.deepEqual(offenders, [], 'public methods typed as returning a promise threw synchronously');
});
