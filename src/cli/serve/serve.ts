/**
 * Serving a loaded server the way `mcpkit demo` does: over stdio, or over Streamable HTTP
 * (with the legacy HTTP+SSE endpoints) on 127.0.0.1.
 */

import { type NodeServerHandle, serveNode } from '../../http/node-server.js';
import { createStreamableHttpHandler } from '../../http/server/handler.js';
import type { McpServer } from '../../server/server.js';
import { StdioServerTransport } from '../../stdio/index.js';

/** Serves `server` on this process's stdin/stdout; resolves when stdin ends or the connection closes. */
export async function serveStdio(server: McpServer): Promise<void> {
  const session = await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => session.endpoint.onClose(() => resolve()));
}

/**
 * Serves `server` over Streamable HTTP and legacy HTTP+SSE on 127.0.0.1:`port` (0 picks a
 * free port). Rejects when the port cannot be bound.
 */
export function serveHttp(server: McpServer, port: number, onError: (err: Error) => void): Promise<NodeServerHandle> {
  const handler = createStreamableHttpHandler({ server, legacySse: true, onError });
  return serveNode(handler, { port, host: '127.0.0.1' });
}

/** Parses `--port`'s value: an integer from 0 to 65535, or undefined when it is not one. */
export function parsePort(value: string | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  if (!/^\d{1,5}$/.test(value)) return undefined;
  const port = Number(value);
  return port <= 65535 ? port : undefined;
}

/** Resolves when this process's stdin has ended (or closed). */
export function stdinEnded(): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdin.readableEnded || process.stdin.destroyed) return resolve();
    process.stdin.once('end', () => resolve()).once('close', () => resolve());
  });
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
