/**
 * `mcpkit gateway --config FILE` as real processes: usage errors, a file that names a server
 * that cannot start (health 200, readiness 503 listing the states; `optional` makes it 200),
 * bearer auth in front (401 without the token) with the legacy SSE endpoint on request, and
 * two gateways sharing one real redis-server (`--redis`) behind a round-robin balancer: one
 * session of the official v1 client continues on both instances.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SUITE_TIMEOUT_MS } from '../../../test/helpers/bounds.js';
import { BIN, runCli } from '../../../test/helpers/cli/cli-run.js';
import { roundRobinProxy } from '../../../test/helpers/http/round-robin-proxy.js';
import { startRedis } from '../../../test/helpers/redis/redis-server.js';
import { REPO_ROOT } from '../../../test/helpers/repo.js';
import { parseGatewayArgs } from './gateway.js';

const EVERYTHING = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const T = { timeout: 60_000 };
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-gateway-cli-'));

interface GatewayProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
}

const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function startGateway(args: readonly string[], env: Record<string, string> = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [BIN, 'gateway', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  started.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => void (err += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no LISTENING line; stderr: ${err}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /LISTENING (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr: () => err });
      }
    });
    child.once('exit', () => reject(new Error(`mcpkit gateway exited before listening; stderr: ${err}`)));
  });
}

async function stop(gateway: GatewayProcess): Promise<void> {
  if (gateway.child.exitCode !== null || gateway.child.signalCode !== null) return;
  const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
  gateway.child.kill('SIGTERM');
  await exited;
}

function configFile(name: string, servers: Record<string, unknown>, gateway?: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ mcpServers: servers, ...(gateway === undefined ? {} : { gateway }) }));
  return path;
}

const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
const broken = { command: process.execPath, args: ['-e', 'process.exit(3)'] };

async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('mcpkit gateway', { timeout: SUITE_TIMEOUT_MS * 2 }, () => {
  it('refuses bad usage with exit 2 and a message saying what to do', T, async () => {
    assert.match(String(parseGatewayArgs([])), /--config FILE/);
    assert.match(String(parseGatewayArgs(['--config', 'x', '--host', '0.0.0.0'])), /--auth-token-env/);
    assert.match(String(parseGatewayArgs(['--config', 'x', '--redis', 'localhost'])), /redis:\/\//);
    const help = await runCli(['gateway', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: mcpkit gateway --config FILE/);
    const missing = await runCli(['gateway', '--config', join(dir, 'missing.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read the file \(ENOENT\)/);
    const typo = configFile('typo.json', { everything }, { visibility: { default: { denny: ['x'] } } });
    const bad = await runCli(['gateway', '--config', typo]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /gateway\.visibility\.default\.denny.*unknown key/);
    const prefix = configFile('prefix.json', { my_server: everything });
    const refused = await runCli(['gateway', '--config', prefix]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /my_server.*separator/);
  });

  it('health is 200 while it serves; readiness is 503 listing each upstream until every required one is up', T, async () => {
    const gateway = await startGateway(['--config', configFile('broken.json', { everything, broken }, { restart: { initialDelayMs: 100, maxDelayMs: 500 } })]);
    const base = gateway.url.replace(/\/mcp$/, '');
    try {
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      await until(async () => {
        const body = (await (await fetch(`${base}/readyz`)).json()) as { upstreams: Array<{ name: string; state: string }> };
        return body.upstreams.find((u) => u.name === 'everything')?.state === 'up';
      }, 'everything up');
      const ready = await fetch(`${base}/readyz`);
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as { status: string; upstreams: Array<{ name: string; state: string; required: boolean }> };
      assert.equal(body.status, 'not ready');
      assert.deepEqual(
        body.upstreams.map((u) => [u.name, u.required]),
        [
          ['everything', true],
          ['broken', true],
        ],
      );
      assert.notEqual(body.upstreams[1]!.state, 'up');
      assert.match(gateway.stderr(), /upstream "broken": cannot connect/);
      // the working upstream serves meanwhile
      const client = new V1Client({ name: 'c', version: '1' });
      await client.connect(new V1Http(new URL(gateway.url)));
      const echoed = await client.callTool({ name: 'everything_echo', arguments: { message: 'one door' } });
      assert.deepEqual(echoed.content, [{ type: 'text', text: 'Echo: one door' }]);
      // a tool of the upstream that is down: an error naming it, not a silent "unknown tool"
      const down = await client.callTool({ name: 'broken_anything', arguments: {} }).catch((e: unknown) => e);
      assert.equal((down as { code?: number }).code, -32603, String(down));
      assert.match(String(down), /Upstream "broken" is (down|connecting)/);
      await client.close();
    } finally {
      await stop(gateway);
    }
    const optional = await startGateway(['--config', configFile('optional.json', { everything, broken }, { optional: ['broken'] })]);
    try {
      const readyz = optional.url.replace(/\/mcp$/, '/readyz');
      await until(async () => (await fetch(readyz)).status === 200, 'ready with the broken server optional');
    } finally {
      await stop(optional);
    }
  });

  it('auth in front: 401 without the token; with it, Streamable HTTP and (on request) legacy SSE are served', T, async () => {
    const token = 'gateway-caller-token-0123';
    const gateway = await startGateway(['--config', configFile('auth.json', { everything }), '--auth-token-env', 'GW_TOKEN', '--legacy-sse'], {
      GW_TOKEN: token,
    });
    try {
      const refused = await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.equal(refused.status, 401);
      const headers = { authorization: `Bearer ${token}` };
      await until(async () => (await fetch(gateway.url.replace(/\/mcp$/, '/readyz'))).status === 200, 'ready');
      const client = new V1Client({ name: 'c', version: '1' });
      await client.connect(new V1Http(new URL(gateway.url), { requestInit: { headers } }));
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'everything_echo'));
      await client.close();
      const legacy = new V1Client({ name: 'legacy', version: '1' });
      await legacy.connect(
        new SSEClientTransport(new URL(gateway.url.replace(/\/mcp$/, '/sse')), {
          requestInit: { headers },
          eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
        }),
      );
      const echoed = await legacy.callTool({ name: 'everything_echo', arguments: { message: 'legacy' } });
      assert.deepEqual(echoed.content, [{ type: 'text', text: 'Echo: legacy' }]);
      await legacy.close();
    } finally {
      await stop(gateway);
    }
  });

  it('--redis: a session started on one gateway continues on another behind a round-robin balancer', { timeout: 90_000 }, async () => {
    const redis = await startRedis();
    const file = configFile('redis.json', { everything });
    const gateways: GatewayProcess[] = [];
    try {
      gateways.push(await startGateway(['--config', file, '--redis', redis.url]), await startGateway(['--config', file, '--redis', redis.url]));
      for (const g of gateways) await until(async () => (await fetch(g.url.replace(/\/mcp$/, '/readyz'))).status === 200, 'ready');
      const balancer = await roundRobinProxy(gateways.map((g) => Number(new URL(g.url).port)));
      try {
        const client = new V1Client({ name: 'roaming', version: '1' });
        await client.connect(new V1Http(new URL(balancer.url)));
        for (let i = 0; i < 6; i++) {
          const echoed = await client.callTool({ name: 'everything_echo', arguments: { message: `call ${i}` } });
          assert.deepEqual(echoed.content, [{ type: 'text', text: `Echo: call ${i}` }]);
        }
        await client.close();
        const per = [0, 1].map((i) => balancer.exchanges.filter((e) => e.upstream === i && e.method === 'POST').length);
        assert.ok(
          per.every((n) => n >= 3),
          `POSTs per gateway: ${per.join(', ')}`,
        );
      } finally {
        await balancer.close();
      }
    } finally {
      for (const g of gateways) await stop(g);
      await redis.close();
    }
  });
});
