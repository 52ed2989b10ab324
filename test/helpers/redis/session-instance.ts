/**
 * "Instances" of one deployment for the shared-session tests: each a Streamable HTTP handler
 * over its own McpServer, Redis connection and RedisSessionDirectory (same prefix), and a
 * counter of the commands Redis executed (INFO commandstats), so tests can count round
 * trips. Not part of the package.
 */
import { McpServer } from '../../../src/server/server.js';
import { createStreamableHttpHandler, type StreamableHttpHandler, type StreamableHttpOptions } from '../../../src/http/server/handler.js';
import { RedisConnection } from '../../../src/redis/connection.js';
import { RedisSessionDirectory, type RedisSessionDirectoryOptions } from '../../../src/redis/session-directory.js';

/**
 * A server whose tools report the session state an instance restored (`state`: revision,
 * client name, capabilities, level, subscriptions), echo, and ask the client to sample (`ask`).
 */
export function stateServer(): McpServer {
  const server = new McpServer({ name: 'shared-sessions', version: '1.0.0' });
  server.registerTool('echo', { description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: { text?: string }) => ({
    content: [{ type: 'text', text: args.text ?? '' }],
  }));
  server.registerTool('state', { description: 'this session as this instance sees it', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
    const s = ctx.server!;
    const state = { revision: s.protocolVersion, client: s.clientInfo?.name, capabilities: s.clientCapabilities, level: s.logLevel ?? null, subscriptions: [...s.subscriptions].sort() };
    return { content: [{ type: 'text', text: JSON.stringify(state) }] };
  });
  server.registerTool('ask', { description: 'asks the client to sample', inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
    const r = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    return { content: [{ type: 'text', text: `model ${r.model}` }] };
  });
  server.registerResource('note://a', { name: 'a' }, () => ({ contents: [{ uri: 'note://a', text: 'a' }] }));
  return server;
}

/** One instance: its handler, connection and directory. */
export interface SessionInstance {
  readonly handler: StreamableHttpHandler;
  readonly redis: RedisConnection;
  readonly directory: RedisSessionDirectory;
  readonly errors: Error[];
  close(): Promise<void>;
}

/** Opens an instance on `url` / `prefix`. */
export async function sessionInstance(
  url: string,
  prefix: string,
  options: { handler?: Partial<StreamableHttpOptions>; directory?: RedisSessionDirectoryOptions; commandTimeoutMs?: number } = {},
): Promise<SessionInstance> {
  const errors: Error[] = [];
  const redis = await RedisConnection.connect({ url, prefix, commandTimeoutMs: options.commandTimeoutMs ?? 2000, reconnectMaxDelayMs: 100 });
  const directory = await RedisSessionDirectory.open(redis, { onError: (e) => errors.push(e), ...options.directory });
  const handler = createStreamableHttpHandler({ server: stateServer(), sessions: directory, responseMode: 'json', onError: (e) => errors.push(e), ...options.handler });
  return {
    handler,
    redis,
    directory,
    errors,
    async close() {
      await handler.close();
      await directory.close();
      await redis.close();
    },
  };
}

/** Commands Redis has executed so far (all clients), not counting the INFO calls of this counter. */
export async function commandsExecuted(redis: RedisConnection): Promise<number> {
  const info = await redis.run((c) => c.info('commandstats'));
  let total = 0;
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m !== null && m[1] !== 'info') total += Number(m[2]);
  }
  return total;
}
