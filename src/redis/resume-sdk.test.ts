/**
 * The official SDK client (`@modelcontextprotocol/sdk`, StreamableHTTPClientTransport with
 * its reconnection) resuming on another instance: the server closes the SSE stream of a
 * tool call right after its priming event (SEP-1699 polling, `disconnectAfterPriming`), the
 * SDK reconnects with GET and `Last-Event-ID` (2025-03-26 › Streamable HTTP › Resumability
 * and Redelivery), and that GET lands on instance B while the call runs on A. B follows A's
 * stream through Redis: the client gets every log message once, in order, and the result.
 * The client's fetch sends every POST and plain GET to A and every resuming GET to B, so the
 * test knows where each request went.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';
import { type SessionInstance, sessionInstance, stateServer } from '../../test/helpers/redis/session-instance.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { disconnectAfterPriming } from '../http/server/session-transport.js';

let server: RedisServer;
const instances: Array<{ instance: SessionInstance; node: NodeServerHandle }> = [];
before(async () => {
  server = await startRedis();
  for (let i = 0; i < 2; i++) {
    const mcp = stateServer();
    mcp.use(disconnectAfterPriming((method, params) => method === 'tools/call' && params?.name === 'steps'));
    const instance = await sessionInstance(server.url, 'sdk-resume:', {
      events: true,
      handler: { server: mcp, retryMs: 20 },
      directory: { followCheckMs: 100 },
    });
    instances.push({ instance, node: await serveNode(instance.handler) });
  }
});
after(async () => {
  for (const { instance, node } of instances) {
    await node.close();
    await instance.close();
  }
  await server.close();
});

it("the SDK client resumes a tool call's stream on another instance and gets every message once and the result", async () => {
  const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
  const urlA = `http://127.0.0.1:${a.node.port}/mcp`;
  const urlB = `http://127.0.0.1:${b.node.port}/mcp`;
  const resumedOnB: string[] = [];
  const route: typeof fetch = (_input, init) => {
    const lastEventId = new Headers(init?.headers).get('last-event-id');
    if (init?.method === 'GET' && lastEventId !== null) {
      resumedOnB.push(lastEventId);
      return fetch(urlB, init);
    }
    return fetch(urlA, init);
  };
  const client = new Client({ name: 'sdk-resume', version: '1.0.0' });
  const steps: number[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void steps.push((n.params.data as { step: number }).step));
  const transport = new StreamableHTTPClientTransport(new URL(urlA), {
    fetch: route,
    reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 },
  });
  await client.connect(transport);

  const result = await client.callTool({ name: 'steps', arguments: { count: 6, every: 30 } });
  assert.deepEqual(result.content, [{ type: 'text', text: 'stepped 6' }]);
  assert.deepEqual(steps, [1, 2, 3, 4, 5, 6], 'every message once, in order');
  assert.ok(resumedOnB.length >= 1, 'the stream was resumed on B');
  assert.match(resumedOnB[0]!, new RegExp(`^${a.instance.directory.streamTag}\\.\\d+:0$`), 'with the priming id of the stream A opened');
  await transport.terminateSession();
  await client.close();
  assert.deepEqual(
    [...a.instance.errors, ...b.instance.errors].map((e) => e.message),
    [],
  );
});
