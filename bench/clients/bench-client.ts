/**
 * One client under test in the client section of `npm run bench` (`client-bench.ts`),
 * run as its own process so that its CPU is its own: it starts the bare benchmark server
 * (`servers/bare-stdio.js` as its stdio child, or `servers/bare-http.js` through the HTTP
 * driver's process handling), connects with the chosen client, and then obeys commands.
 *
 * Command line: `--client=raw|fetch|mcpkit|mcpkit-fetch|official|official-v2 --transport=stdio|http
 * [--mode=json|sse]`. `raw` is the benchmark's own raw JSON-RPC driver (`driver.ts`,
 * `http-driver.ts`: pre-serialized requests, id scanning), the ceiling a client is
 * measured against; the others call `tools/call echo` through their `Client` API, keeping
 * `inFlight` calls outstanding with that many loops of awaited calls (the way an
 * application would), each answer's echoed text checked.
 *
 * Protocol with the parent (JSON lines; see {@link ClientCommand}, {@link ClientReply}):
 * stdin carries commands, stdout the replies, one reply per command in order; the first
 * line, before any command, is `{"ok":true,"ready":true,…}` once the client is connected.
 * `gc` needs `--expose-gc` on the process (else the heap is read uncollected and `forced`
 * says so). The process exits after `close` or when stdin ends.
 *
 * Nothing here is part of mcpkit; it is scaffolding for the benchmark only.
 */

import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ECHO_MESSAGE, StdioDriver } from '../driver.js';
import type { HttpSession } from '../http-driver.js';
import { HttpDriver } from '../http-driver.js';
import { type ClientArgs, type ClientCommand, type ClientReply, parseClientArgs, runLoops } from './protocol.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVERS = resolve(HERE, '..', 'servers');
const ROOT = resolve(HERE, '..', '..', '..');
const TIMEOUT_MS = 300_000;

/** A connected client: `run` performs `calls` echo calls at `inFlight`; `close` ends it and its server. */
interface Harness {
  run(calls: number, inFlight: number): Promise<void>;
  close(): Promise<void>;
}

/** The shape every SDK's `callTool` result has for the echo tool. */
type EchoResult = { content?: Array<{ type?: string; text?: string }>; isError?: boolean };

function checked(result: unknown): void {
  const r = result as EchoResult;
  const first = r.content?.[0];
  if (r.isError === true || first?.type !== 'text' || first.text !== ECHO_MESSAGE)
    throw new Error(`unexpected echo answer: ${JSON.stringify(result).slice(0, 200)}`);
}

const ECHO = { name: 'echo', arguments: { message: ECHO_MESSAGE } };

function serverScript(args: ClientArgs): string {
  if (args.era === '2026') return join(SERVERS, 'mcpkit-minimal-http.js');
  return join(SERVERS, args.transport === 'stdio' ? 'bare-stdio.js' : 'bare-http.js');
}

async function startHttpServer(args: ClientArgs): Promise<HttpDriver> {
  const spec = {
    name: `${args.era === '2026' ? 'mcpkit-minimal' : 'bare'} (${args.mode})`,
    command: process.execPath,
    args: [serverScript(args), `--mode=${args.mode}`],
    cwd: ROOT,
  };
  return (await HttpDriver.start(spec, { timeoutMs: TIMEOUT_MS })).driver;
}

async function rawHarness(args: ClientArgs): Promise<Harness> {
  if (args.transport === 'stdio') {
    const { driver } = await StdioDriver.start({ name: 'bare', command: process.execPath, args: [serverScript(args)], cwd: ROOT }, { timeoutMs: TIMEOUT_MS });
    return { run: async (calls, inFlight) => void (await driver.run(calls, inFlight, TIMEOUT_MS)), close: () => driver.close() };
  }
  const server = await startHttpServer(args);
  let session: HttpSession;
  try {
    session = args.era === '2026' ? await server.openStatelessSession(TIMEOUT_MS) : await server.openSession(TIMEOUT_MS);
  } catch (error) {
    await server.close();
    throw error;
  }
  // the stateless era answers in JSON whatever the mode (no progress or logs asked for)
  const expect = args.era === '2026' ? 'json' : args.mode;
  return { run: async (calls, inFlight) => void (await session.run(calls, inFlight, TIMEOUT_MS, expect)), close: () => server.close() };
}

/**
 * The `fetch` floor: `initialize` and `notifications/initialized` by hand, then each call one
 * `fetch` POST carrying the session headers, its body read as text and parsed (JSON mode;
 * an SSE body's one `data:` line otherwise).
 */
async function fetchHarness(args: ClientArgs): Promise<Harness> {
  if (args.transport !== 'http') throw new Error('the fetch client runs over HTTP only');
  const server = await startHttpServer(args);
  const url = server.url;
  const post = (body: string, headers: Record<string, string>): Promise<Response> =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
  const parse = (text: string): unknown =>
    JSON.parse(text.startsWith('{') ? text : text.slice(text.indexOf('data: ') + 6, text.indexOf('\n', text.indexOf('data: '))));
  try {
    const init = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fetch-bench-client', version: '1.0.0' } },
      }),
      {},
    );
    const session = init.headers.get('mcp-session-id');
    const version = (parse(await init.text()) as { result?: { protocolVersion?: string } }).result?.protocolVersion;
    if (session === null || version === undefined) throw new Error('initialize gave no session or version');
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': version };
    await (await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', headers)).text();
    let id = 1;
    const call = async (): Promise<void> => {
      const response = await post(JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: ECHO }), headers);
      checked((parse(await response.text()) as { result?: unknown }).result);
    };
    return { run: (calls, inFlight) => runLoops(call, calls, inFlight), close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** An SDK client behind the same three calls. */
interface SdkClient {
  callTool(params: typeof ECHO): Promise<unknown>;
  close(): Promise<void>;
}

async function sdkHarness(connect: (server: { command: string; args: string[] } | URL) => Promise<SdkClient>, args: ClientArgs): Promise<Harness> {
  let server: HttpDriver | undefined;
  if (args.transport === 'http') server = await startHttpServer(args);
  let client: SdkClient;
  try {
    client = await connect(server?.url ?? { command: process.execPath, args: [serverScript(args)] });
  } catch (error) {
    await server?.close();
    throw error;
  }
  const call = async (): Promise<void> => checked(await client.callTool(ECHO));
  return {
    run: (calls, inFlight) => runLoops(call, calls, inFlight),
    close: async () => {
      await client.close().catch(() => {});
      await server?.close();
    },
  };
}

/**
 * mcpkit's Client; over HTTP with `nodeHttpRequester` (`mcpkit`) or with `fetch`
 * (`mcpkit-fetch`). Imported from the package's entry points (the bundled dist/), the code
 * users run: the bundle once cost a tool call 17 % more instructions than the compiler's
 * output of the same sources (scripts/build.mjs, `keepNames`).
 */
async function mcpkitHarness(args: ClientArgs): Promise<Harness> {
  const { ALL_REVISIONS, Client } = await import('mcpkit/client');
  const { StdioClientTransport } = await import('mcpkit/stdio');
  const { StreamableHttpClientTransport } = await import('mcpkit/http/client');
  const { nodeHttpRequester } = await import('mcpkit/node/client');
  const requester = args.client === 'mcpkit' && args.transport === 'http' ? nodeHttpRequester() : undefined;
  const harness = await sdkHarness(async (server) => {
    const client = new Client({ name: 'mcpkit-bench-client', version: '1.0.0' }, args.era === '2026' ? { protocolVersions: ALL_REVISIONS } : {});
    const transport =
      server instanceof URL
        ? new StreamableHttpClientTransport({ url: server, requester })
        : new StdioClientTransport({ command: server.command, args: server.args, cwd: ROOT });
    await client.connect(transport);
    if (args.era === '2026' && client.era !== 'stateless') throw new Error(`expected the stateless era, got ${String(client.era)}`);
    return client;
  }, args);
  return {
    run: harness.run,
    close: async () => {
      await harness.close();
      requester?.close();
    },
  };
}

async function officialHarness(args: ClientArgs): Promise<Harness> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return sdkHarness(async (server) => {
    const client = new Client({ name: 'official-bench-client', version: '1.0.0' });
    const transport =
      server instanceof URL ? new StreamableHTTPClientTransport(server) : new StdioClientTransport({ command: server.command, args: server.args, cwd: ROOT });
    await client.connect(transport);
    return { callTool: (p) => client.callTool(p), close: () => client.close() };
  }, args);
}

async function officialV2Harness(args: ClientArgs): Promise<Harness> {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  return sdkHarness(async (server) => {
    const client = new Client({ name: 'official-v2-bench-client', version: '1.0.0' });
    const transport =
      server instanceof URL ? new StreamableHTTPClientTransport(server) : new StdioClientTransport({ command: server.command, args: server.args, cwd: ROOT });
    await client.connect(transport);
    return { callTool: (p) => client.callTool(p), close: () => client.close() };
  }, args);
}

const HARNESSES: Record<ClientArgs['client'], (args: ClientArgs) => Promise<Harness>> = {
  raw: rawHarness,
  fetch: fetchHarness,
  mcpkit: mcpkitHarness,
  'mcpkit-fetch': mcpkitHarness,
  official: officialHarness,
  'official-v2': officialV2Harness,
};

function reply(message: ClientReply): void {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function heapAfterGc(): Promise<ClientReply> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  return new Promise((resolveReply) =>
    setImmediate(() => {
      gc?.();
      const m = process.memoryUsage();
      resolveReply({ ok: true, heapUsedKb: Math.round(m.heapUsed / 1024), rssKb: Math.round(m.rss / 1024), forced: gc !== undefined });
    }),
  );
}

async function main(): Promise<void> {
  const args = parseClientArgs(process.argv.slice(2));
  const t0 = performance.now();
  const harness = await HARNESSES[args.client](args);
  reply({ ok: true, ready: true, connectMs: performance.now() - t0 });
  let closing = false;
  const end = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await harness.close();
    process.exit(0);
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  // One command at a time, in order: the parent waits for each reply.
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    queue = queue.then(async () => {
      if (line.trim() === '') return;
      let command: ClientCommand;
      try {
        command = JSON.parse(line) as ClientCommand;
      } catch {
        reply({ ok: false, error: `unparseable command: ${line.slice(0, 100)}` });
        return;
      }
      try {
        if (command.cmd === 'run') {
          const cpu0 = process.cpuUsage();
          const started = performance.now();
          await harness.run(command.calls, command.inFlight);
          const elapsedMs = performance.now() - started;
          const cpu = process.cpuUsage(cpu0);
          reply({ ok: true, calls: command.calls, inFlight: command.inFlight, elapsedMs, cpuUs: cpu.user + cpu.system });
        } else if (command.cmd === 'gc') {
          reply(await heapAfterGc());
        } else if (command.cmd === 'close') {
          reply({ ok: true });
          await end();
        } else {
          reply({ ok: false, error: `unknown command: ${line.slice(0, 100)}` });
        }
      } catch (error) {
        reply({ ok: false, error: error instanceof Error ? error.message : String(error) });
      }
    });
  });
  lines.on('close', () => void queue.then(end));
}

main().catch((error: unknown) => {
  reply({ ok: false, error: `cannot start: ${error instanceof Error ? error.message : String(error)}` });
  process.exit(1);
});
