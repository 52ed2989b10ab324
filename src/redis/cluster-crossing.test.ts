/**
 * Issue 36 item 1: answers to server → client requests never cross between concurrent calls
 * of one session spread over three `mcpkit demo --http --redis URL` processes behind a
 * round-robin proxy. Each instance numbers its requests with its own prefix
 * (`Transport.requestIdPrefix`), and an answer POSTed to another instance is relayed to the
 * instance its id names, never taken by id alone. Before: each instance numbered from 1 and
 * any instance waiting for that number took the answer (68 of 300 crossed).
 *
 * The official v1 client (1.32.2) runs 100 rounds of 4 concurrent calls (2 sampling, 2
 * elicitation) on one session; the official v2 client (2.4.0) 25 rounds. Every answer names
 * the prompt it answers, so a crossed one shows as a wrong result.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type RoundRobinProxy, roundRobinProxy } from '../../test/helpers/http/round-robin-proxy.js';
import { type DemoProcess, startRedisDemo, stopRedisDemo } from '../../test/helpers/redis/demo-process.js';
import { type RedisServer, startRedis } from '../../test/helpers/redis/redis-server.js';

let redis: RedisServer;
let demos: DemoProcess[] = [];
let proxy: RoundRobinProxy;

before(async () => {
  redis = await startRedis();
  demos = await Promise.all([0, 1, 2].map(() => startRedisDemo(redis.url)));
  proxy = await roundRobinProxy(demos.map((d) => d.port));
});
after(async () => {
  await proxy?.close();
  for (const demo of demos) await stopRedisDemo(demo);
  await redis?.close();
});

/** A short random pause, so that answers come back out of order. */
function jitter(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 8)));
}

function textOf(result: unknown): string {
  return String((result as { content: Array<{ text?: string }> }).content[0]?.text);
}

/** Runs `rounds` rounds of two sampling and two elicitation calls at once; returns the calls whose result is not their own answer. */
async function crossings(call: (name: string, args: Record<string, string>) => Promise<unknown>, rounds: number): Promise<string[]> {
  const crossed: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const calls = [0, 1].flatMap((i) => {
      const prompt = `p-${round}-${i}`;
      const message = `m-${round}-${i}`;
      return [
        call('test_sampling', { prompt }).then((r) => {
          if (textOf(r) !== `LLM response: answer to ${prompt}`) crossed.push(`${prompt} got ${textOf(r)}`);
        }),
        call('test_elicitation', { message }).then((r) => {
          const expected = `User response: action=accept, content={"username":"${message}","email":"${message}@example.com"}`;
          if (textOf(r) !== expected) crossed.push(`${message} got ${textOf(r)}`);
        }),
      ];
    });
    await Promise.all(calls);
  }
  return crossed;
}

it('crosses no answers: official v1 client, 100 rounds of 4 concurrent sampling and elicitation calls on one session over three instances', {
  timeout: 120_000,
}, async () => {
  const client = new Client({ name: 'crossing-v1', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    await jitter();
    const content = request.params.messages[0]!.content as { text?: string };
    return { role: 'assistant', model: 'stub', content: { type: 'text', text: `answer to ${content.text}` } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    await jitter();
    const message = request.params.message;
    return { action: 'accept', content: { username: message, email: `${message}@example.com` } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
  const before = proxy.exchanges.length;
  const crossed = await crossings((name, args) => client.callTool({ name, arguments: args }), 100);
  await client.close();
  assert.deepEqual(crossed, []);
  // the answers really went to all three instances
  const used = new Set(
    proxy.exchanges
      .slice(before)
      .filter((e) => e.method === 'POST')
      .map((e) => e.upstream),
  );
  assert.equal(used.size, 3);
});

it('crosses no answers: official v2 client, 25 rounds of 4 concurrent sampling and elicitation calls', { timeout: 60_000 }, async () => {
  const client = new V2Client({ name: 'crossing-v2', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: {} } } });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    await jitter();
    const content = request.params.messages[0]!.content as { text?: string };
    return { role: 'assistant', model: 'stub', content: { type: 'text', text: `answer to ${content.text}` } };
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    await jitter();
    const message = String(request.params.message);
    return { action: 'accept', content: { username: message, email: `${message}@example.com` } };
  });
  await client.connect(new V2Transport(new URL(proxy.url)));
  const crossed = await crossings((name, args) => client.callTool({ name, arguments: args }), 25);
  await client.close();
  assert.deepEqual(crossed, []);
});
