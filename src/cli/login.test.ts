/**
 * `mcpkit login` / `logout` against a real authorization server (oidc-provider, see
 * test/helpers/auth/oidc-server.ts) and an MCP server protected by bearer tokens: the
 * authorization code flow with PKCE through the CLI's loopback redirect (the test plays the
 * browser: it follows the printed URL with the fixture's headless login and delivers the
 * redirect with fetch), tokens kept in a 0600 file under the config directory, later
 * commands authorized with them, logout forgetting them. Without a login the server's 401
 * (RFC 6750 §3, spec: Authorization) is a connection/auth failure, exit 4. In a terminal,
 * the CLI asks before opening a browser.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type OidcServer, startOidcServer } from '../../test/helpers/auth/oidc-server.js';
import { type ProtectedServer, startProtectedServer } from '../../test/helpers/auth/protected.js';
import { BIN, hasTmux, runCli, shellQuote, TmuxSession } from '../../test/helpers/cli/cli-run.js';
import { clientMetadataDocument } from '../auth/client/metadata-document.js';
import { createJwtVerifier } from '../auth/server/jwt-verifier.js';

let oidc: OidcServer;
let mcp: ProtectedServer;
let dir: string;

before(async () => {
  oidc = await startOidcServer({ accessTokenTtlSeconds: 300 });
  mcp = await startProtectedServer({
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
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-login-'));
});

after(async () => {
  await mcp?.close();
  await oidc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The environment of a CLI run with its own config directory (plain http is fine only for these local servers). */
function env(configDir: string): Record<string, string> {
  return { MCPKIT_CONFIG_DIR: configDir, MCPKIT_DANGEROUSLY_ALLOW_INSECURE_HTTP: '1' };
}

/** Runs `mcpkit login URL` without a terminal, follows the printed URL like a browser would; resolves with the exit code and output. */
function login(
  configDir: string,
  extraArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'login', mcp.url, ...extraArgs], {
      env: { ...process.env, ...env(configDir), ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let followed = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
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
      resolve({ code, stdout, stderr });
    });
  });
}

test('without tokens the protected server refuses: exit 4 and a hint', { timeout: 60_000 }, async () => {
  const r = await runCli(['call', mcp.url, 'read_notes'], { env: env(join(dir, 'nobody')) });
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /401/);
  assert.match(r.stderr, /mcpkit login/);
});

test('login (authorization code + PKCE via the loopback redirect), an authorized call, logout', { timeout: 90_000 }, async () => {
  const config = join(dir, 'user');
  const r = await login(config);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^Open this URL in your browser to sign in:$/m, 'the URL is shown');
  assert.match(r.stdout, /^Signed in to .*; tokens saved in /m);
  const file = join(config, 'auth.json');
  assert.equal((await stat(file)).mode & 0o777, 0o600, 'only the user can read the token file');
  assert.equal((await stat(config)).mode & 0o777, 0o700);

  const call = await runCli(['call', mcp.url, 'read_notes'], { env: env(config) });
  assert.equal(call.code, 0, call.stderr);
  assert.equal(call.stdout, 'notes\n');

  const out = await runCli(['logout', mcp.url], { env: env(config) });
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /^Signed out of /);
  const after = await runCli(['call', mcp.url, 'read_notes'], { env: env(config) });
  assert.equal(after.code, 4, 'the tokens are gone');
});

test('logging in again (a new loopback port each time) works and replaces the tokens', { timeout: 90_000 }, async () => {
  const config = join(dir, 'again');
  const first = await login(config);
  assert.equal(first.code, 0, first.stderr);
  const second = await login(config);
  assert.equal(second.code, 0, second.stderr);
  const call = await runCli(['call', mcp.url, 'read_notes'], { env: env(config) });
  assert.equal(call.code, 0, call.stderr);
});

test('with MCPKIT_CLIENT_METADATA_URL, a client ID metadata document is the client id (SEP-991): nothing is registered', { timeout: 90_000 }, async () => {
  const port = await freePort();
  const cimd = 'https://client.example.com/mcpkit-cli/metadata.json';
  await oidc.setClientMetadataDocument(
    cimd,
    clientMetadataDocument({ clientId: cimd, clientName: 'mcpkit CLI', redirectUris: [`http://127.0.0.1:${port}/callback`], applicationType: 'native' }),
  );
  const config = join(dir, 'cimd');
  const before = (await oidc.stats()).cimdFetches;
  const r = await login(config, ['--port', String(port)], { MCPKIT_CLIENT_METADATA_URL: cimd });
  assert.equal(r.code, 0, r.stderr);
  assert.ok((await oidc.stats()).cimdFetches > before, 'the authorization server fetched the document');
  const stored = JSON.parse(await readFile(join(config, 'auth.json'), 'utf8')) as { clients: Record<string, unknown> };
  assert.deepEqual(stored.clients, {}, 'no dynamic registration');
  const call = await runCli(['call', mcp.url, 'read_notes'], { env: { ...env(config), MCPKIT_CLIENT_METADATA_URL: cimd } });
  assert.equal(call.code, 0, call.stderr);
});

/** A port that was free a moment ago (bound to 0, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

test('login refuses plain http unless the dangerous test switch is set', async () => {
  const r = await runCli(['login', mcp.url], { env: { MCPKIT_CONFIG_DIR: join(dir, 'x') } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /refusing OAuth over plain http/);
});

test('in a terminal, login asks before opening a browser; "no" only shows the URL', {
  skip: hasTmux() ? false : 'tmux is not installed',
  timeout: 90_000,
}, async () => {
  const config = join(dir, 'tty');
  const vars = Object.entries(env(config))
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(' ');
  const s = new TmuxSession(
    'mcpkit-login',
    `env ${vars} ${shellQuote(process.execPath)} ${shellQuote(BIN)} login ${shellQuote(mcp.url)}; echo EXIT=$?; sleep 60`,
  );
  try {
    const asked = await s.waitFor((p) => p.includes('Open it in your browser? [y/N] '), 'the question');
    assert.match(asked, /the server's authorization page is on 127\.0\.0\.1:\d+:/);
    s.send('n', true);
    s.send('Enter');
    const shown = await s.waitFor((p) => /Open this URL in your browser to sign in:\s+http\S+/.test(p), 'the URL');
    const url = /Open this URL in your browser to sign in:\s+(http\S+)/.exec(shown)![1]!;
    const redirect = await oidc.authorizeHeadless(url);
    await (await fetch(redirect)).text();
    const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the end of login');
    assert.match(done, /EXIT=0/);
    assert.match(done, /Signed in to /);
  } finally {
    s.kill();
  }
});
