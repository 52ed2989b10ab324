/**
 * The deprecated names of the server role still forward to the new ones (docs/migrating.md):
 * `ServerSession` is `ServerConnection`, `server.sessions` is
 * `server.connections`, `ctx.server` is `ctx.connection`, and `initializeStateless` is
 * `initializeSessionless`. The handler setters' forwarding is shown in handlers.test.ts,
 * the middleware form in interceptors.test.ts, the JSON-RPC `Session` in session/facts.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectInMemory } from '../testing/in-memory.js';
import { InMemoryTransport } from '../transport/memory.js';
import { ServerConnection, type ServerRequestContext, ServerSession } from './connection.js';
import { McpServer } from './server.js';

describe('deprecated server names forward', () => {
  it('ServerSession is ServerConnection', () => {
    assert.equal(ServerSession, ServerConnection);
  });

  it('server.sessions is server.connections; ctx.server is ctx.connection', async () => {
    const server = new McpServer({ name: 'aliases', version: '1.0.0' });
    let seen: ServerRequestContext | undefined;
    server.registerTool('who', { description: 'records its context' }, (_args, ctx) => {
      seen = ctx;
      return 'ok';
    });
    const pair = await connectInMemory(server);
    assert.equal(server.sessions, server.connections);
    assert.deepEqual([...server.sessions], [pair.session]);
    await pair.client.callTool({ name: 'who', arguments: {} });
    assert.ok(seen !== undefined);
    assert.equal(seen.server, pair.session);
    assert.equal(seen.server, seen.connection);
    await pair.close();
  });

  it('initializeStateless is initializeSessionless', async () => {
    const server = new McpServer({ name: 'aliases', version: '1.0.0' });
    const [, end] = InMemoryTransport.createPair();
    const connection = await server.connect(end);
    connection.initializeStateless('2025-06-18', { roots: {} });
    assert.equal(connection.protocolVersion, '2025-06-18');
    assert.deepEqual(connection.clientCapabilities, { roots: {} });
    assert.throws(() => connection.initializeStateless('1999-01-01'), /not supported/);
    await connection.close();
  });
});
