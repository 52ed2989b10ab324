/**
 * Change notifications shared by instances through a RedisNotifier (`ServerOptions.notifier`):
 * Streamable HTTP handlers in this process, each with its own McpServer, Redis connection,
 * RedisSessionDirectory, RedisBus and RedisNotifier on one prefix, against a real
 * redis-server. Shows (issue 15 item 5):
 * - 2025-11-25 › Server › Resources › Subscriptions: a session subscribed on A (the official
 *   SDK client, `@modelcontextprotocol/sdk`) gets `notifications/resources/updated` raised on
 *   B, which never held the session, and `notifications/tools/list_changed` raised on B;
 * - a session every instance holds (requests round-robin over three instances, restored from
 *   the directory with its subscriptions) hears each change exactly once, whichever instance
 *   raised it — from the instance its GET stream is attached to;
 * - 2026-07-28 › Subscriptions: a `subscriptions/listen` stream open on A receives the
 *   updates and list changes raised on B, once each, tagged with its subscription id;
 * - a malformed bus message or one whose URI is too long is dropped and reported to
 *   `onError`, and nothing stops: the next change is delivered.
 * "Exactly once" is checked without timing: after the change under test the same instance
 * raises a marker change, and the client must see the marker right after the single copy
 * (a duplicate, from either path, would be published before the marker).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type RoundRobinProxy, roundRobinProxy } from '../../test/helpers/http/round-robin-proxy.js';
import { post, rpc, SseReader } from '../../test/helpers/http/server-harness.js';
import { useRedis } from '../../test/helpers/redis/redis-server.js';
import { until } from '../../test/helpers/redis/task-peer.js';
import { type NodeServerHandle, serveNode } from '../http/node.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../http/server/handler.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { McpServer } from '../server/server.js';
import { RedisBus } from './bus.js';
import { RedisConnection } from './connection.js';
import { RedisNotifier } from './notifier.js';
import { RedisSessionDirectory } from './session-directory.js';

const suite = useRedis();
const WATCHED = 'note://watched';
const MARKER = 'note://marker';

interface Instance {
  readonly name: string;
  readonly server: McpServer;
  readonly handler: StreamableHttpHandler;
  readonly node: NodeServerHandle;
  readonly redis: RedisConnection;
  readonly bus: RedisBus;
  /** What the server, handler, directory, bus and notifier reported. */
  readonly errors: Error[];
}

/** One instance on `prefix`: resources note://watched and note://marker, tool echo. */
async function instance(prefix: string, name: string): Promise<Instance> {
  const errors: Error[] = [];
  const onError = (e: Error) => void errors.push(e);
  const redis = await RedisConnection.connect({ url: suite.server.url, prefix, onError });
  const directory = await RedisSessionDirectory.open(redis, { onError, instanceId: name });
  const bus = new RedisBus(redis, { instanceId: name, onError });
  const notifier = await RedisNotifier.open(bus, { onError });
  const server = new McpServer({ name: `subs-${name}`, version: '1.0.0' }, { notifier, onError });
  for (const uri of [WATCHED, MARKER]) server.registerResource(uri, { name: uri }, () => ({ contents: [{ uri, text: uri }] }));
  server.registerTool(
    'echo',
    { description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args: { text?: string }) => ({
      content: [{ type: 'text', text: args.text ?? '' }],
    }),
  );
  // the instance serves from now on (a deployment's instances have served before their registries change)
  await server.ready();
  const handler = createStreamableHttpHandler({ server, sessions: directory, onError });
  const node = await serveNode(handler);
  suite.defer(async () => {
    await node.close();
    await server.close();
    await notifier.close();
    await bus.close();
    await directory.close();
    await redis.close();
  });
  return { name, server, handler, node, redis, bus, errors };
}

/** An official SDK client on `url` recording resources/updated URIs and tools/list_changed (as `tools`) in order. */
async function sdkClient(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport; seen: string[] }> {
  const client = new Client({ name: 'subs-across', version: '1.0.0' });
  const seen: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.push(n.params.uri));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void seen.push('tools'));
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport, seen };
}

/** Waits until the GET stream the SDK client opens after initialization is attached (its 200 came back through the proxy). */
async function getStreamOpen(proxy: RoundRobinProxy): Promise<number> {
  await until('the GET stream to be attached', () => proxy.exchanges.some((e) => e.method === 'GET' && e.status === 200), 20_000);
  return proxy.exchanges.find((e) => e.method === 'GET' && e.status === 200)!.upstream;
}

/** Raises `change` on `at`, then a marker update on `at`; waits for the marker and checks `seen` grew by exactly `expected` + the marker. */
async function once(at: Instance, seen: string[], change: () => void | Promise<void>, expected: string): Promise<void> {
  const before = seen.length;
  await change();
  // a registry change is announced from a microtask: let it go out before the marker
  await new Promise((resolve) => setImmediate(resolve));
  await at.server.notifyResourceUpdated(MARKER);
  await until(`the marker raised on ${at.name}`, () => seen.slice(before).includes(MARKER), 20_000);
  assert.deepEqual(seen.slice(before), [expected, MARKER], `raised on ${at.name}: delivered exactly once, before the marker`);
}

describe('change notifications across instances (RedisNotifier)', () => {
  let a: Instance;
  let b: Instance;
  before(async () => {
    a = await instance('subs1:', 'a');
    b = await instance('subs1:', 'b');
  });

  it('2025: a session subscribed on A gets resources/updated and tools/list_changed raised on B (which never held it), once each', async () => {
    const proxy = await roundRobinProxy([a.node.port]);
    suite.defer(() => proxy.close());
    const { client, seen } = await sdkClient(proxy.url);
    await client.subscribeResource({ uri: WATCHED });
    await client.subscribeResource({ uri: MARKER });
    await getStreamOpen(proxy);
    assert.equal(b.handler.sessionCount, 0, 'B does not hold the session');

    await once(b, seen, () => b.server.notifyResourceUpdated(WATCHED), WATCHED);
    await once(a, seen, () => a.server.notifyResourceUpdated(WATCHED), WATCHED);
    // a registry change on B after it served: B announces tools/list_changed, A's session hears it
    await once(b, seen, () => void b.server.registerTool('late_b', { description: 'added on B' }, () => 'late'), 'tools');
    assert.equal(b.handler.sessionCount, 0, 'B still does not hold it');
    await client.close();
    assert.deepEqual(
      [...a.errors, ...b.errors].map((e) => e.message),
      [],
    );
  });

  it('2026-07-28: a subscriptions/listen stream on A receives the changes raised on B, once each, with its subscription id', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'listen', version: '1' },
    };
    const res = await post(
      a.handler,
      rpc('listen-1', 'subscriptions/listen', {
        _meta: meta,
        notifications: { toolsListChanged: true, resourceSubscriptions: [WATCHED, MARKER] },
      } as JSONObject),
      {
        protocolVersion: '2026-07-28',
        headers: { 'mcp-method': 'subscriptions/listen' },
      },
    );
    assert.equal(res.status, 200);
    const reader = new SseReader(res);
    const ack = JSON.parse((await reader.next()).data);
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ack.params.notifications, { toolsListChanged: true, resourceSubscriptions: [WATCHED, MARKER] });
    assert.equal(a.server.statelessSubscriptionCount, 1);
    const tag = { 'io.modelcontextprotocol/subscriptionId': 'listen-1' };
    const next = async () => JSON.parse((await reader.next()).data) as JSONObject;

    await b.server.notifyResourceUpdated(WATCHED);
    await b.server.notifyResourceUpdated(MARKER);
    assert.deepEqual(await next(), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: WATCHED, _meta: tag } });
    assert.deepEqual(
      await next(),
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: MARKER, _meta: tag } },
      'once: the marker comes next',
    );

    b.server.registerTool('late_listen', { description: 'added on B' }, () => 'late');
    assert.deepEqual(await next(), { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: tag } });

    // raised on A itself: delivered once (A does not hear its own announcement back)
    await a.server.notifyResourceUpdated(WATCHED);
    await b.server.notifyResourceUpdated(MARKER);
    assert.equal(((await next()).params as JSONObject).uri, WATCHED);
    assert.equal(((await next()).params as JSONObject).uri, MARKER, 'once: the marker comes next');

    await reader.cancel();
    await until('the listen request to end with its stream', () => a.server.statelessSubscriptionCount === 0, 20_000);
    assert.deepEqual(
      [...a.errors, ...b.errors].map((e) => e.message),
      [],
    );
  });

  it('drops a malformed bus message and one with a too long URI (reported to onError), and goes on delivering', async () => {
    const proxy = await roundRobinProxy([a.node.port]);
    suite.defer(() => proxy.close());
    const { client, seen } = await sdkClient(proxy.url);
    await client.subscribeResource({ uri: WATCHED });
    await client.subscribeResource({ uri: MARKER });
    await getStreamOpen(proxy);
    const errorsBefore = a.errors.length;

    // a peer speaking garbage on the notifications channel: through the bus, and raw
    await b.bus.publish('notifications', { m: 'notifications/resources/updated', u: `note://${'x'.repeat(9000)}` });
    await b.bus.publish('notifications', { m: 'notifications/bogus' });
    await b.bus.publish('notifications', 'not an object');
    await b.redis.publish('bus:notifications', '{not json');
    await until('the four drops to be reported on A', () => a.errors.length >= errorsBefore + 4, 20_000);
    const dropped = a.errors.slice(errorsBefore).map((e) => e.message);
    assert.ok(
      dropped.some((m) => /URI of 9007 characters exceeds maxUriChars \(8192\)/.test(m)),
      dropped.join('\n'),
    );
    assert.equal(dropped.filter((m) => /^Dropped a malformed shared notification/.test(m)).length, 2, dropped.join('\n'));
    assert.ok(
      dropped.some((m) => /^Dropped a malformed bus message on notifications/.test(m)),
      dropped.join('\n'),
    );
    assert.deepEqual(seen, [], 'nothing reached the client');

    // a too long URI raised on B: refused on publish (B reports it), B's own subscribers got it
    const errorsB = b.errors.length;
    await b.server.notifyResourceUpdated(`note://${'y'.repeat(9000)}`);
    const refused = b.errors.slice(errorsB).filter((e) => e instanceof RangeError);
    assert.deepEqual(
      refused.map((e) => e.message),
      ['A resource URI is 1 to 8192 characters'],
    );

    // and service goes on
    await once(b, seen, () => b.server.notifyResourceUpdated(WATCHED), WATCHED);
    await client.close();
  });
});

describe('a session held by three instances (round-robin requests)', () => {
  it('hears every change exactly once, whichever instance raised it', async () => {
    const instances = [await instance('subs3:', 'x'), await instance('subs3:', 'y'), await instance('subs3:', 'z')];
    const proxy = await roundRobinProxy(instances.map((i) => i.node.port));
    suite.defer(() => proxy.close());
    const { client, transport, seen } = await sdkClient(proxy.url);
    await client.subscribeResource({ uri: WATCHED });
    await client.subscribeResource({ uri: MARKER });
    const getAt = await getStreamOpen(proxy);
    // requests land on every instance: each restores the session, subscriptions included
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'echo', arguments: { text: `hop ${i}` } });
    const sessionId = transport.sessionId!;
    for (const i of instances) {
      await until(
        `${i.name} to hold the session with both subscriptions`,
        () => {
          const held = [...i.server.connections].find((s) => s.sessionId === sessionId);
          return held !== undefined && held.subscriptions.has(WATCHED) && held.subscriptions.has(MARKER);
        },
        20_000,
      );
    }
    for (const i of instances) {
      await once(i, seen, () => i.server.notifyResourceUpdated(WATCHED), WATCHED);
      await once(i, seen, () => void i.server.registerTool(`late_${i.name}`, { description: `added on ${i.name}` }, () => 'late'), 'tools');
    }
    assert.equal(proxy.exchanges.filter((e) => e.method === 'GET' && e.status === 200).length, 1, 'one GET stream, on one instance');
    assert.ok(getAt >= 0 && getAt < 3);
    await client.close();
    assert.deepEqual(
      instances.flatMap((i) => i.errors).map((e) => e.message),
      [],
    );
  });
});
