import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ACCEPT_BOTH, initRequest, makeHandler } from '../../../test/helpers/http/server-harness.js';
import { serveNode } from '../node.js';
import { MAX_REFUSALS_REPORTED, RefusalReport, RequestRefusedError } from './refusal-report.js';

function initAt(host: string, origin?: string, target = `http://${host}/mcp`): Request {
  const headers: Record<string, string> = { accept: ACCEPT_BOTH, 'content-type': 'application/json', host };
  if (origin !== undefined) headers.origin = origin;
  return new Request(target, { method: 'POST', headers, body: JSON.stringify(initRequest()) });
}

test('a refused Host is reported once per distinct value through onError, naming the value and allowedHosts', async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ onError: (e) => errors.push(e) });
  for (let i = 0; i < 3; i++) assert.equal((await handler.fetch(initAt('mcp.example.com:8443'))).status, 403);
  assert.equal(errors.length, 1, 'three refusals of one Host, one report');
  const [first] = errors as [RequestRefusedError];
  assert.ok(first instanceof RequestRefusedError);
  assert.equal(first.code, 'host_not_allowed');
  assert.equal(first.value, 'mcp.example.com:8443');
  assert.match(first.message, /Host "mcp\.example\.com:8443"/);
  assert.match(first.message, /add "mcp\.example\.com" to the handler's allowedHosts \(or "mcp\.example\.com:8443" for that port only\)/);
  // the client is told which option admits it, without the server's configuration
  const refused = await handler.fetch(initAt('other.example.com'));
  assert.match(((await refused.json()) as { error: { message: string } }).error.message, /Host not allowed.*allowedHosts/);
  assert.equal(errors.length, 2, 'another Host, another report');
  assert.match(errors[1]!.message, /Host "other\.example\.com"/);
  // allowed hosts and malformed ones are not reported as foreign
  assert.equal((await handler.fetch(initAt('localhost:1'))).status, 200);
  assert.equal((await handler.fetch(initAt('bad host', undefined, 'http://localhost/mcp'))).status, 400);
  assert.equal(errors.length, 2);
  await handler.close();
});

test('a refused Origin is reported once per distinct value, naming allowedOrigins', async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ onError: (e) => errors.push(e) });
  for (let i = 0; i < 2; i++) assert.equal((await handler.fetch(initAt('localhost:3000', 'https://app.example.com'))).status, 403);
  assert.equal(errors.length, 1);
  const report = errors[0] as RequestRefusedError;
  assert.equal(report.code, 'origin_not_allowed');
  assert.equal(report.value, 'https://app.example.com');
  assert.match(report.message, /Origin "https:\/\/app\.example\.com".*add "https:\/\/app\.example\.com" to the handler's allowedOrigins/);
  await handler.close();
});

test('a flood of distinct refused values is reported within a bound, and a long value is cut', async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ onError: (e) => errors.push(e) });
  for (let i = 0; i < MAX_REFUSALS_REPORTED * 3; i++) {
    assert.equal((await handler.fetch(initAt(`h${i}.example.com`))).status, 403);
    assert.equal((await handler.fetch(initAt('localhost', `https://o${i}.example.com`))).status, 403);
  }
  const hosts = errors.filter((e) => (e as RequestRefusedError).code === 'host_not_allowed');
  const origins = errors.filter((e) => (e as RequestRefusedError).code === 'origin_not_allowed');
  assert.equal(hosts.length, MAX_REFUSALS_REPORTED + 1, 'one report per value up to the bound, then one note');
  assert.equal(origins.length, MAX_REFUSALS_REPORTED + 1);
  assert.match(hosts.at(-1)!.message, /further ones are refused without a report/);
  // a value is quoted as JSON and cut to 200 characters
  const quiet = makeHandler({ onError: (e) => errors.push(e) });
  const long = 'https://' + 'a'.repeat(1000) + '.example';
  assert.equal((await quiet.fetch(initAt('localhost', long))).status, 403);
  assert.ok(errors.at(-1)!.message.length < 800, 'a long value is cut');
  await handler.close();
  await quiet.close();
});

test('over a real socket, the default report is one stderr line per refused Host', () => {
  const serve = fileURLToPath(new URL('../node.js', import.meta.url));
  const handlerPath = fileURLToPath(new URL('./handler.js', import.meta.url));
  const serverPath = fileURLToPath(new URL('../../server/server.js', import.meta.url));
  const script = `
    import { request } from 'node:http';
    const { serveNode } = await import(${JSON.stringify(serve)});
    const { createStreamableHttpHandler } = await import(${JSON.stringify(handlerPath)});
    const { McpServer } = await import(${JSON.stringify(serverPath)});
    const handler = createStreamableHttpHandler({ server: new McpServer({ name: 't', version: '1' }) });
    const running = await serveNode(handler);
    const get = (host) => new Promise((resolve) => request({ port: running.port, host: '127.0.0.1', path: '/mcp', method: 'GET', headers: { host } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); }).end());
    const statuses = [await get('mcp.example.com'), await get('mcp.example.com'), await get('bad host.example')];
    await running.close();
    process.stdout.write(JSON.stringify(statuses));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), [403, 403, 400]);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /^mcpkit http: RequestRefusedError: Refused a request with Host "mcp\.example\.com" with 403: .*allowedHosts/);
});

test("serveNode: an absolute-form target naming a foreign host is reported as the target's host", async () => {
  const errors: Error[] = [];
  const handler = makeHandler({ onError: (e) => errors.push(e) });
  const running = await serveNode(handler);
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { port: running.port, host: '127.0.0.1', path: 'http://evil.example:9/mcp', method: 'GET', headers: { host: `127.0.0.1:${running.port}` } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 403);
    assert.equal(errors.length, 1);
    assert.equal((errors[0] as RequestRefusedError).value, 'evil.example:9');
    assert.match(errors[0]!.message, /target names the host "evil\.example:9"/);
  } finally {
    await running.close();
  }
});

test('attack round 2: a refused value with C1 controls (header byte 0x9B as U+009B, the 8-bit CSI), DEL, bidi or separators reaches the report escaped', () => {
  const reports: Error[] = [];
  const report = new RefusalReport((e) => reports.push(e));
  report.refused('host', 'evil.example\u009b31m\u007f\u0085');
  report.refused('origin', 'https://a.example\u202e\u2028x');
  assert.equal(reports.length, 2);
  for (const r of reports) assert.ok(!/[\u007f-\u009f\u202e\u2028]/.test(r.message), JSON.stringify(r.message));
  assert.match(reports[0]!.message, /Host "evil\.example\\u009b31m\\u007f\\u0085"/);
  assert.match(reports[1]!.message, /Origin "https:\/\/a\.example\\u202e\\u2028x"/);
});
