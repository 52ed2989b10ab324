/**
 * An authorized request that is redirected: the OAuth client follows redirects of the
 * requests it puts credentials on by hand — to the MCP server's origin authorized again
 * (a fresh DPoP proof for the new URL), to another origin with only the allow-listed
 * headers (no `authorization`, `dpop`, `proxy-authorization`, cookies or API keys), and
 * never resending a body there. Real servers on two loopback ports (two origins), the
 * global fetch.
 */

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { OAuthClient } from './oauth-client.js';
import { InMemoryOAuthStore, type StoredTokens } from './store.js';
import { canonicalServerUri } from './urls.js';

let mcp: Server;
let other: Server;
let mcpOrigin: string;
let otherOrigin: string;
const seen: Array<{ origin: 'mcp' | 'other'; url: string; method: string; headers: IncomingMessage['headers']; body: string }> = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function recorder(origin: 'mcp' | 'other', route: (url: string) => { status: number; location?: string }) {
  return (req: IncomingMessage, res: import('node:http').ServerResponse): void => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ origin, url: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      const { status, location } = route(req.url ?? '');
      res.writeHead(status, location === undefined ? { 'content-type': 'text/plain' } : { location }).end(status < 300 ? 'ok' : '');
    });
  };
}

before(async () => {
  other = createServer(recorder('other', () => ({ status: 200 })));
  otherOrigin = await listen(other);
  mcp = createServer(
    recorder('mcp', (url) => {
      if (url === '/mcp/away') return { status: 302, location: `${otherOrigin}/landing` };
      if (url === '/mcp/away-307') return { status: 307, location: `${otherOrigin}/landing` };
      if (url === '/mcp/away-303') return { status: 303, location: `${otherOrigin}/landing` };
      if (url === '/mcp/here') return { status: 307, location: '/mcp/final' };
      if (url === '/mcp/loop') return { status: 302, location: '/mcp/loop' };
      return { status: 200 };
    }),
  );
  mcpOrigin = await listen(mcp);
});

after(async () => {
  for (const s of [mcp, other]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

async function client(tokenType: StoredTokens['tokenType']): Promise<OAuthClient> {
  const serverUrl = new URL(`${mcpOrigin}/mcp`);
  const store = new InMemoryOAuthStore();
  await store.saveTokens(canonicalServerUri(serverUrl), {
    issuer: 'https://as.example',
    resource: serverUrl.href,
    accessToken: 'secret-token',
    tokenType,
    expiresAt: Date.now() + 3_600_000,
  });
  return new OAuthClient({ serverUrl, store, dangerouslyAllowInsecureHttp: true, dpop: tokenType === 'DPoP', grant: { type: 'client_credentials' } });
}

const SECRETS = { 'proxy-authorization': 'Basic cHJveHk6cHc=', 'x-api-key': 'key', cookie: 'session=1', 'x-custom': 'mine' };

test('a cross-origin redirect of an authorized request carries no credential of any kind', async () => {
  for (const tokenType of ['Bearer', 'DPoP'] as const) {
    const oauth = await client(tokenType);
    seen.length = 0;
    const response = await oauth.fetch(`${mcpOrigin}/mcp/away`, { headers: { ...SECRETS, accept: 'text/plain' } });
    assert.equal(response.status, 200);
    const [first, landed] = seen;
    assert.equal(first!.origin, 'mcp');
    assert.match(first!.headers.authorization ?? '', new RegExp(`^${tokenType} secret-token$`));
    assert.equal(landed!.origin, 'other');
    for (const name of ['authorization', 'dpop', ...Object.keys(SECRETS)])
      assert.equal(landed!.headers[name], undefined, `${tokenType}: ${name} crossed origins`);
    assert.equal(landed!.headers.accept, 'text/plain');
  }
});

test('a 307 to another origin does not resend the body; a 303 continues as GET without it', async () => {
  const oauth = await client('Bearer');
  seen.length = 0;
  const kept = await oauth.fetch(`${mcpOrigin}/mcp/away-307`, { method: 'POST', body: '{"secret":1}', headers: { 'content-type': 'application/json' } });
  assert.equal(kept.status, 307, 'the redirect is returned, not followed');
  assert.deepEqual(
    seen.map((r) => r.origin),
    ['mcp'],
  );
  seen.length = 0;
  const followed = await oauth.fetch(`${mcpOrigin}/mcp/away-303`, { method: 'POST', body: '{"secret":1}', headers: { 'content-type': 'application/json' } });
  assert.equal(followed.status, 200);
  assert.equal(seen[1]!.method, 'GET');
  assert.equal(seen[1]!.body, '');
  assert.equal(seen[1]!.headers.authorization, undefined);
});

test('a same-origin redirect stays authorized, with a fresh DPoP proof for the new URL; redirect loops end', async () => {
  const oauth = await client('DPoP');
  seen.length = 0;
  const response = await oauth.fetch(`${mcpOrigin}/mcp/here`, { method: 'POST', body: 'x=1', headers: { 'x-api-key': 'key' } });
  assert.equal(response.status, 200);
  const [first, second] = seen;
  assert.equal(second!.url, '/mcp/final');
  assert.equal(second!.body, 'x=1');
  assert.equal(second!.headers.authorization, 'DPoP secret-token');
  assert.equal(second!.headers['x-api-key'], 'key');
  const htu = (proof: string | string[] | undefined): string =>
    (JSON.parse(Buffer.from(String(proof).split('.')[1]!, 'base64url').toString()) as { htu: string }).htu;
  assert.equal(htu(first!.headers.dpop), `${mcpOrigin}/mcp/here`);
  assert.equal(htu(second!.headers.dpop), `${mcpOrigin}/mcp/final`);
  seen.length = 0;
  assert.equal((await oauth.fetch(`${mcpOrigin}/mcp/loop`)).status, 302);
  assert.equal(seen.length, 21, 'the first request and 20 redirects');
});
