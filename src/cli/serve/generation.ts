/**
 * One server generation of `mcpkit dev`, run as a child process:
 * `node generation.js FILE (stdio|http) [EXPORT]`, with an IPC channel to the dev process.
 * It loads the module in a fresh process (so every import is loaded anew), then serves it
 * on its own stdin/stdout (`stdio`) or on 127.0.0.1 with a free port (`http`), and tells the
 * parent `{type: 'ready', port?}` or `{type: 'failed', message}`. It exits when the parent
 * goes away, when its stdin ends (stdio), or on SIGTERM.
 */
import { describeError, loadServer, ServerLoadError, selfConnectedMessage } from './load-server.js';
import { serveHttp, serveStdio, stdinEnded } from './serve.js';

/** A message from a generation to the dev process. */
export type GenerationMessage = { type: 'ready'; port?: number; path?: string } | { type: 'failed'; message: string };

function tell(message: GenerationMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function main(): Promise<void> {
  const [file, mode, exportName] = process.argv.slice(2);
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  let loaded;
  try {
    loaded = await loadServer(file!, exportName || undefined);
  } catch (err) {
    await tell({ type: 'failed', message: err instanceof ServerLoadError ? err.message : describeError(err) });
    process.exit(1);
  }
  if (loaded.kind === 'self-connected') {
    if (mode === 'http') {
      await tell({ type: 'failed', message: selfConnectedMessage(file!, 'mcpkit dev --http cannot serve it') });
      process.exit(1);
    }
    // it serves this process's stdin/stdout (the dev process's relay) already
    await tell({ type: 'ready' });
    await stdinEnded();
    process.exit(0);
  }
  const server = loaded.server;
  if (mode === 'http') {
    const running = await serveHttp(server, 0, (err) => void process.stderr.write(`mcpkit dev: ${err.message}\n`));
    await tell({ type: 'ready', port: running.port, path: new URL(running.url).pathname });
    return;
  }
  const serving = serveStdio(server);
  await tell({ type: 'ready' });
  await serving;
  process.exit(0);
}

await main();
