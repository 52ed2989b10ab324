/**
 * `mcp-use`'s `server.proxy()` in front of one upstream, for the gateway section of the
 * benchmark (`bench/gateway.ts`). Usage:
 *   node gateway-mcp-use.js stdio <command> [args...]
 *   node gateway-mcp-use.js http <url>
 * Prints `LISTENING <url>` once it serves on 127.0.0.1 (ephemeral port); exits when its
 * stdin ends.
 *
 * Design note: `server.proxy({ name: { url } })` needs the optional peer `@mcp-use/client`,
 * which is not published on npm (404), and it takes HTTP upstreams only. The other overload,
 * `server.proxy(connection)`, takes any ready connection with the documented structural
 * contract (`ProxyConnection`): here the official SDK v2 client (`@modelcontextprotocol/client`,
 * stdio or Streamable HTTP), adapted member for member. So the forwarding measured is
 * mcp-use's own; the upstream client is the official one. mcp-use sends usage telemetry
 * (PostHog) unless `MCP_USE_ANONYMIZED_TELEMETRY=false`: set here before it loads, so the
 * bench stays offline.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

async function main(argv: string[]): Promise<void> {
  process.env.MCP_USE_ANONYMIZED_TELEMETRY = 'false';
  const { MCPServer } = await import('mcp-use');
  const [kind, ...rest] = argv;
  const client = new Client({ name: 'mcp-use-bench-proxy', version: '1.0.0' });
  if (kind === 'stdio' && rest.length > 0) await client.connect(new StdioClientTransport({ command: rest[0]!, args: rest.slice(1) }));
  else if (kind === 'http' && rest.length === 1) await client.connect(new StreamableHTTPClientTransport(new URL(rest[0]!)));
  else throw new Error('usage: gateway-mcp-use.js stdio <command> [args...] | http <url>');
  const caps = client.getServerCapabilities() ?? {};
  const connection = {
    info: { server: { name: 'up' } },
    supports: (capability: string) => (caps as Record<string, unknown>)[capability] !== undefined,
    listTools: async () => (await client.listTools()).tools,
    callTool: (name: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal }) =>
      client.callTool({ name, arguments: args ?? {} }, options?.signal === undefined ? undefined : { signal: options.signal }),
    listResources: () => client.listResources(),
    readResource: (uri: string) => client.readResource({ uri }),
    listPrompts: () => client.listPrompts(),
    getPrompt: (name: string, args: Record<string, unknown>) => client.getPrompt({ name, arguments: args as Record<string, string> }),
  };
  const server = new MCPServer({ name: 'mcp-use-bench-proxy', version: '1.0.0' });
  // biome-ignore lint/suspicious/noExplicitAny: the structural contract is checked by mcp-use at run time
  await server.proxy(connection as any);
  const { url } = await server.listen(0, { host: '127.0.0.1' });
  process.stdout.write(`LISTENING ${url}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`gateway-mcp-use: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
