/**
 * `mcpkit demo --request-state-secret S` (and MCPKIT_REQUEST_STATE_SECRET): two demo
 * processes started with the same secret accept each other's 2026-07-28 multi round-trip
 * `requestState`, so the retry may reach either; one with another secret refuses it with
 * -32602; a secret shorter than 16 bytes is refused at startup with exit code 2 and a message
 * that names the option but never the value. Real processes over real HTTP.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { BIN, type HttpChild, runCli, startHttpChild } from '../../../test/helpers/cli/cli-run.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'demo-secret-test', version: '1' },
};
const TOOL = 'test_input_required_result_elicitation';
const SECRET = 'a-long-shared-secret-for-tests-0123456789';

const children: HttpChild[] = [];
after(async () => {
  for (const child of children) await child.stop();
});

async function demo(args: string[], env: Record<string, string> = {}): Promise<string> {
  const child = await startHttpChild([BIN, 'demo', '--http', '--port', '0', ...args], env);
  children.push(child);
  return child.url;
}

/** POSTs one 2026-07-28 tools/call of the elicitation tool; the JSON-RPC response (JSON or the first SSE data line). */
async function call(
  url: string,
  extra: Record<string, unknown> = {},
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': TOOL,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL, arguments: {}, _meta: META, ...extra } }),
  });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)) as { id?: unknown })
      .find((m) => m.id === 1);
    assert.ok(data !== undefined, `no response on the stream: ${text}`);
    return data as never;
  }
  return JSON.parse(text);
}

it('a requestState sealed by one demo is accepted by another with the same secret (flag or environment) and refused by one with another secret', async () => {
  const [a, b, other] = await Promise.all([
    demo(['--request-state-secret', SECRET]),
    demo([], { MCPKIT_REQUEST_STATE_SECRET: SECRET }),
    demo(['--request-state-secret', 'some-other-secret-0123456789']),
  ]);
  const first = await call(a);
  assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
  const requestState = first.result?.requestState;
  assert.equal(typeof requestState, 'string');
  const retry = { requestState, inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } } };
  const done = await call(b, retry);
  assert.deepEqual(done.result?.content, [{ type: 'text', text: 'Hello, Ada!' }], JSON.stringify(done));
  const refused = await call(other, retry);
  assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
  assert.match(refused.error?.message ?? '', /failed verification/);
});

it('refuses a secret shorter than 16 bytes with exit code 2, naming the option but never printing the value', async () => {
  const flag = await runCli(['demo', '--request-state-secret', 'tiny-Zq9']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /--request-state-secret must be at least 16 bytes/);
  assert.ok(!flag.stderr.includes('tiny-Zq9') && !flag.stdout.includes('tiny-Zq9'), 'the secret is never printed');
  const env = await runCli(['demo'], { env: { MCPKIT_REQUEST_STATE_SECRET: 'tiny-Zq9' } });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /MCPKIT_REQUEST_STATE_SECRET must be at least 16 bytes/);
  assert.ok(!env.stderr.includes('tiny-Zq9'));
  const missing = await runCli(['demo', '--request-state-secret']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--request-state-secret needs a value/);
});

it('refuses --auth-issuer without --http or a URL, --auth-scope without an issuer, and an issuer it cannot read (exit 2, 2, 2, 1)', async () => {
  const noHttp = await runCli(['demo', '--auth-issuer', 'https://auth.example.com']);
  assert.deepEqual([noHttp.code, /add --http/.test(noHttp.stderr)], [2, true], noHttp.stderr);
  const noUrl = await runCli(['demo', '--http', '--port', '0', '--auth-issuer']);
  assert.deepEqual([noUrl.code, /--auth-issuer needs the URL/.test(noUrl.stderr)], [2, true], noUrl.stderr);
  const scopeAlone = await runCli(['demo', '--http', '--port', '0', '--auth-scope', 'mcp:read']);
  assert.deepEqual([scopeAlone.code, /--auth-scope goes with --auth-issuer/.test(scopeAlone.stderr)], [2, true], scopeAlone.stderr);
  // plain http without the opt-in is refused before anything listens
  const insecure = await runCli(['demo', '--http', '--port', '0', '--auth-issuer', 'http://127.0.0.1:9/']);
  assert.equal(insecure.code, 1, insecure.stderr);
  assert.match(insecure.stderr, /--auth-issuer http:\/\/127\.0\.0\.1:9\/: .*https/i);
  assert.doesNotMatch(insecure.stdout, /LISTENING/);
});
