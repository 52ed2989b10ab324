/**
 * Interop: mcpkit's client against a server built with the OFFICIAL TypeScript SDK v2
 * (`@modelcontextprotocol/server` 2.x, fixtures/v2-server.ts), in both protocol eras:
 *
 * - 2025 era: `initialize` on a sessionful v2 transport, tools (text, structured output),
 *   v2's server → client requests (its push-style `elicitInput`, and its "legacy shim" that
 *   turns a multi round-trip `inputRequired(…)` return into real `elicitation/create` /
 *   `sampling/createMessage` requests), resources, templates, prompts, -32602.
 * - 2026-07-28 era (a dual-era client probing with `server/discover`, and a client pinned to
 *   that revision): the same surface through v2's `createMcpHandler`, with the multi
 *   round-trip tools answered from mcpkit's own elicitation and sampling handlers.
 * - v2's default 2025-era serving (the stateless fallback of `createMcpHandler`), whose
 *   documented limit — no server → client requests — is pinned down here.
 * - stdio, both eras, against v2's `serveStdio` entry in a child process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { ALL_REVISIONS, Client, type ClientOptions } from '../../../src/client/index.js';
import { StreamableHttpClientTransport } from '../../../src/http/client/streamable.js';
import { McpError } from '../../../src/jsonrpc/errors.js';
import { StdioClientTransport } from '../../../src/stdio/index.js';
import { type RecordingTransport, recordTransport } from '../../../src/testing/recording-transport.js';
import type { CallToolResult } from '../../../src/types.js';
import { SUITE_TIMEOUT_MS } from '../../helpers/bounds.js';
import { createV2Endpoint, createV2Server, type FetchServer, serveFetch, type V2Endpoint } from './fixtures/v2-server.js';

const STDIO_FIXTURE = fileURLToPath(new URL('./fixtures/v2-stdio-server.js', import.meta.url));
const T = { timeoutMs: 10_000 };

function text(result: CallToolResult | { content?: unknown }): string {
  const content = result.content as Array<{ type?: string; text?: string }> | undefined;
  assert.ok(Array.isArray(content), 'result has content');
  assert.equal(content[0]?.type, 'text');
  return String(content[0]?.text);
}

/** An mcpkit client with form elicitation (answers `answer`, default accept `{ name: 'Ada' }`) and sampling; records what it was asked. */
function mcpkitClient(extra: ClientOptions = {}, answer: 'accept' | 'decline' = 'accept'): { client: Client; elicited: string[]; sampled: string[] } {
  const elicited: string[] = [];
  const sampled: string[] = [];
  const client = new Client(
    { name: 'mcpkit-client', version: '0.1.0' },
    {
      ...extra,
      elicitation: {
        form: (params) => {
          elicited.push(params.message);
          return answer === 'accept' ? { action: 'accept', content: { name: 'Ada' } } : { action: 'decline' };
        },
      },
      sampling: {
        createMessage: (params) => {
          const first = params.messages[0]?.content as { text?: string } | undefined;
          sampled.push(String(first?.text));
          return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } };
        },
      },
    },
  );
  return { client, elicited, sampled };
}

let endpoint: V2Endpoint;
let http: FetchServer;
before(async () => {
  endpoint = createV2Endpoint();
  http = await serveFetch((request) => endpoint.fetch(request));
});
after(async () => {
  await endpoint?.close();
  await http?.close();
});

/** The checks both eras share: tools, structured output, resources, templates, prompts, -32602. */
async function commonSurface(client: Client): Promise<void> {
  assert.deepEqual((await client.listAllTools(T)).map((t) => t.name).sort(), ['add', 'ask_model', 'ask_name', 'echo', 'log', 'push_elicit']);
  assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'to v2' } }, T)), 'to v2');
  const add = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }, T);
  assert.deepEqual(add.structuredContent, { sum: 42 });
  // v2 validates arguments itself: a bad one is a tool error, not a protocol error
  const bad = await client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } }, T);
  assert.equal(bad.isError, true);

  const resources = await client.listAllResources(T);
  assert.ok(resources.some((r) => r.uri === 'test://greeting'));
  const read = await client.readResource('test://greeting', T);
  assert.equal((read.contents[0] as { text?: string }).text, 'hello from v2');
  const templates = await client.listAllResourceTemplates(T);
  assert.deepEqual(
    templates.map((t) => t.uriTemplate),
    ['test://items/{id}'],
  );
  const item = await client.readResource('test://items/7', T);
  assert.deepEqual(JSON.parse(String((item.contents[0] as { text?: string }).text)), { id: '7' });

  const prompts = await client.listAllPrompts(T);
  assert.deepEqual(
    prompts.map((p) => p.name),
    ['greet'],
  );
  const prompt = await client.getPrompt('greet', { who: 'Grace' }, T);
  assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Please greet Grace.' } }]);

  await assert.rejects(client.readResource('test://no-such-resource', T), (err: unknown) => {
    assert.ok(err instanceof McpError, String(err));
    assert.equal(err.code, -32602);
    return true;
  });
}

describe('mcpkit client → official v2 server, 2025 era (sessionful Streamable HTTP)', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('initializes and uses tools, resources and prompts', async () => {
    endpoint.posted.length = 0;
    const { client } = mcpkitClient();
    await client.connect(new StreamableHttpClientTransport({ url: http.url }), T);
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.deepEqual(client.serverInfo, { name: 'v2-server', version: '2.4.0' });
      assert.equal(client.instructions, 'official v2 test server');
      assert.deepEqual(endpoint.posted.slice(0, 2), [
        { leg: 'legacy', method: 'initialize' },
        { leg: 'legacy', method: 'notifications/initialized' },
      ]);
      await commonSurface(client);
      assert.ok(
        endpoint.posted.every((p) => p.leg === 'legacy'),
        'every 2025-era message took the legacy leg',
      );
    } finally {
      await client.close();
    }
  });

  it("answers v2's server → client requests: push elicitation and the legacy shim's elicitation and sampling", async () => {
    const { client, elicited, sampled } = mcpkitClient();
    await client.connect(new StreamableHttpClientTransport({ url: http.url }), T);
    try {
      assert.equal(text(await client.callTool({ name: 'push_elicit', arguments: {} }, T)), 'push: accept Ada');
      assert.equal(text(await client.callTool({ name: 'ask_name', arguments: {} }, T)), 'Hello, Ada!');
      assert.deepEqual(elicited, ['Push: your name?', 'What is your name?']);
      assert.equal(text(await client.callTool({ name: 'ask_model', arguments: {} }, T)), 'model said: Paris');
      assert.deepEqual(sampled, ['Capital of France?']);
    } finally {
      await client.close();
    }
  });

  it("a declined elicitation re-enters v2's handler with the decline", async () => {
    const { client, elicited } = mcpkitClient({}, 'decline');
    await client.connect(new StreamableHttpClientTransport({ url: http.url }), T);
    try {
      assert.equal(text(await client.callTool({ name: 'ask_name', arguments: {} }, T)), 'no name (decline)');
      assert.equal(elicited.length, 1);
    } finally {
      await client.close();
    }
  });
});

for (const [label, options] of [
  ['a dual-era client (probe, then server/discover)', { protocolVersions: ALL_REVISIONS }],
  ['a client pinned to 2026-07-28', { protocolVersion: '2026-07-28' }],
] as const) {
  describe(`mcpkit client → official v2 server, 2026-07-28 era: ${label}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    it('discovers and uses tools, resources and prompts', async () => {
      endpoint.posted.length = 0;
      const { client } = mcpkitClient({ ...options });
      await client.connect(new StreamableHttpClientTransport({ url: http.url }), T);
      try {
        assert.equal(client.era, 'stateless');
        assert.equal(client.protocolVersion, '2026-07-28');
        assert.deepEqual(client.serverInfo, { name: 'v2-server', version: '2.4.0' });
        assert.deepEqual(endpoint.posted[0], { leg: 'modern', method: 'server/discover' });
        const discover = client.discoverResult;
        assert.ok(discover?.supportedVersions.includes('2026-07-28'));
        await commonSurface(client);
        assert.ok(
          endpoint.posted.every((p) => p.leg === 'modern'),
          'nothing took the 2025-era leg',
        );
        assert.ok(!endpoint.posted.some((p) => p.method === 'initialize'));
      } finally {
        await client.close();
      }
    });

    it('answers input-required results from its elicitation and sampling handlers', async () => {
      endpoint.posted.length = 0;
      const { client, elicited, sampled } = mcpkitClient({ ...options });
      await client.connect(new StreamableHttpClientTransport({ url: http.url }), T);
      try {
        assert.equal(text(await client.callTool({ name: 'ask_name', arguments: {} }, T)), 'Hello, Ada!');
        assert.deepEqual(elicited, ['What is your name?']);
        assert.equal(endpoint.posted.filter((p) => p.method === 'tools/call').length, 2, 'the call and its retry');
        assert.equal(text(await client.callTool({ name: 'ask_model', arguments: {} }, T)), 'model said: Paris');
        assert.deepEqual(sampled, ['Capital of France?']);
        // v2 refuses the 2025 push-style elicitInput on a 2026-era request (a tool error
        // steering to inputRequired); nothing reaches the client
        const push = await client.callTool({ name: 'push_elicit', arguments: {} }, T);
        assert.equal(push.isError, true);
        assert.match(text(push), /inputRequired/);
        assert.equal(elicited.length, 1);
      } finally {
        await client.close();
      }
    });
  });
}

describe("mcpkit client → v2's default createMcpHandler (stateless 2025-era fallback)", { timeout: SUITE_TIMEOUT_MS }, () => {
  let plain: FetchServer;
  const handler = createMcpHandler(() => createV2Server());
  before(async () => {
    plain = await serveFetch((request) => handler.fetch(request));
  });
  after(async () => {
    await handler.close();
    await plain?.close();
  });

  it('serves the 2025 era without sessions; server → client requests are impossible there (documented v2 limit)', async () => {
    const { client, elicited } = mcpkitClient();
    await client.connect(new StreamableHttpClientTransport({ url: plain.url }), T);
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'stateless 2025' } }, T)), 'stateless 2025');
      // the legacy shim has no client capabilities on a per-request instance: a tool error
      const r = await client.callTool({ name: 'ask_name', arguments: {} }, T);
      assert.equal(r.isError, true);
      assert.match(text(r), /per-request legacy serving cannot receive server-to-client requests/);
      assert.deepEqual(elicited, []);
    } finally {
      await client.close();
    }
  });

  it('serves the 2026-07-28 era on the same URL', async () => {
    const { client, elicited } = mcpkitClient({ protocolVersions: ALL_REVISIONS });
    await client.connect(new StreamableHttpClientTransport({ url: plain.url }), T);
    try {
      assert.equal(client.era, 'stateless');
      assert.equal(text(await client.callTool({ name: 'ask_name', arguments: {} }, T)), 'Hello, Ada!');
      assert.equal(elicited.length, 1);
    } finally {
      await client.close();
    }
  });
});

describe("mcpkit client → official v2 server over stdio (v2's serveStdio)", { timeout: SUITE_TIMEOUT_MS }, () => {
  /** The v2 child over stdio, recorded so both sides' messages are checked against the official schema. */
  function stdio(client: Client): RecordingTransport {
    const inner = new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_FIXTURE],
      stderr: 'pipe',
      closeTimeouts: { stdinMs: 1000, termMs: 1000 },
    });
    return recordTransport(inner, { side: 'client', revision: () => client.protocolVersion });
  }

  function assertSchemaClean(recorder: RecordingTransport): void {
    assert.ok(recorder.transcript.some((e) => e.dir === 'recv') && recorder.transcript.some((e) => e.dir === 'send'), 'both directions were recorded');
    assert.deepEqual(recorder.peerViolations(), [], "v2's messages match the official schema");
    recorder.assertNoViolations();
  }

  it('2025 era: initialize, tools, server → client elicitation', async () => {
    const { client, elicited } = mcpkitClient();
    const recorder = stdio(client);
    await client.connect(recorder, T);
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(client.protocolVersion, '2025-11-25');
      assert.equal(text(await client.callTool({ name: 'echo', arguments: { message: 'stdio' } }, T)), 'stdio');
      assert.equal(text(await client.callTool({ name: 'ask_name', arguments: {} }, T)), 'Hello, Ada!');
      assert.equal(text(await client.callTool({ name: 'push_elicit', arguments: {} }, T)), 'push: accept Ada');
      assert.equal(elicited.length, 2);
      assert.equal((await client.readResource('test://greeting', T)).contents.length, 1);
      assertSchemaClean(recorder);
    } finally {
      await client.close();
    }
  });

  it('2026-07-28 era: server/discover and an input-required round trip', async () => {
    const { client, elicited } = mcpkitClient({ protocolVersions: ALL_REVISIONS });
    const recorder = stdio(client);
    await client.connect(recorder, T);
    try {
      assert.equal(client.era, 'stateless');
      assert.equal(client.protocolVersion, '2026-07-28');
      assert.equal(text(await client.callTool({ name: 'ask_name', arguments: {} }, T)), 'Hello, Ada!');
      assert.deepEqual(elicited, ['What is your name?']);
      const prompt = await client.getPrompt('greet', { who: 'Lin' }, T);
      assert.equal((prompt.messages[0]!.content as { text?: string }).text, 'Please greet Lin.');
      assertSchemaClean(recorder);
    } finally {
      await client.close();
    }
  });
});
