/**
 * `mcpkit/client/node`: the Node.js side of the client pool. Reads an `mcpServers` config
 * file ({@link readServersConfigFile}) and builds each server's transport factory
 * ({@link transportFactory}): a stdio server is started with `mcpkit/stdio` (no shell), a URL
 * is reached over Streamable HTTP with the fallback to legacy HTTP+SSE (or only one of them
 * when the entry's `type` says so), with mcpkit's keep-alive HTTP requester and, per server,
 * the authorization `auth` gives (an OAuth client over a token store, such as the CLI's).
 * {@link createPool} does both and returns a {@link ClientPool}.
 */
import type { HttpAuthorization } from '../../http/client/index.js';
import type { Transport } from '../../transport/types.js';
import { ClientPool, type ClientPoolOptions, type PoolServerOptions, type TransportFactory } from '../pool.js';
import {
  parseServersConfig,
  SERVERS_CONFIG_DEFAULTS,
  type ServerSpec,
  type ServersConfig,
  ServersConfigError,
  type ServersConfigOptions,
} from '../servers-config.js';
import { readConfigText } from './read-config.js';

export type { HttpServerSpec, ServerSpec, ServersConfig, ServersConfigOptions, StdioServerSpec } from '../servers-config.js';
export { parseServerSpec, parseServersConfig, SERVER_NAME_PATTERN, SERVERS_CONFIG_DEFAULTS, ServersConfigError } from '../servers-config.js';

/**
 * Reads and parses config file `path` (see `parseServersConfig`): at most `maxChars` bytes
 * are read (default 1 MiB; a larger file is refused), the bytes must be UTF-8. Rejects with
 * {@link ServersConfigError} naming the file for anything unusable, including a missing file.
 */
export async function readServersConfigFile(path: string, options: Omit<ServersConfigOptions, 'source'> = {}): Promise<ServersConfig> {
  const text = await readConfigText(path, options.maxChars ?? SERVERS_CONFIG_DEFAULTS.maxChars);
  return parseServersConfig(text, { ...options, source: path });
}

/** How {@link transportFactory} builds transports. */
export interface NodeTransportOptions {
  /**
   * The authorization of a remote server's requests, asked once per connection attempt (e.g.
   * an `OAuthClient` over a token store, keyed per server URL); undefined for none.
   */
  auth?: (name: string, url: string) => HttpAuthorization | undefined | Promise<HttpAuthorization | undefined>;
  /** A stdio server's stderr: `'inherit'` (default), `'pipe'` or `'ignore'`; or a function given each transport. */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /** Called with each stdio transport once built (to read its `stderr` or `pid`). */
  onStdio?: (name: string, transport: import('../../stdio/index.js').StdioClientTransport) => void;
}

/** The transport factory of `spec` (a fresh transport per call). */
export function transportFactory(spec: ServerSpec, options: NodeTransportOptions = {}): TransportFactory {
  if (spec.transport === 'stdio') {
    return async (name) => {
      const { StdioClientTransport } = await import('../../stdio/index.js');
      const transport = new StdioClientTransport({
        command: spec.command,
        args: spec.args,
        env: { ...spec.env },
        stderr: options.stderr ?? 'inherit',
        ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      });
      options.onStdio?.(name, transport);
      return transport;
    };
  }
  return async (name): Promise<Transport> => {
    const http = await import('../../http/client/index.js');
    const { nodeHttpRequester } = await import('../../http/node-client/index.js');
    const auth = await options.auth?.(name, spec.url);
    const common = { headers: { ...spec.headers }, requester: nodeHttpRequester(), ...(auth === undefined ? {} : { auth }) };
    if (spec.transport === 'sse') return new http.SseClientTransport({ url: spec.url, ...common });
    if (spec.transport === 'http') return new http.StreamableHttpClientTransport({ url: spec.url, ...common });
    return new http.FallbackTransport(spec.url, common);
  };
}

/** Options of {@link createPool}: the pool's, the transports', and per-server overrides. */
export interface CreatePoolOptions extends ClientPoolOptions, NodeTransportOptions {
  /** Per-server options (lazy, timeouts, client options) by server name. */
  servers?: Record<string, Omit<PoolServerOptions, 'transport'>>;
}

/**
 * A pool of the servers of `config` (a parsed config or the path of a config file). Rejects
 * with {@link ServersConfigError} for an unusable file, and with the pool's `PoolError` for a
 * server name the pool cannot use (a name with `.` or `@`, which the pool's `server.tool`
 * names cannot hold: rename it in the file).
 */
export async function createPool(config: ServersConfig | string, options: CreatePoolOptions = {}): Promise<ClientPool> {
  const parsed = typeof config === 'string' ? await readServersConfigFile(config) : config;
  const { servers, auth, stderr, onStdio, ...poolOptions } = options;
  const transportOptions: NodeTransportOptions = {
    ...(auth === undefined ? {} : { auth }),
    ...(stderr === undefined ? {} : { stderr }),
    ...(onStdio === undefined ? {} : { onStdio }),
  };
  const pool = new ClientPool(poolOptions);
  try {
    for (const [name, spec] of parsed.servers) {
      const own = servers !== undefined && Object.hasOwn(servers, name) ? servers[name] : undefined;
      await pool.add(name, { ...own, transport: transportFactory(spec, transportOptions) });
    }
  } catch (err) {
    await pool.close();
    throw err;
  }
  return pool;
}
