/**
 * Cloudflare Workers: mcpkit's handler bundled as a Worker (test/runtimes/fixtures/demo-worker.mjs,
 * `sessionless` with SSE replies, the 2026-07-28 era beside it) and run by workerd as a real
 * child process on 127.0.0.1 answers the demo's tools to the official v2 client and to
 * mcpkit's client in both eras; the example Worker (examples/workers/) serves its own tool.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '../../src/client/index.js';
import { createDemoServer } from '../../src/demo/server.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import { type NodeServerHandle, serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { fixture, type RuntimeServer } from './harness.js';
import { mcpkitClientRound, officialClientRound } from './runtime-suite.js';
import { startWorker } from './workerd.js';

describe('a Worker on workerd serving the demo (2026-07-28, and 2025 sessionless with SSE replies)', { timeout: SUITE_TIMEOUT_MS }, () => {
  let worker: RuntimeServer;
  before(async () => {
    worker = await startWorker(fixture('demo-worker.mjs'));
  });
  after(async () => {
    await worker?.close();
  });

  it('answers the official v2 client in the 2026-07-28 era', async () => {
    await officialClientRound(worker.url, { pin: '2026-07-28' }, true);
  });
  it('answers the official v2 client in the 2025 era (sessionless)', async () => {
    await officialClientRound(worker.url, 'legacy', true);
  });
  it("answers mcpkit's client in both eras", async () => {
    await mcpkitClientRound(worker.url, '2026');
    await mcpkitClientRound(worker.url, '2025');
  });
  it('refuses a GET stream with 405, as a sessionless endpoint must', async () => {
    const response = await fetch(worker.url, { headers: { accept: 'text/event-stream' } });
    assert.equal(response.status, 405);
    await response.body?.cancel();
  });
});

/** The status of a POST to `url` sent with the given `Host` header (fetch cannot set one). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  });
}

describe('the example Worker (examples/workers/worker.ts) on workerd', { timeout: SUITE_TIMEOUT_MS }, () => {
  let worker: RuntimeServer;
  before(async () => {
    // the Durable Objects as the example's wrangler.toml binds them
    const toml = readFileSync(join(REPO_ROOT, 'examples', 'workers', 'wrangler.toml'), 'utf8');
    const durableObjects = [...toml.matchAll(/\[\[durable_objects\.bindings\]\]\s*name = "([^"]+)"\s*class_name = "([^"]+)"/g)].map((m) => ({
      binding: m[1]!,
      className: m[2]!,
    }));
    assert.deepEqual(durableObjects, [{ binding: 'TASKS', className: 'TaskStoreDurableObject' }]);
    assert.match(toml, /new_sqlite_classes = \["TaskStoreDurableObject"\]/);
    worker = await startWorker(join(REPO_ROOT, 'examples', 'workers', 'worker.ts'), { MCP_ALLOWED_HOSTS: 'mcp.example.test, 127.0.0.1' }, 30_000, '/mcp', {
      durableObjects,
    });
  });
  after(async () => {
    await worker?.close();
  });

  it("serves its tool to mcpkit's client in the 2026-07-28 era, and checks arguments without Ajv", async () => {
    const client = new Client({ name: 'c', version: '1.0.0' }, { protocolVersions: ['2026-07-28'] });
    await client.connect(new StreamableHttpClientTransport({ url: worker.url }), { timeoutMs: 15_000 });
    try {
      assert.equal(client.protocolVersion, '2026-07-28');
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }, { timeoutMs: 15_000 });
      assert.deepEqual(result.content, [{ type: 'text', text: '5' }]);
      const bad = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } }, { timeoutMs: 15_000 }).then(
        (r) => ({ isError: r.isError, text: JSON.stringify(r.content) }),
        (err: { code?: number; message?: string }) => ({ code: err.code, text: String(err.message) }),
      );
      assert.ok('code' in bad ? bad.code === -32602 : bad.isError === true, `arguments of the wrong type are refused: ${JSON.stringify(bad)}`);
      assert.match(bad.text, /number/);
    } finally {
      await client.close();
    }
  });

  it('runs a long call of slow_add as a task (2026-07-28 tasks extension) kept in its Durable Object', async () => {
    const client = new Client({ name: 'c', version: '1.0.0' }, { protocolVersions: ['2026-07-28'], stateless: { tasks: true } });
    const seen: string[] = [];
    const transport = new StreamableHttpClientTransport({ url: worker.url });
    await client.connect(transport, { timeoutMs: 15_000 });
    const original = transport.send.bind(transport);
    transport.send = (message, options) => {
      seen.push(String((message as { method?: string }).method));
      return original(message, options);
    };
    try {
      const result = await client.callTool(
        { name: 'slow_add', arguments: { a: 2, b: 3, ms: 400 } },
        { timeoutMs: 15_000, signal: AbortSignal.timeout(20_000) },
      );
      assert.deepEqual(result.content, [{ type: 'text', text: '5' }], worker.stderr());
      assert.ok(seen.includes('tasks/get'), `the call became a task the client polled: ${seen.join(', ')}`);
    } finally {
      await client.close();
    }
  });

  it('answers only the hosts MCP_ALLOWED_HOSTS names (403 for another Host)', async () => {
    assert.equal(await statusWithHost(worker.url, 'evil.example'), 403);
    assert.notEqual(await statusWithHost(worker.url, 'mcp.example.test'), 403);
  });
});

describe("mcpkit's client inside a Worker on workerd calling a Node mcpkit server", { timeout: SUITE_TIMEOUT_MS }, () => {
  let node: NodeServerHandle;
  let worker: RuntimeServer;
  before(async () => {
    node = await serveNode(createStreamableHttpHandler({ server: createDemoServer({ tasks: false }) }), { port: 0, host: '127.0.0.1' });
    worker = await startWorker(fixture('client-worker.mjs'), {}, 30_000, '/');
  });
  after(async () => {
    await worker?.close();
    await node?.close();
  });

  for (const era of ['2025', '2026'] as const) {
    it(`lists and calls tools and answers an elicitation, ${era === '2025' ? '2025 era' : '2026-07-28 era'}`, async () => {
      const response = await fetch(`${worker.url}?server=${encodeURIComponent(node.url)}&era=${era}`);
      const text = await response.text();
      assert.equal(response.status, 200, `the Worker's client failed: ${text}\n${worker.stderr()}`);
      const seen = JSON.parse(text) as Record<string, unknown>;
      assert.equal(seen.protocolVersion, era === '2025' ? '2025-11-25' : '2026-07-28');
      assert.equal(seen.era, era === '2025' ? 'stateful' : 'stateless');
      assert.ok((seen.tools as string[]).includes('echo'), String(seen.tools));
      assert.equal(seen.echo, 'hello from workerd');
      assert.deepEqual(seen.elicited, ['Who are you?']);
      assert.equal(seen.elicitation, 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
    });
  }
});

describe("mcpkit/auth/web's requireBearerAuth protecting the handler in a Worker on workerd", { timeout: SUITE_TIMEOUT_MS }, () => {
  const TOKEN = 'worker-test-token-0123456789';
  let worker: RuntimeServer;
  before(async () => {
    worker = await startWorker(fixture('bearer-worker.mjs'), { TOKEN });
  });
  after(async () => {
    await worker?.close();
  });

  it('answers 401 with a challenge naming its resource metadata, and serves that metadata', async () => {
    const response = await fetch(worker.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    await response.body?.cancel();
    assert.equal(response.status, 401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.ok(metadataUrl !== undefined, `the challenge names the metadata: ${challenge}`);
    const metadata = (await (await fetch(new URL(new URL(metadataUrl).pathname, worker.url))).json()) as { authorization_servers?: string[] };
    assert.deepEqual(metadata.authorization_servers, ['https://as.example']);
  });

  it('serves a client presenting the token (its auth info reaches the tool), and refuses another token', async () => {
    for (const protocolVersions of [undefined, ['2026-07-28']]) {
      const client = new Client({ name: 'c', version: '1.0.0' }, protocolVersions === undefined ? {} : { protocolVersions });
      await client.connect(new StreamableHttpClientTransport({ url: worker.url, headers: { authorization: `Bearer ${TOKEN}` } }), { timeoutMs: 15_000 });
      try {
        const result = await client.callTool({ name: 'whoami', arguments: {} }, { timeoutMs: 15_000 });
        assert.deepEqual(result.content, [{ type: 'text', text: 'subject=ada' }]);
      } finally {
        await client.close();
      }
    }
    const intruder = new Client({ name: 'intruder', version: '1.0.0' });
    await assert.rejects(
      intruder.connect(new StreamableHttpClientTransport({ url: worker.url, headers: { authorization: 'Bearer wrong' } }), { timeoutMs: 15_000 }),
      /401/,
    );
    await intruder.close();
  });
});
