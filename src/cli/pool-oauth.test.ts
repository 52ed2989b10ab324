/**
 * Per-server OAuth in the pool, on the real demo: two `mcpkit demo --http --auth-issuer ISSUER`
 * processes protected by bearer tokens from one real authorization server (oidc-provider),
 * each its own resource (audience), signed in to with `mcpkit login URL` (two token sets in
 * the CLI's token file, one per server), plus the demo over stdio, in one `mcpServers` file.
 * `mcpkit list --config FILE` lists all three through the pool, and each server's calls
 * carry that server's own token (its `whoami` reports its own audience, never the other's).
 * The demo refuses a request without a token (401 naming its resource metadata).
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type OidcServer, startOidcServer } from '../../test/helpers/auth/oidc-server.js';
import { BIN, type HttpChild, runCli, startHttpChild } from '../../test/helpers/cli/cli-run.js';

let oidc: OidcServer;
const demos: HttpChild[] = [];
let dir: string;

const env = () => ({ MCPKIT_CONFIG_DIR: join(dir, 'config'), MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP: '1' });

/** `mcpkit demo --http --port 0 --auth-issuer ISSUER`, registered at the authorization server as a resource. */
async function protectedDemo(): Promise<HttpChild> {
  const demo = await startHttpChild([BIN, 'demo', '--http', '--port', '0', '--drain-ms', '0', '--auth-issuer', oidc.issuer, '--auth-scope', 'mcp:read'], env());
  await oidc.addResource(demo.url, { scopes: ['mcp:read', 'mcp:write'], format: 'jwt' });
  return demo;
}

before(async () => {
  oidc = await startOidcServer({ accessTokenTtlSeconds: 300 });
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-pool-oauth-'));
  demos.push(await protectedDemo(), await protectedDemo());
});

after(async () => {
  for (const d of demos) await d.stop();
  await oidc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `mcpkit login URL` without a terminal, following the printed URL as a browser would. */
function login(url: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'login', url], { env: { ...process.env, ...env() }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let followed = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const m = /^AUTHORIZE (\S+)$/m.exec(stderr);
      if (m && !followed) {
        followed = true;
        oidc
          .authorizeHeadless(m[1]!)
          .then((redirect) => fetch(redirect))
          .then((r) => r.text())
          .catch(reject);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('the demo with --auth-issuer refuses a request without a token and names its resource metadata', async () => {
  const res = await fetch(demos[0]!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/);
  await res.body?.cancel();
  const metadata = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', demos[0]!.url))).json()) as Record<string, unknown>;
  assert.deepEqual([metadata.resource, metadata.authorization_servers], [demos[0]!.url, [oidc.issuer]]);
});

test('two OAuth demos and a stdio one in one pool: listed together, each called with its own token', { timeout: 120_000 }, async () => {
  for (const d of demos) {
    const r = await login(d.url);
    assert.equal(r.code, 0, r.stderr);
  }
  // two token sets in the CLI's store, one per server (its resource), never shared
  const stored = JSON.parse(await readFile(join(dir, 'config', 'auth.json'), 'utf8')) as { tokens: Record<string, { resource: string; accessToken: string }> };
  const sets = Object.values(stored.tokens);
  assert.deepEqual(sets.map((t) => t.resource).sort(), demos.map((d) => d.url).sort());
  assert.notEqual(sets[0]!.accessToken, sets[1]!.accessToken);

  const file = join(dir, 'mcp.json');
  await writeFile(
    file,
    JSON.stringify({
      mcpServers: {
        demoA: { type: 'http', url: demos[0]!.url },
        demoB: { url: demos[1]!.url },
        demo: { command: process.execPath, args: [BIN, 'demo'] },
      },
    }),
  );
  const list = await runCli(['list', 'tools', '--config', file, '--json', '--quiet'], { env: env(), timeoutMs: 60_000 });
  assert.equal(list.code, 0, list.stderr);
  const names = new Set((JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name));
  for (const name of ['demoA.whoami', 'demoA.echo', 'demoB.whoami', 'demoB.echo', 'demo.echo']) assert.ok(names.has(name), `${name} in ${[...names].join()}`);
  assert.ok(!names.has('demo.whoami'), 'the stdio demo has no OAuth and no whoami');

  for (const [i, name] of ['demoA', 'demoB'].entries()) {
    const call = await runCli(['call', '--config', file, `${name}.whoami`, '--json'], { env: env(), timeoutMs: 60_000 });
    assert.equal(call.code, 0, call.stderr);
    const audience = [...call.stdout.matchAll(/http:\/\/127\.0\.0\.1:\d+\/mcp/g)].map((m) => m[0]);
    assert.ok(audience.includes(demos[i]!.url), `${name} got a token for ${demos[i]!.url}: ${call.stdout}`);
    assert.ok(!audience.includes(demos[1 - i]!.url), `${name} never sees the other server's token`);
  }
  const echo = await runCli(['call', '--config', file, 'demoB.echo', 'message=hi', '--json'], { env: env(), timeoutMs: 60_000 });
  assert.equal(echo.code, 0, echo.stderr);
  assert.match(echo.stdout, /hi/);
});
