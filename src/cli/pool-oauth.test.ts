/**
 * Per-server OAuth in the pool: two MCP servers protected by bearer tokens from one real
 * authorization server (oidc-provider), each with its own audience, signed in to with
 * `mcpkit login URL` (tokens in the CLI's token file, keyed per server), plus the demo over
 * stdio, in one `mcpServers` file. `mcpkit list --config FILE` lists all three through the
 * pool, and each server's calls carry that server's own token (its audience), never the
 * other's.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type OidcServer, startOidcServer } from '../../test/helpers/auth/oidc-server.js';
import { type ProtectedServer, startProtectedServer } from '../../test/helpers/auth/protected.js';
import { BIN, runCli } from '../../test/helpers/cli/cli-run.js';
import { createJwtVerifier } from '../auth/server/jwt-verifier.js';

let oidc: OidcServer;
const servers: ProtectedServer[] = [];
let dir: string;

const protectedServer = () =>
  startProtectedServer({
    verifier: (resource) =>
      createJwtVerifier({
        issuer: oidc.issuer,
        audience: resource,
        jwksUri: oidc.metadata.jwks_uri,
        fetchGuard: { dangerouslyAllowHttpLoopbackForTesting: true },
      }),
    authorizationServers: [oidc.issuer],
    scopesSupported: ['mcp:read'],
    onResource: (resource) => oidc.addResource(resource, { scopes: ['mcp:read', 'mcp:write'], format: 'jwt' }),
  });

before(async () => {
  oidc = await startOidcServer({ accessTokenTtlSeconds: 300 });
  servers.push(await protectedServer(), await protectedServer());
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-pool-oauth-'));
});

after(async () => {
  for (const s of servers) await s.close();
  await oidc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const env = () => ({ MCPKIT_CONFIG_DIR: join(dir, 'config'), MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP: '1' });

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

test('two OAuth servers and a stdio one in one pool: listed together, each called with its own token', { timeout: 120_000 }, async () => {
  for (const s of servers) {
    const r = await login(s.url);
    assert.equal(r.code, 0, r.stderr);
  }
  const file = join(dir, 'mcp.json');
  await writeFile(
    file,
    JSON.stringify({
      mcpServers: {
        notesA: { type: 'http', url: servers[0]!.url },
        notesB: { url: servers[1]!.url },
        demo: { command: process.execPath, args: [BIN, 'demo'] },
      },
    }),
  );
  const list = await runCli(['list', 'tools', '--config', file, '--json', '--quiet'], { env: env(), timeoutMs: 60_000 });
  assert.equal(list.code, 0, list.stderr);
  const names = new Set((JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name));
  for (const name of ['notesA.whoami', 'notesB.whoami', 'demo.echo']) assert.ok(names.has(name), `${name} in ${[...names].join()}`);

  for (const [i, name] of ['notesA', 'notesB'].entries()) {
    const call = await runCli(['call', '--config', file, `${name}.whoami`, '--json'], { env: env(), timeoutMs: 60_000 });
    assert.equal(call.code, 0, call.stderr);
    const audience = [...call.stdout.matchAll(/http:\/\/127\.0\.0\.1:\d+\/mcp/g)].map((m) => m[0]);
    assert.ok(audience.includes(servers[i]!.url), `${name} got a token for ${servers[i]!.url}: ${call.stdout}`);
    assert.ok(!audience.includes(servers[1 - i]!.url), `${name} never sees the other server's token`);
  }
});
