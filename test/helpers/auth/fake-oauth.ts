/**
 * Test helpers of the OAuth client tests: a small but strict fake authorization server and
 * a fake protected MCP server, both as `fetch` functions (no sockets), and a router that
 * dispatches by origin and records every request. Not part of the package.
 *
 * The fake authorization server checks what a real one would: PKCE S256 (the verifier must
 * match the challenge), the redirect URI of the code, client authentication by the
 * registered method, single-use codes, refresh token rotation (a rotated token is dead),
 * and it answers with OAuth error bodies. The fake user agent plays the user: it "visits"
 * the authorization URL in process and returns the redirect back.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AuthorizationRequest } from '../../../src/auth/client/oauth-client.js';

/** One request seen by the router. */
export interface Seen {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

type Handler = (req: Seen) => Response | Promise<Response>;

export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** Dispatches requests to handlers by origin; records them all. */
export class Router {
  readonly seen: Seen[] = [];
  readonly #handlers = new Map<string, Handler>();

  add(origin: string, handler: Handler): this {
    this.#handlers.set(new URL(origin).origin, handler);
    return this;
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? new Request(input, init) : new Request(String(input), init);
    const url = new URL(request.url);
    const seen: Seen = { method: request.method, url, headers: request.headers, body: request.body ? await request.text() : '' };
    this.seen.push(seen);
    const handler = this.#handlers.get(url.origin);
    if (!handler) throw new TypeError(`fetch failed: no server at ${url.origin}`);
    return handler(seen);
  };

  /** Requests to `origin` (optionally with `pathname`). */
  to(origin: string, pathname?: string): Seen[] {
    const o = new URL(origin).origin;
    return this.seen.filter((s) => s.url.origin === o && (pathname === undefined || s.url.pathname === pathname));
  }
}

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

function s256(verifier: string): string {
  return b64url(createHash('sha256').update(verifier).digest());
}

interface FakeClient {
  clientId: string;
  secret?: string;
  method: string;
  redirectUris: string[];
  grantTypes: string[];
  registration: Record<string, unknown>;
}

interface IssuedCode {
  clientId: string;
  challenge: string;
  method: string;
  redirectUri: string;
  resource: string | undefined;
  scope: string | undefined;
  used: boolean;
}

/** What an access token stands for. */
export interface TokenInfo {
  clientId: string;
  scope: string;
  resource: string | undefined;
  issuer: string;
  expiresAt: number;
  /** The DPoP key thumbprint a DPoP token is bound to. */
  jkt?: string;
}

/** Options of {@link FakeAuthServer}. */
export interface FakeAuthServerOptions {
  issuer?: string;
  /** Override or remove (undefined) metadata fields. */
  metadata?: Record<string, unknown>;
  /** Serve the metadata at the OpenID well-known URL instead of RFC 8414's. */
  openid?: boolean;
  /** Access token lifetime, seconds. Default 3600. */
  accessTokenTtl?: number;
  /** Issue refresh tokens (rotated on use). Default true. */
  refreshTokens?: boolean;
  /** How the redirect's `iss` is sent: correct (default), omit, wrong, trailing-slash. */
  issInRedirect?: 'correct' | 'omit' | 'wrong' | 'trailing-slash';
}

/** A fake OAuth 2.1 authorization server (see the module note). */
export class FakeAuthServer {
  readonly issuer: string;
  readonly origin: string;
  readonly clients = new Map<string, FakeClient>();
  readonly tokens = new Map<string, TokenInfo>();
  readonly refreshTokens = new Map<string, TokenInfo & { alive: boolean }>();
  readonly #codes = new Map<string, IssuedCode>();
  readonly #options: FakeAuthServerOptions;
  /** Authorization requests the user agent brought, as parsed URLs. */
  readonly authorizations: URL[] = [];
  /** Token requests, as parsed form bodies with the Authorization header. */
  readonly tokenRequests: Array<{ params: URLSearchParams; authorization: string | null; dpop: string | null }> = [];
  /** The user's decision at the next authorizations (`deny` answers access_denied). */
  decision: 'approve' | 'deny' = 'approve';
  /** Grant only these scopes (intersection), when set. */
  grantOnly: string[] | undefined;
  /** Answer the next token requests with this OAuth error. */
  failTokenWith: string | undefined;
  /** When set, token requests must carry a DPoP proof with this nonce (answered use_dpop_nonce otherwise). */
  requireDpopNonce: string | undefined;

  constructor(options: FakeAuthServerOptions = {}) {
    this.#options = options;
    this.issuer = options.issuer ?? 'https://as.example.com';
    this.origin = new URL(this.issuer).origin;
  }

  /** The metadata document. */
  get metadata(): Record<string, unknown> {
    const base: Record<string, unknown> = {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      registration_endpoint: `${this.issuer}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      authorization_response_iss_parameter_supported: true,
    };
    for (const [k, v] of Object.entries(this.#options.metadata ?? {})) {
      if (v === undefined) delete base[k];
      else base[k] = v;
    }
    return base;
  }

  /** The well-known URL the metadata is served at. */
  get metadataUrl(): string {
    const u = new URL(this.issuer);
    const path = u.pathname === '/' ? '' : u.pathname;
    return this.#options.openid ? `${u.origin}${path}/.well-known/openid-configuration` : `${u.origin}/.well-known/oauth-authorization-server${path}`;
  }

  /** Pre-registers a client. */
  addClient(client: { clientId: string; secret?: string; method: string; redirectUris?: string[]; grantTypes?: string[] }): void {
    this.clients.set(client.clientId, {
      redirectUris: [],
      grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
      registration: {},
      ...client,
    });
  }

  readonly handle = async (req: Seen): Promise<Response> => {
    const path = req.url.pathname;
    if (req.method === 'GET' && req.url.href === this.metadataUrl) return json(this.metadata);
    const prefix = new URL(this.issuer).pathname.replace(/\/$/, '');
    if (req.method === 'POST' && path === `${prefix}/register`) return this.#register(req);
    if (req.method === 'POST' && path === `${prefix}/token`) return this.#token(req);
    return json({ error: 'not_found' }, 404);
  };

  #register(req: Seen): Response {
    const body = JSON.parse(req.body) as Record<string, unknown>;
    const redirectUris = body.redirect_uris as string[];
    if (!Array.isArray(redirectUris) || redirectUris.length === 0) return json({ error: 'invalid_redirect_uri' }, 400);
    const method = typeof body.token_endpoint_auth_method === 'string' ? body.token_endpoint_auth_method : 'client_secret_basic';
    const clientId = `client-${b64url(randomBytes(6))}`;
    const client: FakeClient = { clientId, method, redirectUris, grantTypes: (body.grant_types as string[]) ?? ['authorization_code'], registration: body };
    if (method !== 'none') client.secret = b64url(randomBytes(12));
    this.clients.set(clientId, client);
    const answer: Record<string, unknown> = { ...body, client_id: clientId, token_endpoint_auth_method: method };
    if (client.secret) {
      answer.client_secret = client.secret;
      answer.client_secret_expires_at = 0;
    }
    return json(answer, 201);
  }

  /** The user visits `url`: validates the request and returns the redirect back. */
  authorize(url: URL): URL {
    this.authorizations.push(url);
    const p = url.searchParams;
    const redirectUri = p.get('redirect_uri')!;
    const clientId = p.get('client_id')!;
    const client = this.clients.get(clientId);
    const cimd = clientId.startsWith('https://');
    if (!client && !cimd) throw new Error(`unknown client ${clientId}`);
    if (client && !client.redirectUris.some((r) => r === redirectUri || sameLoopback(r, redirectUri)))
      throw new Error(`redirect_uri ${redirectUri} not registered`);
    const back = new URL(redirectUri);
    const state = p.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const iss = this.#options.issInRedirect ?? 'correct';
    if (iss === 'correct') back.searchParams.set('iss', this.issuer);
    else if (iss === 'wrong') back.searchParams.set('iss', 'https://evil.example.com');
    else if (iss === 'trailing-slash') back.searchParams.set('iss', `${this.issuer}/`);
    if (this.decision === 'deny') {
      back.searchParams.set('error', 'access_denied');
      return back;
    }
    if (p.get('response_type') !== 'code' || !p.get('code_challenge')) {
      back.searchParams.set('error', 'invalid_request');
      return back;
    }
    let scope = p.get('scope') ?? undefined;
    if (scope !== undefined && this.grantOnly !== undefined)
      scope = scope
        .split(' ')
        .filter((s) => this.grantOnly!.includes(s))
        .join(' ');
    const code = b64url(randomBytes(16));
    this.#codes.set(code, {
      clientId,
      challenge: p.get('code_challenge')!,
      method: p.get('code_challenge_method') ?? 'plain',
      redirectUri,
      resource: p.get('resource') ?? undefined,
      scope,
      used: false,
    });
    back.searchParams.set('code', code);
    return back;
  }

  /** A user agent for the OAuth client that approves (per {@link decision}) at once. */
  readonly userAgent = async (request: AuthorizationRequest): Promise<URL> => this.authorize(request.url);

  #authenticate(params: URLSearchParams, authorization: string | null): FakeClient | Response {
    let clientId = params.get('client_id');
    let secret: string | undefined;
    let method = 'none';
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
      method = 'client_secret_basic';
    } else if (params.has('client_secret')) {
      secret = params.get('client_secret')!;
      method = 'client_secret_post';
    } else if (params.has('client_assertion')) {
      method = 'private_key_jwt';
    }
    const client = clientId ? this.clients.get(clientId) : undefined;
    if (!client) {
      if (clientId?.startsWith('https://') && method === 'none')
        return { clientId, method: 'none', redirectUris: [], grantTypes: ['authorization_code', 'refresh_token'], registration: {} };
      return json({ error: 'invalid_client', error_description: `unknown client ${clientId}` }, 401);
    }
    if (client.method !== method) return json({ error: 'invalid_client', error_description: `client authenticates with ${client.method}, not ${method}` }, 401);
    if ((method === 'client_secret_basic' || method === 'client_secret_post') && secret !== client.secret)
      return json({ error: 'invalid_client', error_description: 'bad secret' }, 401);
    return client;
  }

  #issue(client: FakeClient, scope: string | undefined, resource: string | undefined, withRefresh: boolean, jkt?: string): Response {
    const access = `at-${b64url(randomBytes(12))}`;
    const ttl = this.#options.accessTokenTtl ?? 3600;
    const info: TokenInfo = { clientId: client.clientId, scope: scope ?? '', resource, issuer: this.issuer, expiresAt: Date.now() + ttl * 1000 };
    if (jkt) info.jkt = jkt;
    this.tokens.set(access, info);
    const body: Record<string, unknown> = { access_token: access, token_type: jkt ? 'DPoP' : 'Bearer', expires_in: ttl };
    if (scope) body.scope = scope;
    if (withRefresh && this.#options.refreshTokens !== false) {
      const refresh = `rt-${b64url(randomBytes(12))}`;
      this.refreshTokens.set(refresh, { ...info, alive: true });
      body.refresh_token = refresh;
    }
    return json(body, 200, { 'cache-control': 'no-store' });
  }

  async #token(req: Seen): Promise<Response> {
    const params = new URLSearchParams(req.body);
    const authorization = req.headers.get('authorization');
    const dpop = req.headers.get('dpop');
    this.tokenRequests.push({ params, authorization, dpop });
    if (this.failTokenWith) return json({ error: this.failTokenWith }, 400);
    let jkt: string | undefined;
    if (dpop) {
      const { jwtVerify, importJWK, decodeProtectedHeader, calculateJwkThumbprint } = await import('jose');
      const header = decodeProtectedHeader(dpop);
      const { payload } = await jwtVerify(dpop, await importJWK(header.jwk!, header.alg), { typ: 'dpop+jwt' });
      if (payload.htm !== 'POST' || payload.htu !== `${this.issuer}/token`) return json({ error: 'invalid_dpop_proof' }, 400);
      if (this.requireDpopNonce !== undefined && payload.nonce !== this.requireDpopNonce)
        return json({ error: 'use_dpop_nonce' }, 400, { 'dpop-nonce': this.requireDpopNonce });
      jkt = await calculateJwkThumbprint(header.jwk!, 'sha256');
    }
    const authed = this.#authenticate(params, authorization);
    if (authed instanceof Response) return authed;
    const client = authed;
    const grant = params.get('grant_type');
    if (grant === 'authorization_code') {
      const code = this.#codes.get(params.get('code') ?? '');
      if (!code || code.used || code.clientId !== client.clientId) return json({ error: 'invalid_grant', error_description: 'bad code' }, 400);
      code.used = true;
      if (params.get('redirect_uri') !== code.redirectUri) return json({ error: 'invalid_grant', error_description: 'redirect_uri mismatch' }, 400);
      const verifier = params.get('code_verifier');
      if (code.method !== 'S256' || !verifier || s256(verifier) !== code.challenge)
        return json({ error: 'invalid_grant', error_description: 'PKCE verification failed' }, 400);
      if (params.get('resource') !== code.resource) return json({ error: 'invalid_target' }, 400);
      return this.#issue(client, code.scope, code.resource, true, jkt);
    }
    if (grant === 'refresh_token') {
      const rt = this.refreshTokens.get(params.get('refresh_token') ?? '');
      if (!rt?.alive || rt.clientId !== client.clientId) return json({ error: 'invalid_grant', error_description: 'refresh token invalid' }, 400);
      rt.alive = false; // rotation
      return this.#issue(client, rt.scope, params.get('resource') ?? rt.resource, true, jkt);
    }
    if (grant === 'client_credentials') return this.#issue(client, params.get('scope') ?? undefined, params.get('resource') ?? undefined, false, jkt);
    if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      if (!params.get('assertion')) return json({ error: 'invalid_request' }, 400);
      return this.#issue(client, params.get('scope') ?? undefined, params.get('resource') ?? undefined, false, jkt);
    }
    return json({ error: 'unsupported_grant_type' }, 400);
  }
}

function sameLoopback(a: string, b: string): boolean {
  const x = new URL(a);
  const y = new URL(b);
  return (
    x.protocol === 'http:' &&
    y.protocol === 'http:' &&
    x.hostname === y.hostname &&
    x.pathname === y.pathname &&
    ['127.0.0.1', 'localhost', '[::1]'].includes(x.hostname)
  );
}

/** Options of {@link FakeResourceServer}. */
export interface FakeResourceServerOptions {
  /** The MCP endpoint. Default `https://mcp.example.com/mcp`. */
  url?: string;
  /** Authorization servers named in the resource metadata. */
  authorizationServers: string[];
  /** The `resource` published. Default: the endpoint URL. */
  resource?: string;
  scopesSupported?: string[];
  /** Scope put in the 401 challenge. */
  challengeScope?: string;
  /** Scopes required per JSON-RPC method (403 insufficient_scope otherwise). */
  methodScopes?: Record<string, string[]>;
  /** Put `resource_metadata` in the challenge. Default true. */
  advertiseMetadata?: boolean;
  /** Serve no resource metadata at all (a 2025-03-26 server). */
  noMetadata?: boolean;
}

/**
 * A fake protected MCP server: answers POSTs with a JSON-RPC result naming the method, after
 * checking the bearer token against `verify` (audience = the resource, scopes per method).
 */
export class FakeResourceServer {
  readonly url: URL;
  readonly resource: string;
  readonly #options: FakeResourceServerOptions;
  readonly #verify: (token: string) => TokenInfo | undefined;
  /** Answer the next requests with 401 regardless of the token (token revoked at the server). */
  rejectAll = false;
  /** Called instead of the default JSON-RPC answer, once authorized. */
  app: ((req: Seen, token: TokenInfo) => Response | Promise<Response>) | undefined;

  constructor(options: FakeResourceServerOptions, verify: (token: string) => TokenInfo | undefined) {
    this.#options = options;
    this.url = new URL(options.url ?? 'https://mcp.example.com/mcp');
    this.resource = options.resource ?? this.url.href;
    this.#verify = verify;
  }

  /** The path-based well-known URL of the resource metadata. */
  get metadataUrl(): string {
    return `${this.url.origin}/.well-known/oauth-protected-resource${this.url.pathname}`;
  }

  #challenge(status: number, extra: string): Response {
    const parts = [extra];
    if (this.#options.advertiseMetadata !== false && !this.#options.noMetadata) parts.push(`resource_metadata="${this.metadataUrl}"`);
    return json({ error: status === 401 ? 'invalid_token' : 'insufficient_scope' }, status, {
      'www-authenticate': `Bearer ${parts.filter(Boolean).join(', ')}`,
    });
  }

  readonly handle = async (req: Seen): Promise<Response> => {
    if (req.method === 'GET' && req.url.href === this.metadataUrl && !this.#options.noMetadata) {
      const doc: Record<string, unknown> = { resource: this.resource, authorization_servers: this.#options.authorizationServers };
      if (this.#options.scopesSupported) doc.scopes_supported = this.#options.scopesSupported;
      return json(doc);
    }
    if (req.url.pathname !== this.url.pathname) return json({ error: 'not_found' }, 404);
    if (req.url.searchParams.has('access_token')) return json({ error: 'token in query' }, 400);
    const header = req.headers.get('authorization');
    const scopeParam = this.#options.challengeScope ? `scope="${this.#options.challengeScope}"` : '';
    if (!header || this.rejectAll) return this.#challenge(401, scopeParam);
    const [scheme, token] = header.split(' ');
    const info = token ? this.#verify(token) : undefined;
    if (!info || info.expiresAt < Date.now() || info.resource !== this.resource || (scheme === 'DPoP') !== (info.jkt !== undefined)) {
      return this.#challenge(401, ['error="invalid_token"', scopeParam].filter(Boolean).join(', '));
    }
    const message = req.body ? (JSON.parse(req.body) as { id?: unknown; method?: string }) : {};
    const needed = (message.method && this.#options.methodScopes?.[message.method]) || [];
    const granted = info.scope.split(' ');
    if (!needed.every((s) => granted.includes(s))) return this.#challenge(403, `error="insufficient_scope", scope="${needed.join(' ')}"`);
    if (this.app) return this.app(req, info);
    return json({ jsonrpc: '2.0', id: message.id ?? null, result: { method: message.method ?? null, scope: info.scope } });
  };
}

/** A POST of one JSON-RPC request through `fetch`. */
export function rpcPost(fetchFn: typeof fetch, url: string | URL, method: string, id = 1): Promise<Response> {
  return fetchFn(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, method }) });
}
