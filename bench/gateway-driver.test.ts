/**
 * The gateway section's HTTP target (gateway-driver.ts) against real servers: mcpkit's demo
 * (Streamable HTTP, JSON and event-stream answers) driven at several calls in flight over
 * the raw connections, and a server whose echo is wrong, which the target refuses.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createDemoServer } from '../src/demo/server.js';
import { type NodeServerHandle, serveNode } from '../src/http/node.js';
import { createStreamableHttpHandler } from '../src/http/server/handler.js';
import { openHttpTarget, timedLoop } from './gateway-driver.js';

const T = { timeout: 20_000 };

describe('gateway bench: the HTTP target', () => {
  let http: NodeServerHandle;
  before(async () => {
    http = await serveNode(createStreamableHttpHandler({ server: createDemoServer() }), { port: 0, host: '127.0.0.1' });
  });
  after(() => http?.close());

  it('calls the echo tool at 8 in flight over reused connections, every echo checked', T, async () => {
    const target = await openHttpTarget(http.url, 10_000);
    try {
      const run = await timedLoop(target, 8, 10_000, 400);
      assert.equal(run.calls, 400);
      assert.equal(run.latenciesMs.length, 400);
    } finally {
      await target.close();
    }
  });

  it('a wrong echo rejects the call, naming the result', T, async () => {
    // an MCP-shaped server whose echo tool answers something else
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const m = JSON.parse(body) as { id?: number; method: string };
        if (m.id === undefined) return void res.writeHead(202).end();
        const result =
          m.method === 'initialize'
            ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'liar', version: '1' } }
            : m.method === 'tools/list'
              ? { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }
              : { content: [{ type: 'text', text: 'not the message' }] };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const target = await openHttpTarget(`http://127.0.0.1:${port}/mcp`, 10_000);
    try {
      await assert.rejects(target.call(), /unexpected result .*not the message/);
    } finally {
      await target.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
