/**
 * Interop: the OFFICIAL TypeScript SDK v2 client (`@modelcontextprotocol/client` 2.x)
 * drives mcpkit's dual-era demo server, in both protocol eras:
 *
 * - 2025 era (v2's default `versionNegotiation: 'legacy'`): `initialize`, tools (text,
 *   structured output, a server → client elicitation and sampling), resources, prompts.
 * - 2026-07-28 era (`{ pin: '2026-07-28' }` and `'auto'`): `server/discover` instead of
 *   `initialize`, the per-request `_meta` envelope, multi round-trip (input-required)
 *   tools and prompts answered through the v2 client's ordinary request handlers, and the
 *   -32602 of an unknown resource.
 *
 * Over Streamable HTTP mcpkit's handler runs on a real socket (`serveNode`) and every POST
 * the v2 client makes is recorded through its `fetch` option; one more test per era runs
 * over stdio with the v2 client's own `StdioClientTransport` spawning `mcpkit demo`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, type ClientOptions, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createDemoServer } from '../../../src/demo/server.js';
import { type NodeServerHandle, serveNode } from '../../../src/http/node.js';
import { createStreamableHttpHandler } from '../../../src/http/server/handler.js';
import { validateWireMessage } from '../../../src/testing/wire-schema.js';
import { SUITE_TIMEOUT_MS } from '../../helpers/bounds.js';
import { MCPKIT_BIN } from '../../helpers/repo.js';

const TIMEOUT = { timeout: 10_000 };

type Posted = { method?: string; params?: Record<string, unknown>; id?: unknown; result?: unknown };
type Block = { type?: string; text?: string };

function firstText(result: unknown): string {
  const content = (result as { content?: Block[] }).content;
  assert.ok(Array.isArray(content), 'result has a content array');
  assert.equal(content[0]?.type, 'text');
  return String(content[0]?.text);
}

/** A v2 client with an elicitation handler (answers `{ name: 'Ada', color: 'blue', … }`) and a sampling handler; records what they were asked. */
function v2Client(mode: NonNullable<ClientOptions['versionNegotiation']>['mode']): { client: Client; elicited: string[]; sampled: number[] } {
  const elicited: string[] = [];
  const sampled: number[] = [];
  const client = new Client(
    { name: 'v2-client', version: '2.4.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    elicited.push(String(request.params.message));
    return { action: 'accept', content: { name: 'Ada', username: 'ada', email: 'ada@example.com', context: 'tests', ok: true, color: 'blue' } };
  });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    sampled.push(request.params.maxTokens);
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } };
  });
  return { client, elicited, sampled };
}

/** Every request and notification the v2 client POSTed must match the official schema of `revision`. */
function assertValidClientMessages(posted: Posted[], revision: string): void {
  const problems = posted
    .filter((m) => m.method !== undefined)
    .flatMap((m) => validateWireMessage(revision, { jsonrpc: '2.0', ...m }, { sender: 'client' }).map((p) => `${m.method}: ${p}`));
  assert.deepEqual(problems, [], `the v2 client's messages break the ${revision} schema`);
}

let running: NodeServerHandle;
before(async () => {
  running = await serveNode(createStreamableHttpHandler({ server: createDemoServer({ tasks: false }) }), { port: 0, host: '127.0.0.1' });
});
after(async () => {
  await running?.close();
});

/** A v2 HTTP transport to the demo whose POST bodies land in `posted`. */
function httpTransport(posted: Posted[]): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(running.url), {
    fetch: async (url, init) => {
      if (init?.method === 'POST' && typeof init.body === 'string') {
        const body = JSON.parse(init.body) as Posted | Posted[];
        posted.push(...(Array.isArray(body) ? body : [body]));
      }
      return fetch(url, init);
    },
  });
}

describe('official v2 client → mcpkit demo server, 2025 era (Streamable HTTP)', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('initializes, lists and calls tools, reads a resource, gets a prompt', async () => {
    const posted: Posted[] = [];
    const { client } = v2Client('legacy');
    await client.connect(httpTransport(posted), TIMEOUT);
    try {
      assert.deepEqual(
        posted.slice(0, 2).map((m) => m.method),
        ['initialize', 'notifications/initialized'],
      );
      assert.equal(client.getProtocolEra(), 'legacy');
      assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
      assert.equal(client.getServerVersion()?.name, 'mcpkit-demo');
      assert.ok(client.getServerCapabilities()?.tools);

      const tools = (await client.listTools()).tools.map((t) => t.name);
      for (const name of ['echo', 'add', 'test_elicitation', 'test_input_required_result_elicitation']) assert.ok(tools.includes(name), name);

      assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { message: 'hello from v2' } }, TIMEOUT)), 'hello from v2');
      const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }, TIMEOUT);
      assert.deepEqual(add.structuredContent, { sum: 42 });
      assert.notEqual(add.isError, true);

      const res = await client.readResource({ uri: 'test://static-text' }, TIMEOUT);
      assert.equal((res.contents[0] as { text?: string }).text, 'This is the content of the static text resource.');
      const tpl = await client.listResourceTemplates(undefined, TIMEOUT);
      assert.ok(tpl.resourceTemplates.length > 0);

      const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'one', arg2: 'two' } }, TIMEOUT);
      assert.equal(prompt.messages.length, 1);
      assert.match(String((prompt.messages[0]!.content as Block).text), /one/);
      // the 2025-era requests carry no per-request envelope
      assert.ok(posted.every((m) => m.params?._meta === undefined || !('io.modelcontextprotocol/protocolVersion' in (m.params._meta as object))));
      assertValidClientMessages(posted, '2025-11-25');
    } finally {
      await client.close();
    }
  });

  it('answers the server → client elicitation and sampling requests', async () => {
    const posted: Posted[] = [];
    const { client, elicited, sampled } = v2Client('legacy');
    await client.connect(httpTransport(posted), TIMEOUT);
    try {
      const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } }, TIMEOUT);
      assert.deepEqual(elicited, ['Who are you?']);
      assert.match(firstText(r), /action=accept/);
      assert.match(firstText(r), /"username":"ada"/);
      const s = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } }, TIMEOUT);
      assert.equal(firstText(s), 'LLM response: Paris');
      assert.deepEqual(sampled, [100]);
      // the answers went back as JSON-RPC responses POSTed to the session
      assert.equal(posted.filter((m) => m.method === undefined && m.result !== undefined).length, 2);
      // on a 2025 connection mcpkit asks the multi round-trip tools' questions with real requests
      assert.equal(firstText(await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} }, TIMEOUT)), 'Hello, Ada!');
    } finally {
      await client.close();
    }
  });

  it('maps an unknown resource to a -32602 ProtocolError', async () => {
    const { client } = v2Client('legacy');
    await client.connect(httpTransport([]), TIMEOUT);
    try {
      await assert.rejects(client.readResource({ uri: 'test://no-such-resource' }, TIMEOUT), (err: unknown) => {
        assert.ok(err instanceof ProtocolError, String(err));
        assert.equal(err.code, -32602);
        return true;
      });
    } finally {
      await client.close();
    }
  });
});

for (const mode of [{ pin: '2026-07-28' }, 'auto'] as const) {
  describe(`official v2 client → mcpkit demo server, 2026-07-28 era (${JSON.stringify(mode)}, Streamable HTTP)`, { timeout: SUITE_TIMEOUT_MS }, () => {
    it('discovers instead of initializing and calls tools with the per-request envelope', async () => {
      const posted: Posted[] = [];
      const { client } = v2Client(mode);
      await client.connect(httpTransport(posted), TIMEOUT);
      try {
        assert.equal(posted[0]?.method, 'server/discover');
        assert.ok(!posted.some((m) => m.method === 'initialize' || m.method === 'notifications/initialized'), 'no 2025 handshake');
        assert.equal(client.getProtocolEra(), 'modern');
        assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
        assert.equal(client.getServerVersion()?.name, 'mcpkit-demo');
        const discover = client.getDiscoverResult();
        assert.ok(discover, 'the discover result is kept');
        assert.ok((discover.supportedVersions as string[]).includes('2026-07-28'));
        assert.ok(discover.capabilities.tools);

        const tools = (await client.listTools(undefined, TIMEOUT)).tools.map((t) => t.name);
        assert.ok(tools.includes('test_input_required_result_elicitation'));
        assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { message: 'modern' } }, TIMEOUT)), 'modern');
        const add = await client.callTool({ name: 'add', arguments: { a: 1.5, b: 2 } }, TIMEOUT);
        assert.deepEqual(add.structuredContent, { sum: 3.5 });

        const call = posted.find((m) => m.method === 'tools/call')!;
        const meta = call.params!._meta as Record<string, unknown>;
        assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
        assert.deepEqual(meta['io.modelcontextprotocol/clientInfo'], { name: 'v2-client', version: '2.4.0' });
        assert.ok(meta['io.modelcontextprotocol/clientCapabilities']);

        const prompt = await client.getPrompt({ name: 'test_simple_prompt' }, TIMEOUT);
        assert.equal((prompt.messages[0]!.content as Block).text, 'This is a simple prompt for testing.');
        const res = await client.readResource({ uri: 'test://static-text' }, TIMEOUT);
        assert.equal((res.contents[0] as { text?: string }).text, 'This is the content of the static text resource.');
        assertValidClientMessages(posted, '2026-07-28');
      } finally {
        await client.close();
      }
    });

    it('fulfils input-required results (elicitation, sampling, a prompt) through its handlers and retries', async () => {
      const posted: Posted[] = [];
      const { client, elicited, sampled } = v2Client(mode);
      await client.connect(httpTransport(posted), TIMEOUT);
      try {
        const r = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} }, TIMEOUT);
        assert.equal(firstText(r), 'Hello, Ada!');
        assert.deepEqual(elicited, ['What is your name?']);
        const calls = posted.filter((m) => m.method === 'tools/call');
        assert.equal(calls.length, 2, 'the original call and one retry');
        assert.notEqual(calls[0]!.id, calls[1]!.id, 'the retry is a new request');
        const inputResponses = calls[1]!.params!.inputResponses as Record<string, { action?: string }>;
        assert.equal(inputResponses.user_name?.action, 'accept');
        assert.equal(calls[0]!.params!.inputResponses, undefined);

        const s = await client.callTool({ name: 'test_input_required_result_sampling', arguments: {} }, TIMEOUT);
        assert.equal(firstText(s), 'The model answered: Paris');
        assert.deepEqual(sampled, [100]);

        const multi = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} }, TIMEOUT);
        assert.equal(firstText(multi), 'Ada likes blue', 'two rounds, one question each');
        assert.equal(elicited.length, 3);

        const state = await client.callTool({ name: 'test_input_required_result_request_state', arguments: {} }, TIMEOUT);
        assert.equal(firstText(state), 'state-ok: confirmed=true');
        const stateCalls = posted.filter((m) => m.method === 'tools/call' && m.params?.name === 'test_input_required_result_request_state');
        assert.equal(typeof stateCalls[1]?.params?.requestState, 'string', 'the requestState is echoed on the retry');

        const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' }, TIMEOUT);
        assert.equal((prompt.messages[0]!.content as Block).text, 'Answer with this context in mind: tests');
        assertValidClientMessages(posted, '2026-07-28');
      } finally {
        await client.close();
      }
    });

    it('maps an unknown resource to a -32602 ProtocolError', async () => {
      const { client } = v2Client(mode);
      await client.connect(httpTransport([]), TIMEOUT);
      try {
        await assert.rejects(client.readResource({ uri: 'test://no-such-resource' }, TIMEOUT), (err: unknown) => {
          assert.ok(err instanceof ProtocolError, String(err));
          assert.equal(err.code, -32602);
          return true;
        });
      } finally {
        await client.close();
      }
    });
  });
}

describe('official v2 client → mcpkit demo server over stdio', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('2025 era: initialize, tools, a server → client elicitation', async () => {
    const { client, elicited } = v2Client('legacy');
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCPKIT_BIN, 'demo'], stderr: 'pipe' }), TIMEOUT);
    try {
      assert.equal(client.getProtocolEra(), 'legacy');
      assert.equal(client.getServerVersion()?.name, 'mcpkit-demo');
      assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { message: 'over stdio' } }, TIMEOUT)), 'over stdio');
      const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'stdio?' } }, TIMEOUT);
      assert.match(firstText(r), /action=accept/);
      assert.deepEqual(elicited, ['stdio?']);
    } finally {
      await client.close();
    }
  });

  it("2026-07-28 era ('auto' probes on a sibling process): discover and an input-required round trip", async () => {
    const { client, elicited } = v2Client('auto');
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCPKIT_BIN, 'demo'], stderr: 'pipe' }), TIMEOUT);
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.equal(firstText(await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} }, TIMEOUT)), 'Hello, Ada!');
      assert.deepEqual(elicited, ['What is your name?']);
    } finally {
      await client.close();
    }
  });
});
