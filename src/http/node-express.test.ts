/**
 * The Node listener as an Express middleware, with real Express: mounted at the application's
 * root it serves the MCP endpoint and the authorizer's protected resource metadata, and hands
 * every other request on down the chain with its body unread. The proof of discovery: the
 * `resource_metadata` URL of the 401 is fetched and answers the metadata.
 */

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from 'express';
import { type AuthInfo, InvalidTokenError, requireBearerAuth } from '../auth/index.js';
import { Client } from '../client/client.js';
import { McpServer } from '../server/server.js';
import { StreamableHttpClientTransport } from './client/streamable.js';
import { toNodeListener } from './node.js';
import { createStreamableHttpHandler } from './server/handler.js';

const ACCEPT = 'application/json, text/event-stream';

test("Express + authorize: app.use(listener) serves /mcp and its metadata; the 401 points at a URL that answers; other routes are the app's", async () => {
  const app = express();
  app.get('/health', (_req, res) => {
    res.send('ok');
  });
  const http = app.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const resource = `${origin}/mcp`;
  const ada: AuthInfo = {
    issuer: 'https://auth.example.com',
    subject: 'ada',
    clientId: 'cli',
    scopes: [],
    audience: [resource],
    expiresAt: undefined,
    tokenId: undefined,
    claims: {},
  };
  const auth = requireBearerAuth({
    verifier: {
      async verify(token) {
        if (token !== 'token-of-ada') throw new InvalidTokenError('Unknown token');
        return ada;
      },
    },
    resourceMetadata: { resource, authorization_servers: ['https://auth.example.com'] },
  });
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool('whoami', {}, (_args, ctx) => (ctx.authInfo as AuthInfo).subject ?? 'nobody');
  const errors: Error[] = [];
  const handler = createStreamableHttpHandler({ server, authorize: auth, onError: (e) => errors.push(e) });
  app.use(toNodeListener(handler));
  // routes after the middleware: reached with their bodies intact
  app.post('/echo', express.json(), (req, res) => {
    res.json({ got: req.body as unknown });
  });
  try {
    // no token: 401, and its resource_metadata URL answers the metadata
    const refused = await fetch(resource, { method: 'POST', headers: { accept: ACCEPT, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.equal(metadataUrl, `${origin}/.well-known/oauth-protected-resource/mcp`);
    const metadata = await fetch(metadataUrl!);
    assert.equal(metadata.status, 200);
    assert.deepEqual(await metadata.json(), { bearer_methods_supported: ['header'], resource, authorization_servers: ['https://auth.example.com'] });
    const root = await fetch(`${origin}/.well-known/oauth-protected-resource`);
    assert.equal(root.status, 200, 'the root well-known URL too');
    await root.body?.cancel();

    // the app's own routes, before and after the middleware
    assert.equal(await (await fetch(`${origin}/health`)).text(), 'ok');
    const echoed = await fetch(`${origin}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 1 }) });
    assert.deepEqual(await echoed.json(), { got: { a: 1 } });
    const unknown = await fetch(`${origin}/nowhere`);
    assert.equal(unknown.status, 404);
    assert.doesNotMatch(await unknown.text(), /jsonrpc/, 'Express answered, not the MCP handler');

    // with the token, a client is served
    const client = new Client({ name: 'notes-cli', version: '1.0.0' });
    await client.connect(new StreamableHttpClientTransport({ url: resource, headers: { authorization: 'Bearer token-of-ada' } }));
    assert.deepEqual((await client.callTool({ name: 'whoami', arguments: {} })).content, [{ type: 'text', text: 'ada' }]);
    await client.close();
    assert.deepEqual(errors, []);
  } finally {
    await handler.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
});

test("Express: a foreign Host on another path goes on to the app; on /mcp it gets the handler's 403", async () => {
  const app = express();
  const server = new McpServer({ name: 't', version: '1.0.0' });
  const auth = requireBearerAuth({
    verifier: { verify: () => Promise.reject(new InvalidTokenError('no')) },
    resourceMetadata: { resource: 'http://localhost/mcp', authorization_servers: ['https://auth.example.com'] },
  });
  const handler = createStreamableHttpHandler({ server, authorize: auth, onError: () => {} });
  app.use(toNodeListener(handler));
  app.get('/.well-known/oauth-protected-resource/mcp', (_req, res) => {
    res.status(418).send('the app');
  });
  const http = app.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  const { request } = await import('node:http');
  const get = (path: string, host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    assert.equal(await get('/.well-known/oauth-protected-resource/mcp', `localhost:${port}`), 200, 'the handler serves its metadata to an allowed Host');
    assert.equal(await get('/.well-known/oauth-protected-resource/mcp', 'evil.example'), 418, "a foreign Host on a path not the endpoint is the app's");
    assert.equal(await get('/mcp', 'evil.example'), 403);
  } finally {
    await handler.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
});
