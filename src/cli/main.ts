/**
 * The `mcpkit` command line.
 *
 *   mcpkit demo                     serve the demo server over stdio
 *   mcpkit demo --http [--port N]   serve it over Streamable HTTP (and legacy SSE) on 127.0.0.1
 *   mcpkit demo --task-db FILE      either, with tasks kept in a SQLite file
 *   mcpkit help                     usage
 *
 * Over stdio only protocol messages go to stdout; over HTTP stdout carries one line,
 * `LISTENING <url>`, first. Everything else goes to stderr.
 */
import { createDemoServer } from '../demo/server.js';
import { createStreamableHttpHandler } from '../http/server/handler.js';
import { disconnectAfterPriming } from '../http/server/session-transport.js';
import { serveNode } from '../http/node.js';
import { StdioServerTransport } from '../stdio/index.js';
import type { TaskStore } from '../tasks/index.js';

const USAGE = `Usage: mcpkit <command>

Commands:
  demo      Serve the demo MCP server over stdio (every tool, resource and prompt
            of the conformance suite's server contract, plus echo and blob).
            --http      serve it over Streamable HTTP on 127.0.0.1 instead, with the
                        legacy HTTP+SSE endpoints (/sse, /messages) too; prints
                        "LISTENING http://127.0.0.1:PORT/mcp" first on stdout
            --port N    the port for --http (default 3000; 0 picks a free one)
            --task-db FILE   keep tasks in a SQLite file, so they survive a restart
                        (needs the optional dependency better-sqlite3)
  help      Show this help.
`;

/** Runs the CLI with `argv` (without node and script). Resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo':
      return demo(rest);
    case 'run':
      return (await import('./serve/run-command.js')).run(rest);
    case 'dev':
      return (await import('./serve/dev-command.js')).run(rest);
    case 'install':
      return (await import('./install/install-command.js')).run(rest);
    case 'uninstall':
      return (await import('./install/uninstall-command.js')).run(rest);
    case 'installed':
      return (await import('./install/installed-command.js')).run(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stderr.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`mcpkit: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

/** The demo's task options from `--task-db FILE` (a SQLite store), `{}` without it, or an exit code. */
async function taskOptions(args: string[]): Promise<{ store?: TaskStore } | number> {
  const at = args.indexOf('--task-db');
  if (at < 0) return {};
  const file = args[at + 1];
  if (file === undefined || file.startsWith('--')) {
    process.stderr.write('mcpkit demo: --task-db needs a file name\n');
    return 2;
  }
  let sqlite: typeof import('../tasks/sqlite-store.js');
  try {
    sqlite = await import('../tasks/sqlite-store.js');
  } catch (err) {
    process.stderr.write(`mcpkit demo: --task-db needs the optional dependency better-sqlite3: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    return { store: sqlite.SqliteTaskStore.open(file) };
  } catch (err) {
    process.stderr.write(`mcpkit demo: cannot open the task database ${file}: ${(err as Error).message}\n`);
    return 1;
  }
}

async function demo(args: string[]): Promise<number> {
  const tasks = await taskOptions(args);
  if (typeof tasks === 'number') return tasks;
  try {
    if (args.includes('--http')) return await demoHttp(args, tasks);
    const server = createDemoServer({ onError: (err) => process.stderr.write(`mcpkit demo: ${err.message}\n`), tasks });
    const transport = new StdioServerTransport();
    const session = await server.connect(transport);
    await new Promise<void>((resolve) => session.endpoint.onClose(() => resolve()));
    return 0;
  } finally {
    await tasks.store?.close();
  }
}

async function demoHttp(args: string[], tasks: { store?: TaskStore }): Promise<number> {
  let port = 3000;
  const at = args.indexOf('--port');
  if (at >= 0) {
    const value = args[at + 1];
    port = value !== undefined && /^\d{1,5}$/.test(value) ? Number(value) : NaN;
    if (!(port >= 0 && port <= 65535)) {
      process.stderr.write(`mcpkit demo: --port needs a number from 0 to 65535\n`);
      return 2;
    }
  }
  const onError = (err: Error) => process.stderr.write(`mcpkit demo: ${err.message}\n`);
  const server = createDemoServer({ onError, tasks });
  // SEP-1699 polling for the conformance scenario: test_reconnection's stream is closed
  // right after its priming event; the client resumes with GET and Last-Event-ID.
  server.use(disconnectAfterPriming((method, params) => method === 'tools/call' && params?.name === 'test_reconnection'));
  const handler = createStreamableHttpHandler({ server, legacySse: true, onError });
  let running;
  try {
    running = await serveNode(handler, { port, host: '127.0.0.1' });
  } catch (err) {
    process.stderr.write(`mcpkit demo: cannot listen on 127.0.0.1:${port}: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`LISTENING ${running.url}\n`);
  process.stderr.write(`mcpkit demo: Streamable HTTP at ${running.url}, legacy SSE at http://127.0.0.1:${running.port}/sse\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await running.close();
  return 0;
}
