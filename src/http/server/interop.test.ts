/**
 * The Streamable HTTP server against real clients: mcpkit's own client transport (through
 * an injected `fetch`, no socket) and the official TypeScript SDK's Streamable HTTP and
 * legacy SSE clients over sockets on 127.0.0.1.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client as OfficialClient } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeHandler } from '../../../test/helpers/http/server-harness.js';
import { Client } from '../../client/client.js';
import { createDemoServer } from '../../demo/server.js';
import { StreamableHttpClientTransport } from '../client/streamable.js';
import { serveNode } from '../node.js';
import { disconnectAfterPriming } from './session-transport.js';

function pollingDemo() {
  const server = createDemoServer();
  server.use(disconnectAfterPriming((method, params) => method === 'tools/call' && params?.name === 'test_reconnection'));
  return server;
}

test('mcpkit client → handler.fetch: calls, sampling, SSE polling resumption, DELETE on close', async () => {
  const handler = makeHandler({ server: pollingDemo(), retryMs: 20 });
  const client = new Client(
    { name: 'interop', version: '1.0.0' },
    { sampling: { createMessage: () => ({ role: 'assistant', model: 'stub', content: { type: 'text', text: 'sampled' } }) } },
  );
  const transport = new StreamableHttpClientTransport({
    url: 'http://localhost/mcp',
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => handler.fetch(new Request(input, init))) as typeof fetch,
  });
  await client.connect(transport);
  assert.equal(handler.sessionCount, 1);
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'over http' } });
  assert.deepEqual(echo.content, [{ type: 'text', text: 'over http' }]);
  const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
  assert.deepEqual(sampled.content, [{ type: 'text', text: 'LLM response: sampled' }]);
  const polled = await client.callTool({ name: 'test_reconnection', arguments: {} });
  assert.deepEqual(polled.content, [{ type: 'text', text: 'Reconnection test completed successfully' }]);
  await client.close();
  assert.equal(handler.sessionCount, 0, 'close() sent DELETE');
  await handler.close();
});

test('official SDK Streamable HTTP client over a socket: tools, logging, sampling, SSE polling', async () => {
  const handler = makeHandler({ server: pollingDemo(), retryMs: 20 });
  const running = await serveNode(handler);
  const client = new OfficialClient({ name: 'official', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    model: 'official-stub',
    content: { type: 'text', text: 'from sdk' },
  }));
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params.data);
  });
  const transport = new StreamableHTTPClientTransport(new URL(running.url));
  await client.connect(transport);
  assert.ok(transport.sessionId);
  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'test_reconnection'));
  await client.setLoggingLevel('debug');
  const logged = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  assert.deepEqual(logged.content, [{ type: 'text', text: 'Tool with logging executed successfully' }]);
  assert.equal(logs.length, 3);
  const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'x' } });
  assert.deepEqual(sampled.content, [{ type: 'text', text: 'LLM response: from sdk' }]);
  const polled = await client.callTool({ name: 'test_reconnection', arguments: {} });
  assert.deepEqual(polled.content, [{ type: 'text', text: 'Reconnection test completed successfully' }]);
  await transport.terminateSession();
  assert.equal(handler.sessionCount, 0);
  await client.close();
  await running.close();
});

test('official SDK legacy SSE client over a socket', async () => {
  const handler = makeHandler({ server: createDemoServer(), legacySse: true });
  const running = await serveNode(handler);
  const client = new OfficialClient({ name: 'official-sse', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`http://127.0.0.1:${running.port}/sse`)));
  assert.equal(handler.sessionCount, 1);
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'legacy' } });
  assert.deepEqual(echo.content, [{ type: 'text', text: 'legacy' }]);
  const prompt = await client.getPrompt({ name: 'test_simple_prompt' });
  assert.equal(prompt.messages.length, 1);
  await client.close();
  for (let i = 0; i < 100 && handler.sessionCount > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(handler.sessionCount, 0, 'the session ends with its SSE stream');
  await running.close();
});
