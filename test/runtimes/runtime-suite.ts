/**
 * What every web-standard runtime must show (used by bun.test.ts and deno.test.ts): mcpkit's
 * Streamable HTTP handler served by the runtime's own server (`Bun.serve` / `Deno.serve`, no
 * adapter) as a real child process on 127.0.0.1 answers the demo's tools to the official v2
 * client and to mcpkit's client, in both eras (2025 with in-memory sessions, and with
 * `sessionless`; 2026-07-28 beside each); and mcpkit's client running inside the runtime calls
 * a Node mcpkit server in both eras.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { ALL_REVISIONS, Client } from '../../src/client/index.js';
import { createDemoServer } from '../../src/demo/server.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { type NodeServerHandle, serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { fixture, type Runtime, type RuntimeServer, runRuntimeScript, startRuntimeServer } from './harness.js';

const T = { timeoutMs: 15_000 };
const ELICITED = { username: 'ada', email: 'ada@example.com' };

function firstText(result: unknown): string {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content;
  assert.ok(Array.isArray(content), 'the result has a content array');
  assert.equal(content[0]?.type, 'text');
  return String(content[0]?.text);
}

/** The official v2 client in `mode` ('legacy': 2025 era; pinned 2026-07-28), answering form elicitation. */
export async function officialClientRound(url: string, mode: 'legacy' | { pin: '2026-07-28' }, sessionless: boolean): Promise<void> {
  const client = new V2Client({ name: 'v2-client', version: '2.4.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } });
  const elicited: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    elicited.push(String(request.params.message));
    return { action: 'accept', content: ELICITED };
  });
  await client.connect(new V2Transport(new URL(url)), { timeout: 15_000 });
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), mode === 'legacy' ? '2025-11-25' : '2026-07-28');
    assert.equal(client.getServerVersion()?.name, 'mcpkit-demo');
    const tools = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ['echo', 'add', 'test_simple_text', 'test_elicitation']) assert.ok(tools.includes(name), `tools/list has ${name}: ${tools.join(', ')}`);
    assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { message: 'hi from the official client' } })), 'hi from the official client');
    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    assert.deepEqual(add.structuredContent, { sum: 42 });
    assert.equal(firstText(await client.callTool({ name: 'test_simple_text', arguments: {} })), 'This is a simple text response for testing.');
    if (mode === 'legacy' && sessionless) {
      // sessionless 2025: no initialize state, so no declared capabilities to ask against
      const refused = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
      assert.equal(refused.isError, true);
      assert.match(firstText(refused), /needs the "elicitation" capability/);
    } else if (mode === 'legacy') {
      // a server → client request inside the session
      assert.match(firstText(await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } })), /action=accept/);
      assert.deepEqual(elicited, ['Who are you?']);
    }
  } finally {
    await client.close();
  }
}

/** mcpkit's client (in this Node process) in the 2025 era or, with ALL_REVISIONS, the 2026-07-28 one. */
export async function mcpkitClientRound(url: string, era: '2025' | '2026'): Promise<void> {
  const client = new Client({ name: 'mcpkit-client', version: '1.0.0' }, era === '2026' ? { protocolVersions: ALL_REVISIONS } : {});
  await client.connect(new StreamableHttpClientTransport({ url }), T);
  try {
    assert.equal(client.protocolVersion, era === '2026' ? '2026-07-28' : '2025-11-25');
    const tools = (await client.listTools(undefined, T)).tools.map((t) => t.name);
    assert.ok(tools.includes('echo') && tools.includes('add'), tools.join(', '));
    assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { message: `mcpkit ${era}` } }, T)), `mcpkit ${era}`);
    assert.deepEqual((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }, T)).structuredContent, { sum: 3 });
  } finally {
    await client.close();
  }
}

/** Declares the suite for `runtime`. */
export function runtimeSuite(runtime: Runtime): void {
  const name = runtime === 'bun' ? 'Bun.serve' : 'Deno.serve';
  for (const [mode, response] of [
    ['sessions', 'sse'],
    ['sessionless', 'json'],
  ] as const) {
    describe(`${name} serving the demo (2025 era: ${mode}, ${response} replies; 2026-07-28 beside it)`, { timeout: SUITE_TIMEOUT_MS }, () => {
      let server: RuntimeServer;
      before(async () => {
        server = await startRuntimeServer(runtime, fixture('serve-demo.mjs'), [mode, response]);
      });
      after(async () => {
        await server?.close();
      });

      it('answers the official v2 client in the 2025 era', async () => {
        await officialClientRound(server.url, 'legacy', mode === 'sessionless');
      });
      it('answers the official v2 client in the 2026-07-28 era', async () => {
        await officialClientRound(server.url, { pin: '2026-07-28' }, mode === 'sessionless');
      });
      it("answers mcpkit's client in both eras", async () => {
        await mcpkitClientRound(server.url, '2025');
        await mcpkitClientRound(server.url, '2026');
      });
    });
  }

  describe(`${name} serving the demo behind mcpkit/auth's requireBearerAuth (imported from dist/ inside ${runtime})`, { timeout: SUITE_TIMEOUT_MS }, () => {
    const TOKEN = 'runtime-test-token-0123456789';
    let server: RuntimeServer;
    before(async () => {
      server = await startRuntimeServer(runtime, fixture('serve-demo.mjs'), ['sessions', 'sse', 'bearer', TOKEN]);
    });
    after(async () => {
      await server?.close();
    });

    it('answers 401 with a challenge naming its resource metadata, and serves that metadata', async () => {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      await response.body?.cancel();
      assert.equal(response.status, 401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
      assert.ok(metadataUrl !== undefined, `the challenge names the metadata: ${challenge}`);
      const metadata = (await (await fetch(new URL(new URL(metadataUrl).pathname, server.url))).json()) as {
        resource?: string;
        authorization_servers?: string[];
      };
      assert.deepEqual(metadata.authorization_servers, ['https://as.example']);
    });

    it('serves a client presenting the token, and refuses one presenting another', async () => {
      const client = new Client({ name: 'bearer-client', version: '1.0.0' });
      await client.connect(new StreamableHttpClientTransport({ url: server.url, headers: { authorization: `Bearer ${TOKEN}` } }), T);
      try {
        assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { message: 'authorized' } }, T)), 'authorized');
      } finally {
        await client.close();
      }
      const intruder = new Client({ name: 'intruder', version: '1.0.0' });
      await assert.rejects(intruder.connect(new StreamableHttpClientTransport({ url: server.url, headers: { authorization: 'Bearer wrong' } }), T), /401/);
      await intruder.close();
    });
  });

  describe(`the ${runtime} example (examples/${runtime}/server.ts)`, { timeout: SUITE_TIMEOUT_MS }, () => {
    it("serves its tool to mcpkit's client in both eras", async () => {
      const server = await startRuntimeServer(runtime, join(REPO_ROOT, 'examples', runtime, 'server.ts'), ['0']);
      try {
        for (const era of ['2025', '2026'] as const) {
          const client = new Client({ name: 'example-client', version: '1.0.0' }, era === '2026' ? { protocolVersions: ALL_REVISIONS } : {});
          await client.connect(new StreamableHttpClientTransport({ url: server.url }), T);
          try {
            assert.equal(client.protocolVersion, era === '2026' ? '2026-07-28' : '2025-11-25');
            assert.equal(firstText(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }, T)), '42');
          } finally {
            await client.close();
          }
        }
      } finally {
        await server.close();
      }
    });
  });

  describe(`mcpkit's client inside ${runtime} calling a Node mcpkit server`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let node: NodeServerHandle;
    before(async () => {
      node = await serveNode(createStreamableHttpHandler({ server: createDemoServer({ tasks: false }) }), { port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await node?.close();
    });

    for (const era of ['2025', '2026'] as const) {
      it(`lists and calls tools and answers an elicitation, ${era === '2025' ? '2025 era' : '2026-07-28 era'}`, async () => {
        const seen = await runRuntimeScript(runtime, fixture('client.mjs'), [node.url, era]);
        assert.equal(seen.runtime, runtime);
        assert.equal(seen.protocolVersion, era === '2025' ? '2025-11-25' : '2026-07-28');
        assert.equal(seen.era, era === '2025' ? 'stateful' : 'stateless');
        assert.ok((seen.tools as string[]).includes('echo'), String(seen.tools));
        assert.equal(seen.echo, `hello from ${runtime}`);
        assert.deepEqual(seen.elicited, ['Who are you?']);
        assert.equal(seen.elicitation, `User response: action=accept, content=${JSON.stringify(ELICITED)}`);
      });
    }
  });
}
