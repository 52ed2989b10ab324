/**
 * The gateway with real third-party upstreams behind one endpoint, built from one
 * `mcpServers` file (JSONC, with a `gateway` object): `@modelcontextprotocol/server-everything`,
 * `server-filesystem` and `server-memory` (npm, stdio, run by their installed files with
 * `process.execPath`), a `fastmcp` server (stdio, fixtures/fastmcp-server.ts), an official SDK
 * v1 server over Streamable HTTP (in this process; it records the Authorization headers it
 * gets) and an official SDK v2 server over HTTP (v2/fixtures/v2-server.ts). Callers are the
 * official SDK clients (v1 in the 2025 era, v2 in the 2026-07-28 era) with bearer tokens of
 * their own. Shows: the namespaced catalogue and routing, sampling, elicitation, progress,
 * cancellation and tasks through the gateway, per-caller visibility from the file, no token
 * passthrough, and failure isolation (an upstream killed mid-call; one frozen, so it hangs).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as V1Server } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { transportFactory } from '../../src/client/node/index.js';
import { createGateway, type Gateway } from '../../src/compose/gateway.js';
import { gatewayOptions, parseGatewayConfig } from '../../src/compose/gateway-config.js';
import { type NodeServerHandle, serveNode } from '../../src/http/node.js';
import type { HttpAuthorizer } from '../../src/http/server/types.js';
import type { StdioClientTransport } from '../../src/stdio/index.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { waitFor } from '../helpers/wait.js';
import { createV2Endpoint, type FetchServer, serveFetch, type V2Endpoint } from './v2/fixtures/v2-server.js';

const pkg = (name: string) => join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');
const FASTMCP = join(REPO_ROOT, 'build', 'test', 'interop', 'fixtures', 'fastmcp-server.js');
const T = { timeout: 30_000 };
const UPSTREAM_SECRET = 'upstream-secret-of-the-gateway';

function text(result: unknown): string {
  const content = (result as { content?: Array<{ text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

/** Callers by token: alice holds the `admin` scope, bob none. */
const TOKENS: Record<string, { subject: string; scopes: string[] }> = {
  'alice-token-0123456789': { subject: 'alice', scopes: ['admin'] },
  'bob-token-0123456789ab': { subject: 'bob', scopes: [] },
};

const authorize: HttpAuthorizer = {
  async authenticate(req) {
    const match = /^Bearer (\S+)$/.exec(req.headers('authorization') ?? '');
    const who = match === null ? undefined : TOKENS[match[1]!];
    if (who === undefined) return { reply: { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: 'unauthorized' } };
    return { authInfo: { subject: who.subject, clientId: who.subject, scopes: who.scopes } };
  },
  sessionOwner: (info) => (info as { subject: string }).subject,
};

/** An official SDK v1 server over stateless Streamable HTTP that records each request's Authorization header. */
async function v1HttpUpstream(seen: Array<string | undefined>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    const mcp = new V1Server({ name: 'sdk-v1-http', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Echoes', inputSchema: { message: z.string() } }, async ({ message }) => ({
      content: [{ type: 'text', text: `v1: ${message}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('gateway over real third-party upstreams (one mcpServers file)', { timeout: SUITE_TIMEOUT_MS * 2 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-gateway-'));
  const authSeen: Array<string | undefined> = [];
  const pids = new Map<string, number | undefined>();
  const errors: string[] = [];
  let v1up: { url: string; server: Server };
  let v2: V2Endpoint;
  let v2http: FetchServer;
  let gateway: Gateway;
  let http: NodeServerHandle;

  before(async () => {
    v1up = await v1HttpUpstream(authSeen);
    v2 = createV2Endpoint();
    v2http = await serveFetch((request) => v2.fetch(request));
    writeFileSync(join(dir, 'note.txt'), 'hello from the filesystem server');
    const node = JSON.stringify(process.execPath);
    const file = `{
      // the servers, as a client's config holds them
      "mcpServers": {
        "everything": { "command": ${node}, "args": [${JSON.stringify(pkg('server-everything'))}, "stdio"] },
        "fs": { "command": ${node}, "args": [${JSON.stringify(pkg('server-filesystem'))}, ${JSON.stringify(dir)}] },
        "memory": { "command": ${node}, "args": [${JSON.stringify(pkg('server-memory'))}], "env": { "MEMORY_FILE_PATH": ${JSON.stringify(join(dir, 'memory.jsonl'))} } },
        "fast": { "command": ${node}, "args": [${JSON.stringify(FASTMCP)}], "env": { "FIXTURE_NAME": "configured-for-fast" } },
        "v1": { "type": "http", "url": ${JSON.stringify(v1up.url)}, "headers": { "Authorization": "Bearer ${UPSTREAM_SECRET}" } },
        "v2": { "type": "http", "url": ${JSON.stringify(v2http.url)} },
      },
      "gateway": {
        "restart": { "initialDelayMs": 100, "maxDelayMs": 1000 },
        "healthCheck": { "intervalMs": 300, "timeoutMs": 1500 },
        "visibility": {
          // dangerous tools only for admins
          "default": { "deny": ["memory_delete_*", "fs_write_file", "fs_edit_file", "fs_move_file"] },
          "scopes": { "admin": {} },
        },
      },
    }`;
    const config = parseGatewayConfig(file, { source: 'servers.jsonc' });
    // each stdio upstream's process id, once started (to kill or freeze it)
    const recordPid = (name: string, transport: StdioClientTransport): void => {
      const start = transport.start.bind(transport);
      transport.start = async (receiver) => {
        await start(receiver);
        pids.set(name, transport.pid);
      };
    };
    gateway = createGateway(
      gatewayOptions(config, (name, spec) => transportFactory(spec, { stderr: 'ignore', onStdio: recordPid })(name), {
        http: { authorize },
        onError: (error) => void errors.push(error.message),
      }),
    );
    http = await serveNode(gateway.handler, { port: 0, host: '127.0.0.1' });
    await gateway.whenReady(60_000);
  });

  after(async () => {
    await http?.close();
    await gateway?.close();
    await v2http?.close();
    await v2?.close();
    await new Promise((resolve) => v1up?.server.close(resolve));
    v1up?.server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A v1 client (2025 era) of `token` that answers sampling and form elicitation. */
  async function v1(token = 'alice-token-0123456789'): Promise<V1Client> {
    const client = new V1Client({ name: 'v1-caller', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      model: 'caller-model',
      role: 'assistant',
      content: { type: 'text', text: `sampled: ${JSON.stringify(request.params.messages[0]?.content)}` },
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada Lovelace', check: true } }));
    await client.connect(new V1Http(new URL(http.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }

  async function toolNames(client: V1Client): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return names;
  }

  it('serves every upstream under its name and routes each call to it', T, async () => {
    const client = await v1();
    try {
      const names = await toolNames(client);
      for (const name of ['everything_echo', 'fs_read_text_file', 'memory_create_entities', 'fast_add', 'v1_echo', 'v2_add'])
        assert.ok(names.includes(name), `${name} in ${names.join(',')}; ${JSON.stringify(gateway.status())}; ${errors.join('\n')}`);
      assert.equal(text(await client.callTool({ name: 'everything_echo', arguments: { message: 'hi' } })), 'Echo: hi');
      assert.equal(text(await client.callTool({ name: 'fs_read_text_file', arguments: { path: join(dir, 'note.txt') } })), 'hello from the filesystem server');
      await client.callTool({ name: 'memory_create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['programmer'] }] } });
      assert.match(text(await client.callTool({ name: 'memory_read_graph', arguments: {} })), /Ada/);
      assert.equal(text(await client.callTool({ name: 'fast_add', arguments: { a: 2, b: 3 } })), '5');
      assert.equal(text(await client.callTool({ name: 'v1_echo', arguments: { message: 'there' } })), 'v1: there');
      assert.equal(text(await client.callTool({ name: 'v2_add', arguments: { a: 20, b: 22 } })), '42');
      // resources and prompts are namespaced too
      const resources = await client.listResources();
      assert.ok(
        resources.resources.some((r) => r.uri.startsWith('mcpkit+mount://everything/')),
        JSON.stringify(resources.resources.slice(0, 3)),
      );
      const read = await client.readResource({ uri: resources.resources.find((r) => r.uri.startsWith('mcpkit+mount://everything/'))!.uri });
      assert.ok(read.contents.length > 0);
      const prompt = await client.getPrompt({ name: 'everything_simple-prompt' });
      assert.ok(prompt.messages.length > 0);
    } finally {
      await client.close();
    }
  });

  it("sampling and elicitation of an upstream are answered by the gateway's caller", T, async () => {
    const client = await v1();
    try {
      const sampled = await client.callTool({ name: 'everything_trigger-sampling-request', arguments: { prompt: 'hello upstream', maxTokens: 10 } });
      assert.match(text(sampled), /caller-model/);
      assert.match(text(sampled), /hello upstream/);
      const elicited = await client.callTool({ name: 'everything_trigger-elicitation-request', arguments: {} });
      assert.match(text(elicited), /Ada Lovelace/);
    } finally {
      await client.close();
    }
  });

  it('progress flows down (server-everything, fastmcp) and a cancel ends the upstream call', T, async () => {
    const client = await v1();
    try {
      const progress: number[] = [];
      const done = await client.callTool({ name: 'everything_trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
      });
      assert.match(text(done), /completed/i);
      assert.deepEqual(progress, [1, 2, 3]);
      const counted: number[] = [];
      const fast = await client.callTool({ name: 'fast_count', arguments: { steps: 4 } }, undefined, { onprogress: (p) => void counted.push(p.progress) });
      assert.equal(text(fast), 'counted to 4');
      assert.deepEqual(counted, [1, 2, 3, 4]);
      const controller = new AbortController();
      const started = Date.now();
      const call = client.callTool({ name: 'everything_trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort(new Error('caller gave up')),
      });
      await assert.rejects(call, /caller gave up/);
      assert.ok(Date.now() - started < 10_000);
      // the gateway still serves the caller
      assert.equal(text(await client.callTool({ name: 'everything_echo', arguments: { message: 'after cancel' } })), 'Echo: after cancel');
    } finally {
      await client.close();
    }
  });

  it('a tool that must run as a task upstream (taskSupport required) is run through the task bridge', { timeout: 40_000 }, async () => {
    const client = await v1();
    try {
      const result = await client.callTool({ name: 'everything_simulate-research-query', arguments: { topic: 'gateways' } }, undefined, { timeout: 30_000 });
      assert.match(text(result), /gateways/);
    } finally {
      await client.close();
    }
  });

  it('a 2026-07-28 caller (SDK v2) is served through the gateway too', T, async () => {
    const client = new V2Client({ name: 'v2-caller', version: '1.0.0' });
    await client.connect(new V2Http(new URL(http.url), { requestInit: { headers: { authorization: 'Bearer alice-token-0123456789' } } }));
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'memory_read_graph'));
      assert.equal(text(await client.callTool({ name: 'fast_add', arguments: { a: 1, b: 2 } })), '3');
      assert.equal(text(await client.callTool({ name: 'everything_echo', arguments: { message: 'era' } })), 'Echo: era');
    } finally {
      await client.close();
    }
  });

  it('visibility from the file: dangerous tools are absent for a caller without the admin scope and unknown when called', T, async () => {
    const bob = await v1('bob-token-0123456789ab');
    const alice = await v1();
    try {
      const bobs = await toolNames(bob);
      const alices = await toolNames(alice);
      for (const hidden of ['memory_delete_entities', 'memory_delete_relations', 'fs_write_file', 'fs_edit_file', 'fs_move_file']) {
        assert.ok(!bobs.includes(hidden), `${hidden} hidden from bob`);
        assert.ok(alices.includes(hidden), `${hidden} shown to alice`);
      }
      assert.ok(bobs.includes('memory_read_graph') && bobs.includes('fs_read_text_file'));
      const refused = await bob.callTool({ name: 'fs_write_file', arguments: { path: join(dir, 'x.txt'), content: 'x' } }).catch((e: unknown) => e);
      assert.equal((refused as { code?: number }).code, -32602, String(refused));
      assert.match(String(refused), /Unknown tool/);
    } finally {
      await bob.close();
      await alice.close();
    }
  });

  it("no token passthrough: upstreams get their own configured credentials and environment, never the caller's", T, async () => {
    const client = await v1();
    try {
      const before = authSeen.length;
      await client.callTool({ name: 'v1_echo', arguments: { message: 'who' } });
      const seen = authSeen.slice(before);
      assert.ok(seen.length > 0);
      assert.ok(
        seen.every((a) => a === `Bearer ${UPSTREAM_SECRET}`),
        JSON.stringify(seen),
      );
      assert.ok(!authSeen.some((a) => a?.includes('alice-token') || a?.includes('bob-token')));
      assert.equal(text(await client.callTool({ name: 'fast_whoami', arguments: {} })), 'configured-for-fast');
      const env = text(await client.callTool({ name: 'everything_get-env', arguments: {} }));
      assert.ok(!env.includes('alice-token'), 'the caller token is not in the environment of an upstream');
    } finally {
      await client.close();
    }
  });

  it('an upstream killed mid-call: the caller gets a clear error naming it at once, others keep serving, its tools leave and come back', {
    timeout: 60_000,
  }, async () => {
    const client = await v1();
    const changes: number[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes.push(Date.now()));
    try {
      const pid = pids.get('everything');
      assert.ok(pid !== undefined);
      let killedAt = 0;
      const call = client
        .callTool({ name: 'everything_trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
          timeout: 20_000,
          onprogress: () => {
            if (killedAt === 0) {
              killedAt = Date.now();
              process.kill(pid, 'SIGKILL');
            }
          },
        })
        .catch((e: unknown) => e);
      const failure = await call;
      assert.ok(failure instanceof Error, String(failure));
      assert.equal((failure as { code?: number }).code, -32603);
      assert.match(failure.message, /"everything"/);
      assert.ok(Date.now() - killedAt < 5_000, `the error came ${Date.now() - killedAt} ms after the kill`);
      // the others serve meanwhile
      assert.equal(text(await client.callTool({ name: 'fast_add', arguments: { a: 1, b: 1 } })), '2');
      assert.match(text(await client.callTool({ name: 'memory_read_graph', arguments: {} })), /Ada/);
      // its tools come back once it is restarted, announced with list_changed
      await waitFor(
        () => pids.get('everything') !== pid && gateway.status().find((s) => s.name === 'everything')?.state === 'up',
        'everything restarted',
        30_000,
      );
      await waitFor(() => changes.length >= 2, 'two tools/list_changed (down, then up)', 10_000);
      assert.ok((await toolNames(client)).includes('everything_echo'));
      assert.equal(text(await client.callTool({ name: 'everything_echo', arguments: { message: 'back' } })), 'Echo: back');
    } finally {
      await client.close();
    }
  });

  it('an upstream that hangs (stopped process) is detected by the health check, restarted, and served again; readiness says so meanwhile', {
    timeout: 60_000,
  }, async () => {
    const client = await v1();
    const pid = pids.get('memory');
    assert.ok(pid !== undefined);
    const readyz = http.url.replace(/\/mcp$/, '/readyz');
    try {
      process.kill(pid, 'SIGSTOP');
      await waitFor(() => gateway.status().find((s) => s.name === 'memory')?.state !== 'up', 'memory marked down', 20_000);
      const down = await fetch(readyz);
      const body = (await down.json()) as { upstreams: Array<{ name: string; state: string }> };
      if (gateway.status().find((s) => s.name === 'memory')?.state !== 'up') {
        assert.equal(down.status, 503);
        assert.notEqual(body.upstreams.find((u) => u.name === 'memory')?.state, 'up');
        assert.equal(body.upstreams.find((u) => u.name === 'everything')?.state, 'up');
      }
      // the others serve meanwhile
      assert.equal(text(await client.callTool({ name: 'everything_echo', arguments: { message: 'still' } })), 'Echo: still');
      await waitFor(() => pids.get('memory') !== pid && gateway.ready, 'memory restarted and the gateway ready again', 30_000);
      assert.equal((await fetch(readyz)).status, 200);
      assert.equal((await fetch(http.url.replace(/\/mcp$/, '/healthz'))).status, 200);
      assert.match(text(await client.callTool({ name: 'memory_read_graph', arguments: {} })), /Ada/);
      assert.ok(
        errors.some((e) => /memory.*did not answer a ping/.test(e)),
        errors.join('\n'),
      );
    } finally {
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await client.close();
    }
  });
});
