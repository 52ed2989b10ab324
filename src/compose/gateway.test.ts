/**
 * The gateway with real upstreams over stdio (`@modelcontextprotocol/server-everything`,
 * `server-memory`), reached by the official SDK v1 client over Streamable HTTP.
 */
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SUITE_TIMEOUT_MS } from '../../test/helpers/bounds.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { StdioClientTransport } from '../stdio/index.js';
import { createGateway, type Gateway } from './gateway.js';

const pkg = (name: string) => join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const T = { timeout: 30_000 };

describe('gateway smoke', { timeout: SUITE_TIMEOUT_MS }, () => {
  let gateway: Gateway;
  let http: NodeServerHandle;
  before(async () => {
    gateway = createGateway({
      upstreams: {
        everything: { transport: () => new StdioClientTransport({ command: process.execPath, args: [pkg('server-everything')], stderr: 'ignore' }) },
        memory: { transport: () => new StdioClientTransport({ command: process.execPath, args: [pkg('server-memory')], stderr: 'ignore' }) },
      },
    });
    http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
    await gateway.whenReady(20_000);
  });
  after(async () => {
    await http?.close();
    await gateway?.close();
  });
  it('lists both', T, async () => {
    const client = new V1Client({ name: 'c', version: '1' });
    await client.connect(new V1Http(new URL(http.url)));
    const tools = (await client.listTools()).tools.map((t) => t.name);
    console.log(tools.join(','));
    const r = await client.callTool({ name: 'everything_echo', arguments: { message: 'hi' } });
    console.log(JSON.stringify(r));
    console.log(JSON.stringify(gateway.status()));
    const h = await fetch(http.url.replace('/mcp', '/readyz'));
    console.log(h.status, await h.text());
    await client.close();
  });
});
