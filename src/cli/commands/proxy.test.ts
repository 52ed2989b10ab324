/**
 * `mcpkit proxy -- node server-everything` as a real process, called over HTTP by the
 * official v1 client: serving, Origin and auth checks, the upstream killed (callers get a
 * clear error) and started again (list_changed, then served again), graceful shutdown.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { SUITE_TIMEOUT_MS } from '../../../test/helpers/bounds.js';
import { BIN, runCli } from '../../../test/helpers/cli/cli-run.js';
import { REPO_ROOT } from '../../../test/helpers/repo.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { parseProxyArgs } from './proxy.js';

const EVERYTHING = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const T = { timeout: 60_000 };

/** A running `mcpkit proxy`, its stdout URL and its stderr so far. */
interface ProxyProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startProxy(args: readonly string[], env: Record<string, string> = {}): Promise<ProxyProcess> {
  const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', ...args, '--', process.execPath, EVERYTHING], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  started.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => void (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no LISTENING line; stderr: ${err}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /LISTENING (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr: () => err, exited });
      }
    });
    void exited.then(() => reject(new Error(`mcpkit proxy exited before listening; stderr: ${err}`)));
  });
}

function pids(stderr: string): number[] {
  return [...stderr.matchAll(/upstream started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('mcpkit proxy -- node server-everything', { timeout: SUITE_TIMEOUT_MS }, () => {
  it('serves over HTTP; the upstream killed: a clear error, then started again with list_changed; SIGTERM shuts down', T, async () => {
    const proxy = await startProxy([]);
    const client = new V1Client({ name: 'v1-caller', version: '1.0.0' });
    await client.connect(new V1Http(new URL(proxy.url)));
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: hi' }]);
    // Origin validation is on (a browser page elsewhere cannot call it)
    const foreign = await fetch(proxy.url, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(foreign.status, 403);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const [first] = pids(proxy.stderr());
    assert.ok(first !== undefined, proxy.stderr());
    // killed mid-call: the caller of the running call gets a clear error
    let progressed = false;
    const running = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
      onprogress: () => void (progressed = true),
    });
    const failed = running.then(
      (r) => `answered: ${JSON.stringify(r)}`,
      (e: Error) => e.message,
    );
    await waitFor(() => progressed, 'the long call to be running upstream');
    process.kill(first, 'SIGKILL');
    assert.match(await failed, /upstream (server is unavailable|request tools\/call failed).*(killed|closed|SIGKILL|reconnect)/i);
    await waitFor(() => /upstream is down/.test(proxy.stderr()), 'the proxy to notice the upstream died');
    const refused = await client.callTool({ name: 'echo', arguments: { message: 'while down' } }).then(
      (r) => JSON.stringify(r),
      (e: Error) => e.message,
    );
    // either refused while down, or (if the restart already finished) served by the new upstream
    if (!/Echo: while down/.test(refused)) assert.match(refused, /upstream server is unavailable|upstream request tools\/call failed/);
    await waitFor(() => pids(proxy.stderr()).length >= 2 && /upstream is back/.test(proxy.stderr()), 'the upstream to be started again');
    const second = pids(proxy.stderr())[1]!;
    assert.notEqual(second, first);
    await waitFor(() => changed > 0, 'tools/list_changed after the restart');
    const again = await client.callTool({ name: 'echo', arguments: { message: 'back' } });
    assert.deepEqual(again.content, [{ type: 'text', text: 'Echo: back' }]);
    await client.close();
    proxy.child.kill('SIGTERM');
    assert.equal(await proxy.exited, 0);
    await waitFor(() => !alive(second), 'the upstream to exit with the proxy');
  });

  it('--auth-token-env: callers without the token get 401; with it they are served', T, async () => {
    const token = 'a-long-enough-caller-token';
    const proxy = await startProxy(['--auth-token-env', 'PROXY_TEST_TOKEN'], { PROXY_TEST_TOKEN: token });
    try {
      const anonymous = await fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      assert.equal(anonymous.status, 401);
      const wrong = await fetch(proxy.url, {
        method: 'POST',
        headers: { authorization: 'Bearer not-the-token-at-all-xx', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      assert.equal(wrong.status, 401);
      const client = new V1Client({ name: 'v1-caller', version: '1.0.0' });
      await client.connect(new V1Http(new URL(proxy.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'echo'));
      await client.close();
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
    }
  });

  it("--legacy-sse serves the HTTP+SSE endpoints; --stderr FILE receives the server's stderr", T, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-proxy-'));
    const file = join(dir, 'upstream.log');
    const proxy = await startProxy(['--legacy-sse', '--stderr', file]);
    try {
      const client = new V1Client({ name: 'v1-sse-caller', version: '1.0.0' });
      await client.connect(new SSEClientTransport(new URL('/sse', proxy.url)));
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'over sse' } });
      assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: over sse' }]);
      await client.close();
      await waitFor(() => existsSync(file) && /Starting default \(STDIO\) server/.test(readFileSync(file, 'utf8')), "the server's stderr in the file");
      assert.doesNotMatch(proxy.stderr(), /Starting default \(STDIO\) server/);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('usage errors: no command, a non-loopback host without auth, a bad port; --help', T, async () => {
    assert.match(String(parseProxyArgs([])), /after --/);
    assert.match(String(parseProxyArgs(['--host', '0.0.0.0', '--', 'x'])), /--auth-token-env/);
    assert.match(String(parseProxyArgs(['--port', '70000', '--', 'x'])), /--port/);
    assert.match(String(parseProxyArgs(['--auth-issuer', 'https://as.example', '--', 'x'])), /go together/);
    const parsed = parseProxyArgs(['--port', '0', '--legacy-sse', '--', 'node', 'server.js', '--flag']);
    assert.ok(typeof parsed === 'object');
    assert.deepEqual([parsed.command, parsed.args, parsed.legacySse, parsed.port], ['node', ['server.js', '--flag'], true, 0]);
    const help = await runCli(['proxy', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: mcpkit proxy/);
    const bad = await runCli(['proxy', '--host', '0.0.0.0', '--', 'node']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--auth-token-env/);
    const missing = await runCli(['proxy', '--port', '0', '--no-restart', '--', join(REPO_ROOT, 'no-such-server-binary')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot start the server/);
  });
});
