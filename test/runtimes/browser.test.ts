/**
 * The browser: Chromium (Debian's `chromium` package, installed by .ci/run; driven by
 * playwright-core, which downloads no browser) loads a page served by this test (the example
 * page, examples/browser/), whose script is mcpkit's client bundled for the browser by esbuild from the published entry points. The
 * script connects to an mcpkit server on another origin (another port) through `withCors`,
 * lists and calls tools, and answers the demo's elicitation with a form the test fills in like
 * a person; the test reads what happened from the page's DOM. A page on an origin the server
 * does not list is refused by the browser's CORS check, and says so in its DOM. And OAuth in
 * the page: mcpkit/auth/web's OAuthClient registers with the test authorization server (the
 * OAuth client tests' fake one, served over HTTP with CORS), authorizes with PKCE in a frame,
 * and calls a tool of a server protected by requireBearerAuth with the token it got.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ServerType, serve } from '@hono/node-server';
import { build } from 'esbuild';
import { type BrowserContext, chromium } from 'playwright-core';
import { InvalidTokenError, requireBearerAuth } from '../../src/auth/index.js';
import { createDemoServer } from '../../src/demo/server.js';
import { withCors } from '../../src/http/server/cors.js';
import { createStreamableHttpHandler, type StreamableHttpHandler } from '../../src/http/server/handler.js';
import { FakeAuthServer, type Seen } from '../helpers/auth/fake-oauth.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { REPO_ROOT } from '../helpers/repo.js';

/** Where .ci/run installs Debian's chromium. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The example page (examples/browser/index.html) and its script, which the test bundles as a user would. */
const EXAMPLE = join(REPO_ROOT, 'examples', 'browser');
const PAGE = readFileSync(join(EXAMPLE, 'index.html'), 'utf8');
const CLIENT = join(EXAMPLE, 'client.js');

/** Serves the page and its script on 127.0.0.1; resolves with the server and its origin. */
async function pageServer(script: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    else if (path === '/callback') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>back</title>');
    else if (path === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function closeServer(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
}

describe('an mcpkit client in a web page in Chromium, calling a server on another origin', { timeout: SUITE_TIMEOUT_MS }, () => {
  let allowedPage: { server: Server; origin: string };
  let foreignPage: { server: Server; origin: string };
  let handler: StreamableHttpHandler;
  let mcp: ServerType;
  let mcpUrl: string;
  let context: BrowserContext;
  let profile: string;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium), as .ci/run does`);
    const bundled = await build({ entryPoints: [CLIENT], bundle: true, write: false, format: 'esm', platform: 'browser', logLevel: 'silent' });
    const script = bundled.outputFiles[0]!.text;
    allowedPage = await pageServer(script);
    foreignPage = await pageServer(script);
    handler = createStreamableHttpHandler({ server: createDemoServer({ tasks: false }), allowedOrigins: [allowedPage.origin] });
    const fetchHandler = withCors(handler, { allowedOrigins: [allowedPage.origin] });
    const port = await new Promise<number>((resolve) => {
      mcp = serve({ fetch: fetchHandler, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port));
    });
    mcpUrl = `http://127.0.0.1:${port}/mcp`;
    profile = mkdtempSync(join(tmpdir(), 'mcpkit-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 30_000 });
  });
  after(async () => {
    await context?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    await handler?.close();
    await new Promise<void>((resolve) => (mcp === undefined ? resolve() : mcp.close(() => resolve())));
    await closeServer(allowedPage?.server);
    await closeServer(foreignPage?.server);
  });

  it('lists and calls tools and answers an elicitation form filled in on the page', async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${allowedPage.origin}/?server=${encodeURIComponent(mcpUrl)}`);
      const form = page.locator('#elicitation-form');
      await form.waitFor({ timeout: 20_000 });
      assert.equal(await form.locator('p').textContent(), 'Who are you?');
      await form.locator('input[name=username]').fill('ada');
      await form.locator('input[name=email]').fill('ada@example.com');
      await form.locator('button[type=submit]').click();
      await page.locator('#result:not([data-state=running])').waitFor({ timeout: 20_000 });
      const state = await page.locator('#result').getAttribute('data-state');
      const text = (await page.locator('#result').textContent()) ?? '';
      assert.equal(state, 'done', `the page failed: ${text}`);
      const seen = JSON.parse(text) as { origin: string; protocolVersion: string; tools: string[]; echo: string; elicitation: string };
      assert.equal(seen.origin, allowedPage.origin);
      assert.notEqual(new URL(mcpUrl).origin, seen.origin, 'the server is on another origin');
      assert.equal(seen.protocolVersion, '2025-11-25');
      for (const name of ['echo', 'add', 'test_elicitation']) assert.ok(seen.tools.includes(name), name);
      assert.equal(seen.echo, 'hello from the browser');
      assert.equal(seen.elicitation, 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
    } finally {
      await page.close();
    }
  });

  it('a page on an origin the server does not list is stopped by the browser (its preflight gets 403 from withCors)', async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${foreignPage.origin}/?server=${encodeURIComponent(mcpUrl)}`);
      await page.locator('#result:not([data-state=running])').waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('#result').getAttribute('data-state'), 'error');
      assert.match((await page.locator('#result').textContent()) ?? '', /fetch|network|CORS/i);
    } finally {
      await page.close();
    }
  });
});

/** Serves `handle` (a fetch function) with @hono/node-server on 127.0.0.1; resolves with the server and its origin. */
async function serveFetch(handle: (request: Request) => Response | Promise<Response>): Promise<{ server: ServerType; origin: string }> {
  let server!: ServerType;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: handle, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port));
  });
  return { server, origin: `http://127.0.0.1:${port}` };
}

const AS_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST',
  'access-control-allow-headers': 'authorization, content-type, dpop, mcp-protocol-version',
};

describe('OAuth in the browser: the page authorizes against the test authorization server, then calls the protected server', {
  timeout: SUITE_TIMEOUT_MS,
}, () => {
  let page: { server: Server; origin: string };
  let as: FakeAuthServer;
  let asHttp: { server: ServerType; origin: string };
  let mcp: { server: ServerType; origin: string };
  let handler: StreamableHttpHandler;
  let context: BrowserContext;
  let profile: string;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium), as .ci/run does`);
    const bundled = await build({ entryPoints: [CLIENT], bundle: true, write: false, format: 'esm', platform: 'browser', logLevel: 'silent' });
    page = await pageServer(bundled.outputFiles[0]!.text);
    // the authorization server: the fake one of the OAuth client tests, over HTTP with CORS;
    // GET /authorize is the person approving at once (302 back to the redirect URI)
    let asRef: FakeAuthServer | undefined;
    asHttp = await serveFetch(async (request) => {
      const url = new URL(request.url);
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: AS_CORS });
      if (request.method === 'GET' && url.pathname === '/authorize')
        return new Response(null, { status: 302, headers: { location: asRef!.authorize(url).href } });
      const seen: Seen = { method: request.method, url, headers: request.headers, body: await request.text() };
      const answer = await asRef!.handle(seen);
      const headers = new Headers(answer.headers);
      for (const [k, v] of Object.entries(AS_CORS)) headers.set(k, v);
      return new Response(answer.body, { status: answer.status, headers });
    });
    as = asRef = new FakeAuthServer({ issuer: asHttp.origin });
    let cors: ((request: Request) => Promise<Response>) | undefined;
    mcp = await serveFetch((request) => cors!(request));
    const mcpUrl = `${mcp.origin}/mcp`;
    const authorize = requireBearerAuth({
      verifier: {
        verify: async (token) => {
          const info = as.tokens.get(token);
          if (info === undefined || info.expiresAt * 1000 < Date.now()) throw new InvalidTokenError('unknown or expired token');
          return {
            issuer: info.issuer,
            subject: info.clientId,
            clientId: info.clientId,
            scopes: info.scope === '' ? [] : info.scope.split(' '),
            audience: info.resource === undefined ? [] : [info.resource],
            expiresAt: info.expiresAt,
            tokenId: undefined,
            claims: {},
          };
        },
      },
      resourceMetadata: { resource: mcpUrl, authorization_servers: [as.issuer] },
    });
    handler = createStreamableHttpHandler({ server: createDemoServer({ tasks: false }), allowedOrigins: [page.origin], authorize });
    cors = withCors(handler, { allowedOrigins: [page.origin] });
    profile = mkdtempSync(join(tmpdir(), 'mcpkit-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 30_000 });
  });
  after(async () => {
    await context?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
    await handler?.close();
    for (const s of [mcp?.server, asHttp?.server]) await new Promise<void>((resolve) => (s === undefined ? resolve() : s.close(() => resolve())));
    await closeServer(page?.server);
  });

  it('registers, authorizes with PKCE in a frame, gets a token, and calls a tool with it', async () => {
    const tab = await context.newPage();
    try {
      await tab.goto(`${page.origin}/?oauth=1&server=${encodeURIComponent(`${mcp.origin}/mcp`)}`);
      await tab.locator('#result:not([data-state=running])').waitFor({ timeout: 30_000 });
      const text = (await tab.locator('#result').textContent()) ?? '';
      assert.equal(await tab.locator('#result').getAttribute('data-state'), 'done', `the page failed: ${text}`);
      assert.deepEqual(JSON.parse(text), { origin: page.origin, echo: 'hello with a token', tokenType: 'Bearer', hasToken: true });
      // the authorization server saw one registration from the page, one PKCE authorization, and issued the token used
      assert.equal(as.clients.size, 1);
      const client = [...as.clients.values()][0]!;
      assert.deepEqual(client.redirectUris, [`${page.origin}/callback`]);
      assert.equal(as.authorizations.length, 1);
      assert.equal(as.authorizations[0]!.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(as.authorizations[0]!.searchParams.get('resource'), `${mcp.origin}/mcp`);
      assert.ok(as.tokens.size >= 1);
    } finally {
      await tab.close();
    }
  });
});
