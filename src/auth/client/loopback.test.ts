/**
 * The loopback redirect helper (real sockets on 127.0.0.1) and the browser opener: one
 * callback with the right state, loopback Host only, timeouts and cancellation, browser
 * opening only after consent, only http(s) URLs, never through a shell.
 */

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { OAuthClientError } from './errors.js';
import { LoopbackRedirect } from './loopback.js';
import { browserCommand, openInBrowser } from './open-url.js';

function get(url: string, host?: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ hostname: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method: 'GET', headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const AUTH_URL = new URL('https://as.example.com/authorize?client_id=c');

test('the redirect URI is http://127.0.0.1:<random port>/callback; the matching callback resolves, others change nothing', async () => {
  const shown: URL[] = [];
  const lb = await LoopbackRedirect.start({ presentUrl: (u) => void shown.push(u), timeoutMs: 5000 });
  try {
    assert.match(lb.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.equal(lb.grant.redirectUri, lb.redirectUri);
    const back = lb.userAgent({ url: AUTH_URL, state: 'st-1', redirectUri: lb.redirectUri, issuer: 'https://as.example.com' });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(shown[0]!.href, AUTH_URL.href, 'the URL is handed to the application');
    assert.equal((await get(`${lb.redirectUri}?code=x&state=wrong`)).status, 400);
    assert.equal((await get(`${lb.redirectUri.replace('/callback', '/other')}?state=st-1`)).status, 404);
    assert.equal((await get(`${lb.redirectUri}?code=x&state=st-1`, 'evil.example.com')).status, 400, 'a non-loopback Host is refused');
    const ok = await get(`${lb.redirectUri}?code=the-code&state=st-1&iss=https%3A%2F%2Fas.example.com`);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['cache-control'], 'no-store');
    assert.equal(ok.headers['referrer-policy'], 'no-referrer');
    assert.ok(!ok.body.includes('the-code'), 'nothing from the request is echoed');
    const url = await back;
    assert.equal(url.searchParams.get('code'), 'the-code');
    assert.equal(url.searchParams.get('iss'), 'https://as.example.com');
    assert.equal((await get(`${lb.redirectUri}?code=again&state=st-1`)).status, 400, 'one callback per authorization');
  } finally {
    await lb.close();
  }
});

test('timeouts and close() end a wait; another redirect URI is refused', async () => {
  const lb = await LoopbackRedirect.start({ presentUrl: () => undefined, timeoutMs: 50 });
  await assert.rejects(
    lb.userAgent({ url: AUTH_URL, state: 's', redirectUri: lb.redirectUri, issuer: 'x' }),
    (e: unknown) => e instanceof OAuthClientError && e.code === 'timeout',
  );
  await assert.rejects(
    lb.userAgent({ url: AUTH_URL, state: 's', redirectUri: 'http://127.0.0.1:1/cb', issuer: 'x' }),
    (e: unknown) => e instanceof OAuthClientError && e.code === 'invalid_configuration',
  );
  const waiting = lb.userAgent({ url: AUTH_URL, state: 's2', redirectUri: lb.redirectUri, issuer: 'x' });
  await lb.close();
  await assert.rejects(waiting, (e: unknown) => e instanceof OAuthClientError && e.code === 'cancelled');
});

test('only http(s) authorization URLs are presented or opened', async () => {
  let presented = 0;
  let opened = 0;
  const lb = await LoopbackRedirect.start({
    presentUrl: () => void presented++,
    openBrowser: { confirm: () => true, open: async () => void opened++ },
    timeoutMs: 1000,
  });
  try {
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'vbscript:x']) {
      await assert.rejects(
        lb.userAgent({ url: new URL(bad), state: 's', redirectUri: lb.redirectUri, issuer: 'x' }),
        (e: unknown) => e instanceof OAuthClientError && e.code === 'insecure_url',
      );
    }
    assert.equal(presented + opened, 0);
  } finally {
    await lb.close();
  }
});

test('the browser opens only after the user agreed; declining falls back to presentUrl or cancels', async () => {
  const opened: URL[] = [];
  const asked: URL[] = [];
  const yes = await LoopbackRedirect.start({ openBrowser: { confirm: (u) => (asked.push(u), true), open: async (u) => void opened.push(u) }, timeoutMs: 1000 });
  const p = yes.userAgent({ url: AUTH_URL, state: 's', redirectUri: yes.redirectUri, issuer: 'x' });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(asked[0]!.href, AUTH_URL.href);
  assert.equal(opened[0]!.href, AUTH_URL.href);
  await get(`${yes.redirectUri}?state=s&code=c`);
  await p;
  await yes.close();

  const shown: URL[] = [];
  const noButShow = await LoopbackRedirect.start({
    presentUrl: (u) => void shown.push(u),
    openBrowser: { confirm: () => false, open: async () => assert.fail('opened without consent') },
    timeoutMs: 1000,
  });
  const q = noButShow.userAgent({ url: AUTH_URL, state: 's', redirectUri: noButShow.redirectUri, issuer: 'x' });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(shown.length, 1);
  await noButShow.close();
  await assert.rejects(q);

  const no = await LoopbackRedirect.start({ openBrowser: { confirm: () => false, open: async () => assert.fail('opened without consent') }, timeoutMs: 1000 });
  await assert.rejects(
    no.userAgent({ url: AUTH_URL, state: 's', redirectUri: no.redirectUri, issuer: 'x' }),
    (e: unknown) => e instanceof OAuthClientError && e.code === 'cancelled',
  );
  await no.close();
  await assert.rejects(LoopbackRedirect.start({}), OAuthClientError);
});

test('the opener: the platform program with the URL as one argument, no shell; non-http(s) never spawns', async () => {
  const url = new URL('https://as.example.com/authorize?a=1&b=$(rm -rf ~)`x`;|');
  assert.deepEqual(browserCommand(url, 'linux'), { command: 'xdg-open', args: [url.href] });
  assert.deepEqual(browserCommand(url, 'darwin'), { command: 'open', args: [url.href] });
  assert.deepEqual(browserCommand(url, 'win32'), { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url.href] });
  assert.ok(!url.href.includes(' '), 'spaces are percent-encoded by the parser');

  const calls: Array<{ command: string; args: readonly string[]; shell: unknown }> = [];
  const spawn = (command: string, args: readonly string[], options: { shell?: unknown }) => {
    calls.push({ command, args, shell: options.shell });
    return {
      once(event: string, listener: () => void) {
        if (event === 'spawn') setImmediate(listener);
        return this;
      },
      unref() {},
    };
  };
  await openInBrowser(url, { platform: 'linux', spawn });
  assert.deepEqual(calls, [{ command: 'xdg-open', args: [url.href], shell: false }]);
  for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', 'data:,x', '--help']) {
    await assert.rejects(openInBrowser(bad, { platform: 'linux', spawn }), OAuthClientError, bad);
  }
  assert.equal(calls.length, 1);
});
