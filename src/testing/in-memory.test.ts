/**
 * `mcpkit/testing`: one call connects a client to a server in memory, and closing checks that
 * every message both ends sent conforms to the official schema of the negotiated revision.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '../server/server.js';
import { connectInMemory } from './index.js';

function weatherServer(): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool(
    'forecast',
    { description: 'Forecast', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    (args: { city: string }) => ({
      content: [{ type: 'text', text: `Sunny in ${args.city}` }],
    }),
  );
  return server;
}

describe('connectInMemory', () => {
  it('connects, serves, records the conversation and finds no schema violation', async () => {
    const pair = await connectInMemory(weatherServer());
    assert.equal(pair.client.protocolVersion, '2025-11-25');
    const result = await pair.client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Sunny in Oslo' }]);
    const transcript = pair.clientWire.formatTranscript();
    assert.match(transcript, /C→S .*"method":"tools\/call"/);
    assert.match(transcript, /S→C .*Sunny in Oslo/);
    await pair.close();
  });

  it('close() fails the test when the server sent something the official schema refuses', async () => {
    const server = new McpServer({ name: 'broken', version: '1.0.0' });
    // a raw tool answers whatever it returns, unchecked: here a content block of no known type
    server.registerRawTool({ name: 'bad', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'hologram' }] }) as never);
    const pair = await connectInMemory(server);
    await pair.client.callTool({ name: 'bad', arguments: {} }).catch(() => undefined);
    await assert.rejects(pair.close(), (error: Error) => error.name === 'AssertionError' && /tools\/call|CallToolResult|content/.test(error.message));
  });

  it('serves one server to several pairs', async () => {
    const server = weatherServer();
    const [a, b] = await Promise.all([connectInMemory(server), connectInMemory(server)]);
    assert.equal(server.connections.size, 2);
    await a.close();
    await b.close();
  });
});
