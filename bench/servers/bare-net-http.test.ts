import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HttpDriver } from '../http-driver.js';
import type { ResponseMode } from './http-harness.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const TIMEOUT = 15000;

async function start(mode: ResponseMode): Promise<HttpDriver> {
  const spec = { name: `bare-net-${mode}`, command: process.execPath, args: [join(HERE, 'bare-net-http.js'), `--mode=${mode}`] };
  return (await HttpDriver.start(spec, { timeoutMs: TIMEOUT })).driver;
}

/** Sends `text` on a fresh connection; resolves with everything read until the server closes or `quietMs` pass without data. */
function exchange(url: URL, text: string, quietMs = 300): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let got = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: got, closed });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      got += chunk;
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), quietMs);
    });
    socket.on('end', () => finish(true));
    socket.on('error', reject);
    socket.write(text);
  });
}

function post(path: string, body: string, headers = ''): string {
  return `POST ${path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** The status codes of the responses in `text`, in order (a JSON body ends without a newline, so no `^`). */
const statuses = (text: string): number[] => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

for (const mode of ['json', 'sse'] as const) {
  test(`bare-net (${mode}): a session answers the echo in its mode, as the bench driver expects`, async () => {
    const driver = await start(mode);
    try {
      const session = await driver.openSession(TIMEOUT);
      assert.equal(await session.verifyEcho(TIMEOUT), mode);
      const run = await session.run(200, 4, TIMEOUT, mode);
      assert.ok(run.callsPerSec > 0);
    } finally {
      await driver.close();
    }
  });
}

test('bare-net: two requests in one write are answered in order; an unknown session gets 404; GET gets 405', async () => {
  const driver = await start('json');
  try {
    const init = post(
      driver.url.pathname,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    );
    const ping = post(driver.url.pathname, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    const both = await exchange(driver.url, init + ping);
    assert.deepEqual(statuses(both.text), [200, 200]);
    assert.ok(both.text.indexOf('"id":1') < both.text.indexOf('"id":2'), both.text);
    assert.match(both.text, /mcp-session-id: [0-9a-f-]{36}\r\n/);

    const unknown = await exchange(driver.url, post(driver.url.pathname, '{"jsonrpc":"2.0","id":3,"method":"ping"}', 'mcp-session-id: nope\r\n'));
    assert.deepEqual(statuses(unknown.text), [404]);
    const get = await exchange(driver.url, `GET ${driver.url.pathname} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.deepEqual(statuses(get.text), [405]);
    assert.match(get.text, /allow: POST, DELETE\r\n/);
  } finally {
    await driver.close();
  }
});

test('bare-net: a chunked body, an oversized head and an oversized body are refused and the connection closed', async () => {
  const driver = await start('json');
  try {
    const chunked = await exchange(driver.url, `POST ${driver.url.pathname} HTTP/1.1\r\nHost: x\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`);
    assert.deepEqual(statuses(chunked.text), [501]);
    assert.equal(chunked.closed, true);
    const bigHead = await exchange(driver.url, `POST ${driver.url.pathname} HTTP/1.1\r\nHost: x\r\nx-pad: ${'a'.repeat(17 * 1024)}\r\n`);
    assert.deepEqual(statuses(bigHead.text), [431]);
    assert.equal(bigHead.closed, true);
    const bigBody = await exchange(driver.url, `POST ${driver.url.pathname} HTTP/1.1\r\nHost: x\r\ncontent-length: ${5 * 1024 * 1024}\r\n\r\n{`);
    assert.deepEqual(statuses(bigBody.text), [413]);
    assert.equal(bigBody.closed, true);
  } finally {
    await driver.close();
  }
});
