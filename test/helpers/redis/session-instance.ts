/**
 * "Instances" of one deployment for the shared-session tests: each a Streamable HTTP handler
 * over its own McpServer, Redis connection and RedisSessionDirectory (same prefix), and a
 * counter of the commands Redis executed (INFO commandstats), so tests can count round
 * trips. Not part of the package.
 */

import { createStreamableHttpHandler, type StreamableHttpHandler, type StreamableHttpOptions } from '../../../src/http/server/handler.js';
import { RedisConnection } from '../../../src/redis/connection.js';
import { RedisEventStore } from '../../../src/redis/event-store.js';
import { RedisSessionDirectory, type RedisSessionDirectoryOptions } from '../../../src/redis/session-directory.js';
import { McpServer } from '../../../src/server/server.js';

/** Gates of the `steps` tool (per process), opened by {@link releaseGate} or the `release` tool. */
const gates = new Map<string, { promise: Promise<void>; open: () => void }>();

function gate(name: string): { promise: Promise<void>; open: () => void } {
  let found = gates.get(name);
  if (found === undefined) {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    found = { promise, open };
    gates.set(name, found);
  }
  return found;
}

/** Opens gate `name` of the `steps` tool (before or after a call waits on it). */
export function releaseGate(name: string): void {
  gate(name).open();
}

/**
 * A server whose tools report the session state an instance restored (`state`: revision,
 * client name, capabilities, level, subscriptions), echo, ask the client to sample (`ask`),
 * emit numbered log messages (`steps`: `count` of them, data `{step: i}`, `every` ms
 * apart; with `gate`, message `holdAt` waits until that gate is opened by `release`; `pad`
 * dots appended to the result text), and
 * send a log message for the GET stream (`announce`: data `{announce: text}`).
 */
export function stateServer(): McpServer {
  const server = new McpServer({ name: 'shared-sessions', version: '1.0.0' });
  server.registerTool(
    'steps',
    {
      description: 'numbered log messages',
      inputSchema: {
        type: 'object',
        properties: { count: { type: 'number' }, every: { type: 'number' }, gate: { type: 'string' }, holdAt: { type: 'number' }, pad: { type: 'number' } },
      },
    },
    async (args: { count?: number; every?: number; gate?: string; holdAt?: number; pad?: number }, ctx) => {
      const count = args.count ?? 3;
      for (let i = 1; i <= count; i++) {
        if (args.gate !== undefined && i === args.holdAt) await gate(args.gate).promise;
        await ctx.log('info', { step: i });
        if ((args.every ?? 0) > 0) await new Promise((r) => setTimeout(r, args.every));
      }
      return { content: [{ type: 'text', text: `stepped ${count}${'.'.repeat(args.pad ?? 0)}` }] };
    },
  );
  server.registerTool(
    'announce',
    { description: 'a log message for the GET stream', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    async (args: { text?: string }, ctx) => {
      await ctx.connection!.sendLog('info', { announce: args.text ?? '' });
      return { content: [{ type: 'text', text: 'announced' }] };
    },
  );
  server.registerTool(
    'release',
    { description: 'opens a gate of steps', inputSchema: { type: 'object', properties: { gate: { type: 'string' } } } },
    (args: { gate?: string }) => {
      releaseGate(args.gate ?? '');
      return { content: [{ type: 'text', text: 'released' }] };
    },
  );
  server.registerTool(
    'echo',
    { description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args: { text?: string }) => ({
      content: [{ type: 'text', text: args.text ?? '' }],
    }),
  );
  server.registerTool('state', { description: 'this session as this instance sees it', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
    const s = ctx.connection!;
    const state = {
      revision: s.protocolVersion,
      client: s.clientInfo?.name,
      capabilities: s.clientCapabilities,
      level: s.logLevel ?? null,
      subscriptions: [...s.subscriptions].sort(),
    };
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

/**
 * Opens an instance on `url` / `prefix`. `events`: SSE responses and a RedisEventStore on
 * the instance's connection (default: JSON responses, the in-memory store).
 */
export async function sessionInstance(
  url: string,
  prefix: string,
  options: { handler?: Partial<StreamableHttpOptions>; directory?: RedisSessionDirectoryOptions; commandTimeoutMs?: number; events?: boolean } = {},
): Promise<SessionInstance> {
  const errors: Error[] = [];
  const redis = await RedisConnection.connect({ url, prefix, commandTimeoutMs: options.commandTimeoutMs ?? 2000, reconnectMaxDelayMs: 100 });
  const directory = await RedisSessionDirectory.open(redis, { onError: (e) => errors.push(e), ...options.directory });
  const streams: Partial<StreamableHttpOptions> =
    options.events === true ? { responseMode: 'sse', eventStore: new RedisEventStore(redis) } : { responseMode: 'json' };
  const handler = createStreamableHttpHandler({ server: stateServer(), sessions: directory, onError: (e) => errors.push(e), ...streams, ...options.handler });
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
