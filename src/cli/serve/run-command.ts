/**
 * `mcpkit run FILE`: loads a module that exports an `McpServer` (see load-server.ts for the
 * lookup and TypeScript support) and serves it over stdio, or over Streamable HTTP with
 * `--http`. Over stdio only protocol messages go to stdout; over HTTP stdout carries one
 * line, `LISTENING <url>`. Everything else goes to stderr.
 */
import { serveArgsOrExit } from './args.js';
import { loadServer, ServerLoadError, selfConnectedMessage } from './load-server.js';
import { serveHttp, serveStdio, stdinEnded, untilSignal } from './serve.js';

/** `mcpkit run --help`. */
export const RUN_USAGE = `Usage: mcpkit run FILE [--http [--port N]] [--export NAME]

Serves the MCP server that FILE exports, over stdio (default) or Streamable HTTP.

  FILE            a .js/.mjs/.cjs module, or .ts/.mts/.cts/.tsx (needs the optional
                  dependency tsx: npm install --save-dev tsx; or Node 22.18+)
  --http          serve on http://127.0.0.1:PORT/mcp (and legacy SSE at /sse); prints
                  "LISTENING <url>" on stdout first
  --port N        the port for --http (default 3000; 0 picks a free one)
  --export NAME   use this export instead of the lookup below

The module exports the server as its default export, or as "server", or as
"createServer" (tried in that order): an McpServer, or a function (may be async)
returning one, called once. A module that connects its server to stdio itself
(await server.connect(new StdioServerTransport())) is served as it is over stdio;
for --http, export the server instead.

Exit codes: 0 stopped normally, 1 the module could not be loaded or the port bound,
2 wrong arguments.

Examples:
  mcpkit run ./server.ts
  mcpkit run ./dist/server.js --http --port 8080
  mcpkit run ./servers.ts --export weather
`;

/** Runs `mcpkit run`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const args = serveArgsOrExit('run', argv, RUN_USAGE);
  if (typeof args === 'number') return args;
  let loaded;
  try {
    loaded = await loadServer(args.file, args.exportName);
  } catch (err) {
    process.stderr.write(`mcpkit run: ${err instanceof ServerLoadError ? err.message : String(err)}\n`);
    return 1;
  }
  if (loaded.kind === 'self-connected') {
    if (args.http) {
      process.stderr.write(`mcpkit run: ${selfConnectedMessage(args.file, 'it cannot be served over --http')}\n`);
      return 1;
    }
    // it serves this process's stdio already: let it, until the client goes away
    process.stderr.write(
      `mcpkit run: ${args.file} connected its server to stdio itself; serving it as it is (export it instead, "export default server;", to let mcpkit connect it)\n`,
    );
    await stdinEnded();
    return 0;
  }
  const server = loaded.server;
  if (!args.http) {
    await serveStdio(server);
    return 0;
  }
  const onError = (err: Error): void => void process.stderr.write(`mcpkit run: ${err.message}\n`);
  let running;
  try {
    running = await serveHttp(server, args.port, onError);
  } catch (err) {
    process.stderr.write(`mcpkit run: cannot listen on 127.0.0.1:${args.port}: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`LISTENING ${running.url}\n`);
  process.stderr.write(`mcpkit run: serving ${args.file} at ${running.url}\n`);
  await untilSignal();
  await running.close();
  return 0;
}
