/**
 * The gateway section's HTTP target (gateway-driver.ts) against real servers: mcpkit's demo
 * (Streamable HTTP, JSON and event-stream answers) driven at several calls in flight over
 * the raw connections, directly and through the bare relay (servers/gateway-bare-relay.ts, a
 * real child process), with the echo and with the tool that takes 1 ms; and a server whose
 * echo is wrong, which the target refuses.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createDemoServer } from '../src/demo/server.js';
import { type NodeServerHandle, serveNode } from '../src/http/node.js';
import { createStreamableHttpHandler } from '../src/http/server/handler.js';
import { BenchProcess, openHttpTarget, timedLoop } from './gateway-driver.js';

const HERE = dirname(fileURLToPath(import.meta.url));

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

  it('through the bare relay: a session (its id relayed both ways), the echo and the 1 ms tool at 4 in flight, then DELETE', T, async () => {
    const relay = new BenchProcess('bare relay', process.execPath, [join(HERE, 'servers', 'gateway-bare-relay.js'), http.url], HERE);
    try {
      const url = await relay.listening(10_000);
      const echo = await openHttpTarget(url, 10_000);
      const slow = await openHttpTarget(url, 10_000, { name: 'slow', arguments: { ms: 1 }, expect: 'waited 1 ms' });
      try {
        assert.equal((await timedLoop(echo, 4, 10_000, 100)).calls, 100);
        const run = await timedLoop(slow, 4, 10_000, 20);
        assert.equal(run.calls, 20);
        assert.ok(run.latenciesMs.every((ms) => ms >= 1));
      } finally {
        await Promise.all([echo.close(), slow.close()]);
      }
    } finally {
      await relay.close();
    }
  });

  it('a tool whose result lacks the expected text rejects the call', T, async () => {
    const target = await openHttpTarget(http.url, 10_000, { name: 'slow', arguments: { ms: 1 }, expect: 'waited 2 ms' });
    try {
      await assert.rejects(target.call(), /unexpected result .*waited 1 ms/);
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
