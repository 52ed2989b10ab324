/**
 * The third-party authorization flow (2025-03-26 › Authorization › Third-Party Authorization
 * Flow): the MCP server is the authorization server of its MCP clients while users sign in
 * at an upstream (third-party) authorization server. It acts as an OAuth client of the
 * upstream (with `oauth4webapi`) and issues its own tokens, bound to the upstream session.
 *
 * The flow:
 * 1. `GET /authorize` (MCP client's request, PKCE S256 required): the client and its exact
 *    redirect URI are checked first (a failure shows an error page, never a redirect).
 * 2. Consent per client, before anything goes upstream (the confused-deputy defence of
 *    2025-11-25 › Security Best Practices): a page naming the client, scopes and redirect
 *    target, with an anti-CSRF token, not frameable. An approval is remembered for the
 *    browser (server-side, keyed by an HttpOnly `__Host-` cookie) and that client.
 * 3. Redirect to the upstream authorization server with a fresh `state`, PKCE and `nonce`
 *    (created only after consent). The callback must arrive in the same browser.
 * 4. The upstream code is exchanged (`iss`, `state`, ID token checked by oauth4webapi); the
 *    upstream tokens are sealed (AES-GCM) into a grant record; an MCP authorization code is
 *    issued for the grant and sent to the client with `state` and `iss` (RFC 9207).
 * 5. `POST /token`: code (single use; a replay revokes what it produced), PKCE verifier,
 *    redirect URI and resource checked; opaque access and refresh tokens issued (stored only
 *    as SHA-256 digests). Refresh tokens rotate; a replayed one revokes the grant.
 * 6. The MCP endpoint validates tokens with {@link ThirdPartyAuthServer.verifier}: the token,
 *    then its grant (the upstream session): an expired upstream access token is renewed with
 *    the upstream refresh token on use; a refused renewal ends the grant (401, the client
 *    authorizes again). Upstream tokens never reach MCP clients, and MCP tokens never go
 *    upstream; tools that call the upstream API use {@link ThirdPartyAuthServer.upstreamAccessToken}.
 * Also: dynamic client registration (RFC 7591; redirect URIs must be https or loopback http),
 * client ID metadata documents (fetched through the fetch guard), revocation (RFC 7009), and
 * authorization server metadata (RFC 8414).
 *
 * Works on the adapter-neutral `HttpRequest`/`HttpReply` of the Streamable HTTP core: serve
 * it through `requireBearerAuth({ routes: as.route })` on the MCP handler, or alone with
 * {@link ThirdPartyAuthServer.fetch}. `oauth4webapi` is an optional peer dependency loaded on
 * first use.
 */
import type * as Oauth from 'oauth4webapi';
import type { HttpReply, HttpRequest } from '../../http/server/types.js';
import { describeWebRequest, toWebResponse } from '../../http/server/web.js';
import { base64url, fromBase64url } from '../../jsonrpc/base64url.js';
import { toError } from '../../jsonrpc/errors.js';
import { isObject } from '../../jsonrpc/values.js';
import { createGuardedFetch, type FetchGuardOptions, type GuardedFetch } from '../fetch-guard.js';
import { AdmissionBudget } from './admission.js';
import { PAGE_HEADERS, renderConsentPage, renderErrorPage } from './consent-page.js';
import { parseResource } from './metadata.js';
import {
  type AccessTokenRecord,
  type BrowserRecord,
  type ClientRecord,
  type CodeRecord,
  type GrantRecord,
  InMemoryThirdPartyStore,
  type RefreshTokenRecord,
  type ThirdPartyStore,
  type TransactionRecord,
  type UpstreamStateRecord,
  type UsedCodeRecord,
} from './third-party-store.js';
import { type AuthInfo, InvalidTokenError, type TokenVerifier, VerifierUnavailableError } from './types.js';

/** The upstream (third-party) authorization server and this server's client registration there. */
export interface UpstreamOptions {
  /** Its issuer identifier. */
  issuer: string;
  /** Metadata discovery: OpenID Connect (default) or RFC 8414. */
  discovery?: 'oidc' | 'oauth2';
  /** This server's client id there (a static client: one for all MCP clients). */
  clientId: string;
  /** Its secret, for a confidential client. */
  clientSecret?: string;
  /** Default: `client_secret_basic` with a secret, else `none`. */
  authMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** Scopes requested upstream besides `openid` (always requested: the subject comes from the ID token). */
  scope?: string;
  /** The RFC 8707 resource of upstream access tokens (the upstream API), when it uses indicators. */
  resource?: string;
  /** Shown on the consent page. Default: the upstream issuer's host. */
  name?: string;
  /** Renew the upstream access token this many seconds before it expires. Default 30. */
  refreshSkewSeconds?: number;
}

/** Options of {@link createThirdPartyAuthServer}. */
export interface ThirdPartyAuthServerOptions {
  /** This authorization server's issuer: the MCP server's origin (a path is allowed). */
  issuer: string;
  /** The MCP server's canonical URI: the audience of every token issued here. */
  resource: string;
  /** Scopes MCP clients may request. */
  scopesSupported: readonly string[];
  /** Scopes granted when a client asks for none. Default: all of `scopesSupported`. */
  defaultScopes?: readonly string[];
  upstream: UpstreamOptions;
  /** Where state lives. Default: an {@link InMemoryThirdPartyStore}. */
  store?: ThirdPartyStore;
  /** At least 32 random bytes sealing the upstream tokens at rest. Default: random per instance (tokens do not survive a restart). */
  secret?: Uint8Array;
  /** Lifetime of issued access tokens, seconds. Default 900. */
  accessTokenTtlSeconds?: number;
  /** Lifetime of issued refresh tokens (and of a grant), seconds. Default 30 days. */
  refreshTokenTtlSeconds?: number;
  /** Lifetime of authorization codes, seconds. Default 60. */
  codeTtlSeconds?: number;
  /** Time a user has from `/authorize` to the upstream callback, seconds. Default 600. */
  transactionTtlSeconds?: number;
  /** How long a browser's consents are remembered, seconds. Default 30 days. */
  consentTtlSeconds?: number;
  /** Serve dynamic client registration. Default true. */
  registration?: boolean;
  /**
   * Most dynamic registrations kept that have not completed an authorization yet. Anyone can
   * register, so these are anonymous records with a budget of their own: past it
   * `POST /register` answers 503 `temporarily_unavailable` with `Retry-After`, and nothing
   * already stored is dropped to make room. A registration is confirmed — kept like a
   * pre-registered client — when its first authorization code is redeemed. Default 10 000
   * (per process).
   */
  maxUnconfirmedClients?: number;
  /** How long a registration that has not completed an authorization is kept, seconds. Default 3600. */
  unconfirmedClientTtlSeconds?: number;
  /** Most client ID metadata documents cached at once; past it a document is used without being cached. Default 10 000 (per process). */
  maxCachedMetadataDocuments?: number;
  /**
   * Most authorization requests in progress (consent page shown or sign-in under way, each
   * until it ends or `transactionTtlSeconds` pass) started by browsers that have not
   * completed a sign-in here — anyone without a cookie. Past it `GET /authorize` answers
   * 503 with `Retry-After`; requests in progress are never dropped to make room. Browsers
   * that completed a sign-in have a budget of the same size of their own, so such a flood
   * does not lock them out. Default 10 000 (per process).
   */
  maxPendingAuthorizations?: number;
  /** Most authorization requests in progress per browser that completed a sign-in; past it 429 with `Retry-After`. Default 10. */
  maxPendingAuthorizationsPerBrowser?: number;
  /** Accept client ID metadata documents (https URL client ids). Default true. */
  clientIdMetadataDocuments?: boolean;
  /** Trust policy for metadata document URLs (e.g. a domain allowlist). Default: any https URL. */
  allowClientIdMetadataDocument?: (url: URL) => boolean;
  /** Guard options of every outgoing fetch (metadata documents, upstream). */
  fetchGuard?: FetchGuardOptions;
  /** Replaces the guarded fetch of every outgoing request (it must apply equivalent checks). */
  fetch?: GuardedFetch;
  /**
   * DANGEROUS, tests only: an `http:` issuer, cookies without `Secure`/`__Host-`, an http
   * upstream on loopback (also sets the fetch guard's loopback opt-out). Never in production.
   */
  dangerouslyAllowInsecureHttpForTesting?: boolean;
  /** Receives failures no client is told the details of (upstream errors, revocation failures). Must not throw. */
  onError?: (error: Error) => void;
  /** Clock, ms since the epoch (tests). Default `Date.now`. */
  now?: () => number;
}

/** Metadata of a client registered programmatically or by {@link ThirdPartyAuthServer} registration. */
export interface ClientRegistration {
  client_id: string;
  client_secret?: string;
  client_id_issued_at: number;
  client_secret_expires_at?: number;
  redirect_uris: string[];
  token_endpoint_auth_method: ClientRecord['token_endpoint_auth_method'];
  grant_types: string[];
  response_types: string[];
  client_name?: string;
  client_uri?: string;
}

/** The authorization server built by {@link createThirdPartyAuthServer}. */
export interface ThirdPartyAuthServer {
  readonly issuer: string;
  /** The RFC 8414 metadata document. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /**
   * Validates the access tokens issued here, with their upstream session (renewing it when
   * due). Pass it to `requireBearerAuth({ verifier })`.
   */
  readonly verifier: TokenVerifier;
  /**
   * Serves the authorization server's endpoints; `undefined` for other paths. Pass it to
   * `requireBearerAuth({ routes })` to serve them on the MCP handler. Never rejects.
   */
  route(req: HttpRequest): Promise<HttpReply | undefined>;
  /** The same endpoints as a web-standard handler (404 for other paths). */
  fetch(request: Request): Promise<Response>;
  /**
   * Registers a client (pre-registration) with the checks of dynamic registration. Rejects
   * with an `Error` whose message starts with `invalid_redirect_uri` or `invalid_client_metadata`.
   */
  registerClient(metadata: Record<string, unknown>): Promise<ClientRegistration>;
  /**
   * The current upstream access token of a verified request's grant (renewed when due), for
   * calls to the upstream API on the user's behalf. Never hand it to an MCP client. Rejects
   * with {@link InvalidTokenError} when the grant ended.
   */
  upstreamAccessToken(authInfo: AuthInfo): Promise<string>;
}

// ───────────── small helpers ─────────────

const encoder = new TextEncoder();

/** 32 random bytes, base64url (43 characters). */
function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

async function digest(text: string): Promise<string> {
  const bytes = await sha256(text);
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += bytes[i]!.toString(16).padStart(2, '0');
  return out;
}

/** Constant-time comparison of two strings. */
function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;
const MAX_FORM_BYTES = 64 * 1024;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An OAuth error answered as JSON (token, revocation, registration endpoints). */
function oauthError(status: number, error: string, description: string, extra: Record<string, string> = {}): HttpReply {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', 'access-control-allow-origin': '*', ...extra },
    body: JSON.stringify({ error, error_description: description }),
  };
}

function json(status: number, body: unknown, extra: Record<string, string> = {}): HttpReply {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', 'access-control-allow-origin': '*', ...extra },
    body: JSON.stringify(body),
  };
}

function errorPage(status: number, error: string, description: string): HttpReply {
  return { status, headers: PAGE_HEADERS, body: renderErrorPage(error, description) };
}

async function readBody(req: HttpRequest, limit: number): Promise<string | undefined> {
  const body = req.body;
  if (body === undefined) return '';
  if (typeof body === 'string') return body.length > limit ? undefined : body;
  try {
    return await body(limit);
  } catch {
    return undefined;
  }
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Form parameters with each name at most once; `undefined` when one repeats (RFC 6749 § 3.1). */
function singleParams(params: URLSearchParams, except: readonly string[] = []): Map<string, string> | undefined {
  const out = new Map<string, string>();
  for (const [name, value] of params) {
    if (out.has(name) && !except.includes(name)) return undefined;
    out.set(name, value);
  }
  return out;
}

/** True for a redirect URI MCP allows: https, or http on a loopback host; absolute, without fragment or credentials. */
function acceptableRedirectUri(uri: unknown): boolean {
  if (typeof uri !== 'string' || uri.includes('#')) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * Canonical form of a resource identifier for comparison (RFC 8707; 2025-11-25 › Canonical
 * Server URI): scheme and host lower-cased, default port dropped, a lone trailing slash
 * ignored. `undefined` for a string that is not an absolute URI or has a fragment.
 */
function canonicalResource(value: string): string | undefined {
  if (value.includes('#')) return undefined;
  try {
    const href = new URL(value).href;
    return href.endsWith('/') ? href.slice(0, -1) : href;
  } catch {
    return undefined;
  }
}

/** True when `clientId` has the form of a client ID metadata document URL (https, with a path). */
function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://')) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== '/' && url.hash === '' && url.username === '' && url.password === '' && !/\/\.\.?(\/|$)/.test(url.pathname);
  } catch {
    return false;
  }
}

let oauthPromise: Promise<typeof Oauth> | undefined;

function loadOauth(): Promise<typeof Oauth> {
  const specifier = 'oauth4webapi';
  return (oauthPromise ??= (import(specifier) as Promise<typeof Oauth>).catch((error: unknown) => {
    oauthPromise = undefined;
    throw new Error('The third-party authorization flow needs the optional peer dependency `oauth4webapi` (npm install oauth4webapi)', { cause: error });
  }));
}

interface UpstreamTokens {
  access_token: string;
  refresh_token?: string;
}

/** Thrown inside the token endpoint to answer with an OAuth error. */
class OAuthFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

/**
 * Creates the third-party authorization server; see the module notes. Throws `TypeError`
 * for an invalid `issuer`, `resource` or upstream issuer, an `http:` issuer without the
 * test opt-out, or a `secret` shorter than 32 bytes.
 */
export function createThirdPartyAuthServer(options: ThirdPartyAuthServerOptions): ThirdPartyAuthServer {
  const insecure = options.dangerouslyAllowInsecureHttpForTesting === true;
  const issuerUrl = new URL(options.issuer);
  if (issuerUrl.protocol !== 'https:' && !(insecure && issuerUrl.protocol === 'http:'))
    throw new TypeError('createThirdPartyAuthServer: the issuer must be an https URL');
  if (issuerUrl.search !== '' || issuerUrl.hash !== '') throw new TypeError('createThirdPartyAuthServer: the issuer must not have a query or fragment');
  const issuer = options.issuer.replace(/\/+$/, '');
  const prefix = issuerUrl.pathname.replace(/\/+$/, '');
  parseResource(options.resource);
  const resource = options.resource;
  const canonical = canonicalResource(resource);
  const upstreamIssuer = new URL(options.upstream.issuer);
  const scopesSupported = [...options.scopesSupported];
  const defaultScopes = [...(options.defaultScopes ?? scopesSupported)];
  const store = options.store ?? new InMemoryThirdPartyStore();
  const now = options.now ?? Date.now;
  const seconds = (): number => Math.floor(now() / 1000);
  const accessTtl = options.accessTokenTtlSeconds ?? 900;
  const refreshTtl = options.refreshTokenTtlSeconds ?? 30 * 24 * 3600;
  const codeTtl = options.codeTtlSeconds ?? 60;
  const transactionTtl = options.transactionTtlSeconds ?? 600;
  const consentTtl = options.consentTtlSeconds ?? 30 * 24 * 3600;
  const refreshSkew = options.upstream.refreshSkewSeconds ?? 30;
  const unconfirmedTtl = options.unconfirmedClientTtlSeconds ?? 3600;
  const confirmedTtl = 10 * 365 * 24 * 3600;
  const maxPending = options.maxPendingAuthorizations ?? 10_000;
  // anonymous records get budgets of their own: full budgets refuse, they never evict
  const unconfirmedClients = new AdmissionBudget(options.maxUnconfirmedClients ?? 10_000, unconfirmedTtl, now);
  const cachedDocuments = new AdmissionBudget(options.maxCachedMetadataDocuments ?? 10_000, 24 * 3600, now);
  const anonymousSignIns = new AdmissionBudget(maxPending, transactionTtl, now);
  const knownSignIns = new AdmissionBudget(maxPending, transactionTtl, now, options.maxPendingAuthorizationsPerBrowser ?? 10);
  const upstreamName = options.upstream.name ?? upstreamIssuer.host;
  const upstreamAuth = options.upstream.authMethod ?? (options.upstream.clientSecret !== undefined ? 'client_secret_basic' : 'none');
  const cookieName = insecure && issuerUrl.protocol === 'http:' ? 'mcpkit-as-browser' : '__Host-mcpkit-as-browser';
  const cookieAttributes = insecure && issuerUrl.protocol === 'http:' ? 'Path=/; HttpOnly; SameSite=Lax' : 'Path=/; Secure; HttpOnly; SameSite=Lax';
  const guarded: GuardedFetch =
    options.fetch ?? createGuardedFetch({ ...options.fetchGuard, ...(insecure ? { dangerouslyAllowHttpLoopbackForTesting: true } : {}) });
  const secret = options.secret ?? crypto.getRandomValues(new Uint8Array(32));
  if (secret.byteLength < 32) throw new TypeError('createThirdPartyAuthServer: the secret must have at least 32 bytes');
  const report = (error: unknown): void => {
    try {
      options.onError?.(toError(error));
    } catch {
      // a throwing reporter must not break the flow
    }
  };

  const paths = {
    authorize: `${prefix}/authorize`,
    token: `${prefix}/token`,
    register: `${prefix}/register`,
    revoke: `${prefix}/revoke`,
    callback: `${prefix}/oauth/callback`,
    consent: `${prefix}/oauth/consent`,
    metadata: `/.well-known/oauth-authorization-server${prefix}`,
  };
  const origin = issuerUrl.origin;
  const callbackUrl = `${origin}${paths.callback}`;
  const registration = options.registration !== false;
  const cimd = options.clientIdMetadataDocuments !== false;

  const metadata: Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${origin}${paths.authorize}`,
    token_endpoint: `${origin}${paths.token}`,
    ...(registration ? { registration_endpoint: `${origin}${paths.register}` } : {}),
    revocation_endpoint: `${origin}${paths.revoke}`,
    scopes_supported: scopesSupported,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: cimd,
  };
  const metadataBody = JSON.stringify(metadata);

  // ───────────── sealing upstream tokens ─────────────

  let sealKey: Promise<CryptoKey> | undefined;
  const key = (): Promise<CryptoKey> =>
    (sealKey ??= (async () => {
      const master = await crypto.subtle.importKey('raw', secret.slice() as Uint8Array<ArrayBuffer>, 'HKDF', false, ['deriveKey']);
      return crypto.subtle.deriveKey(
        { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode('mcpkit third-party upstream token seal') },
        master,
        { name: 'AES-GCM', length: 256 },
        false,
        ['encrypt', 'decrypt'],
      );
    })());

  async function seal(grantId: string, tokens: UpstreamTokens): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = new Uint8Array(
      await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(grantId) }, await key(), encoder.encode(JSON.stringify(tokens))),
    );
    const out = new Uint8Array(12 + data.byteLength);
    out.set(iv);
    out.set(data, 12);
    return base64url(out);
  }

  async function unseal(grantId: string, sealed: string): Promise<UpstreamTokens> {
    const bytes = fromBase64url(sealed);
    if (bytes === undefined) throw new Error('the stored upstream tokens of this grant are not base64url: the grant store holds a corrupted record');
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.subarray(0, 12), additionalData: encoder.encode(grantId) },
      await key(),
      bytes.subarray(12),
    );
    return JSON.parse(new TextDecoder().decode(plain)) as UpstreamTokens;
  }

  // ───────────── upstream (oauth4webapi) ─────────────

  const upstreamClient: Oauth.Client = { client_id: options.upstream.clientId };
  let upstreamMetadata: Promise<Oauth.AuthorizationServer> | undefined;

  async function requestOptions(): Promise<{ [key: symbol]: unknown; signal: () => AbortSignal }> {
    const oauth = await loadOauth();
    return {
      [oauth.customFetch]: (url: string, init: { method: string; headers: Record<string, string>; body?: string | URLSearchParams; signal?: AbortSignal }) =>
        guarded(url, {
          method: init.method,
          headers: init.headers,
          ...(init.body !== undefined ? { body: init.body } : {}),
          ...(init.signal !== undefined ? { signal: init.signal } : {}),
        }),
      ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
      signal: () => AbortSignal.timeout(10_000),
    };
  }

  function upstream(): Promise<Oauth.AuthorizationServer> {
    return (upstreamMetadata ??= (async () => {
      const oauth = await loadOauth();
      const response = await oauth.discoveryRequest(upstreamIssuer, { algorithm: options.upstream.discovery ?? 'oidc', ...(await requestOptions()) });
      return oauth.processDiscoveryResponse(upstreamIssuer, response);
    })().catch((error: unknown) => {
      upstreamMetadata = undefined;
      throw error;
    }));
  }

  async function upstreamClientAuth(): Promise<Oauth.ClientAuth> {
    const oauth = await loadOauth();
    if (upstreamAuth === 'none') return oauth.None();
    const clientSecret = options.upstream.clientSecret ?? '';
    return upstreamAuth === 'client_secret_post' ? oauth.ClientSecretPost(clientSecret) : oauth.ClientSecretBasic(clientSecret);
  }

  // ───────────── clients ─────────────

  async function validateClientMetadata(body: Record<string, unknown>, fromDocument: boolean): Promise<Omit<ClientRecord, 'client_id'>> {
    const redirectUris = body.redirect_uris;
    if (!Array.isArray(redirectUris) || redirectUris.length === 0 || redirectUris.length > 20)
      throw new OAuthFailure(400, 'invalid_redirect_uri', 'redirect_uris must list between 1 and 20 URIs');
    for (const uri of redirectUris) {
      if (!acceptableRedirectUri(uri))
        throw new OAuthFailure(
          400,
          'invalid_redirect_uri',
          `Redirect URIs must be https or http on a loopback host, without fragment: ${String(uri).slice(0, 200)}`,
        );
    }
    const method = body.token_endpoint_auth_method ?? (fromDocument ? 'none' : 'client_secret_basic');
    if (method !== 'none' && method !== 'client_secret_basic' && method !== 'client_secret_post')
      throw new OAuthFailure(400, 'invalid_client_metadata', `Unsupported token_endpoint_auth_method ${String(method)}`);
    if (fromDocument && method !== 'none') throw new OAuthFailure(400, 'invalid_client_metadata', 'A client ID metadata document must not use a shared secret');
    const grantTypes = body.grant_types ?? ['authorization_code'];
    if (!Array.isArray(grantTypes) || grantTypes.length === 0 || grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      throw new OAuthFailure(400, 'invalid_client_metadata', 'grant_types may only contain authorization_code and refresh_token');
    }
    const responseTypes = body.response_types ?? ['code'];
    if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== 'code'))
      throw new OAuthFailure(400, 'invalid_client_metadata', 'response_types may only contain code');
    const name = body.client_name;
    if (name !== undefined && (typeof name !== 'string' || name.length > 200))
      throw new OAuthFailure(400, 'invalid_client_metadata', 'client_name must be a string of at most 200 characters');
    const uri = body.client_uri;
    if (uri !== undefined && (typeof uri !== 'string' || !uri.startsWith('https://') || uri.length > 2000))
      throw new OAuthFailure(400, 'invalid_client_metadata', 'client_uri must be an https URL');
    return {
      redirect_uris: [...(redirectUris as string[])],
      token_endpoint_auth_method: method,
      grant_types: [...new Set(grantTypes as string[])],
      ...(name !== undefined ? { client_name: name } : {}),
      ...(uri !== undefined ? { client_uri: uri } : {}),
      ...(fromDocument ? { metadata_document: true } : {}),
    };
  }

  /**
   * Registers a client: `anonymous` (the registration endpoint) ones are unconfirmed — kept
   * `unconfirmedClientTtlSeconds` within their budget (past it OAuthFailure 503 with
   * Retry-After) — until their first code is redeemed; programmatic ones are confirmed.
   */
  async function register(body: Record<string, unknown>, anonymous: boolean): Promise<ClientRegistration> {
    const validated = await validateClientMetadata(body, false);
    const clientId = randomToken();
    if (anonymous) {
      const admitted = unconfirmedClients.admit(clientId);
      if (admitted.retryAfter > 0) {
        throw new OAuthFailure(
          503,
          'temporarily_unavailable',
          `Too many new registrations are waiting for their first authorization; try again in ${admitted.retryAfter} seconds`,
          { 'retry-after': String(admitted.retryAfter) },
        );
      }
    }
    const clientSecret = validated.token_endpoint_auth_method === 'none' ? undefined : randomToken();
    const client: ClientRecord = {
      client_id: clientId,
      ...validated,
      ...(clientSecret !== undefined ? { client_secret_hash: await digest(clientSecret) } : {}),
      ...(anonymous ? { unconfirmed: true } : {}),
    };
    await store.set('client', clientId, client, anonymous ? unconfirmedTtl : confirmedTtl);
    return {
      client_id: clientId,
      ...(clientSecret !== undefined ? { client_secret: clientSecret, client_secret_expires_at: 0 } : {}),
      client_id_issued_at: seconds(),
      redirect_uris: client.redirect_uris,
      token_endpoint_auth_method: client.token_endpoint_auth_method,
      grant_types: client.grant_types,
      response_types: ['code'],
      ...(client.client_name !== undefined ? { client_name: client.client_name } : {}),
      ...(client.client_uri !== undefined ? { client_uri: client.client_uri } : {}),
    };
  }

  /** The client `clientId` names: registered, or resolved from its metadata document. Undefined when unknown or refused. */
  async function findClient(clientId: string): Promise<ClientRecord | undefined> {
    const stored = await store.get<ClientRecord>('client', clientId);
    if (stored !== undefined) return stored;
    if (!cimd || !isMetadataDocumentUrl(clientId)) return undefined;
    const url = new URL(clientId);
    if (options.allowClientIdMetadataDocument !== undefined && !options.allowClientIdMetadataDocument(url)) return undefined;
    let document: unknown;
    let maxAge = 300;
    try {
      const response = await guarded(clientId, { headers: { accept: 'application/json' } });
      if (response.status !== 200) throw new Error(`the metadata document answered ${response.status}`);
      document = await response.json();
      const cacheControl = /max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '');
      if (cacheControl !== null) maxAge = Math.min(Math.max(Number(cacheControl[1]), 60), 24 * 3600);
    } catch (error) {
      report(new Error(`Client ID metadata document ${clientId} could not be fetched: ${(error as Error).message}`, { cause: error }));
      return undefined;
    }
    if (!isObject(document)) return undefined;
    const doc = document as Record<string, unknown>;
    if (doc.client_id !== clientId) return undefined;
    if ('client_secret' in doc) return undefined;
    let validated: Omit<ClientRecord, 'client_id'>;
    try {
      validated = await validateClientMetadata(doc, true);
    } catch (error) {
      report(new Error(`Client ID metadata document ${clientId} is not acceptable: ${(error as Error).message}`));
      return undefined;
    }
    const client: ClientRecord = { client_id: clientId, ...validated };
    // cached within a budget of its own; past it the document is used without being cached
    if (cachedDocuments.admit(clientId).retryAfter === 0) await store.set('client', clientId, client, maxAge);
    return client;
  }

  /** Authenticates the client of a token or revocation request. Throws {@link OAuthFailure}. */
  async function authenticateClient(req: HttpRequest, params: Map<string, string>): Promise<ClientRecord> {
    const header = req.headers('authorization');
    let clientId = params.get('client_id');
    let clientSecret = params.get('client_secret');
    let method: ClientRecord['token_endpoint_auth_method'] = clientSecret !== undefined ? 'client_secret_post' : 'none';
    if (header !== null) {
      const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
      if (m === null) throw new OAuthFailure(401, 'invalid_client', 'Unsupported client authentication', { 'www-authenticate': 'Basic realm="token"' });
      if (clientSecret !== undefined) throw new OAuthFailure(400, 'invalid_request', 'Use one client authentication method');
      let decoded: string;
      try {
        decoded = atob(m[1]!);
      } catch {
        throw new OAuthFailure(401, 'invalid_client', 'Malformed Basic credentials', { 'www-authenticate': 'Basic realm="token"' });
      }
      const colon = decoded.indexOf(':');
      if (colon < 0) throw new OAuthFailure(401, 'invalid_client', 'Malformed Basic credentials', { 'www-authenticate': 'Basic realm="token"' });
      let basicId: string;
      try {
        basicId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
        clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
      } catch {
        throw new OAuthFailure(401, 'invalid_client', 'Malformed Basic credentials', { 'www-authenticate': 'Basic realm="token"' });
      }
      if (clientId !== undefined && clientId !== basicId) throw new OAuthFailure(400, 'invalid_request', 'client_id does not match the credentials');
      clientId = basicId;
      method = 'client_secret_basic';
    }
    if (clientId === undefined || clientId === '') throw new OAuthFailure(401, 'invalid_client', 'Client authentication failed');
    const client = await findClient(clientId);
    const fail = (): never => {
      throw new OAuthFailure(
        401,
        'invalid_client',
        'Client authentication failed',
        method === 'client_secret_basic' ? { 'www-authenticate': 'Basic realm="token"' } : {},
      );
    };
    if (client === undefined) return fail();
    if (client.token_endpoint_auth_method === 'none') {
      if (method !== 'none') return fail();
      return client;
    }
    if (method === 'none' || clientSecret === undefined || client.client_secret_hash === undefined) return fail();
    if (method !== client.token_endpoint_auth_method) return fail();
    if (!safeEqual(await digest(clientSecret), client.client_secret_hash)) return fail();
    return client;
  }

  // ───────────── browser sessions and the authorization endpoint ─────────────

  interface Browser {
    id: string;
    key: string;
    record: BrowserRecord;
    /** It completed a sign-in here (its record is stored); otherwise anonymous. */
    known: boolean;
    /** A cookie to set (a new browser). */
    setCookie: string | undefined;
  }

  /**
   * The browser a request comes from, by its cookie. A browser record is stored only once
   * a sign-in completes (see `callback`), so anonymous requests create no lasting record;
   * until then a browser is known by its cookie alone (`known: false`). Without a usable
   * cookie: a new browser when `create`, else undefined.
   */
  async function browserOf(req: HttpRequest, create: boolean): Promise<Browser | undefined> {
    const value = cookieValue(req.headers('cookie'), cookieName);
    if (value !== undefined && /^[A-Za-z0-9_-]{43}$/.test(value)) {
      const key = await digest(value);
      const record = await store.get<BrowserRecord>('browser', key);
      return { id: value, key, record: record ?? { consents: {} }, known: record !== undefined, setCookie: undefined };
    }
    if (!create) return undefined;
    const id = randomToken();
    return { id, key: await digest(id), record: { consents: {} }, known: false, setCookie: `${cookieName}=${id}; ${cookieAttributes}; Max-Age=${consentTtl}` };
  }

  /** Ends a transaction's hold on the sign-in budgets. */
  function releaseSignIn(transactionId: string): void {
    anonymousSignIns.release(transactionId);
    knownSignIns.release(transactionId);
  }

  function redirectTo(location: string, status = 302, setCookie?: string): HttpReply {
    const headers: Record<string, string> = { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
    if (setCookie !== undefined) headers['set-cookie'] = setCookie;
    return { status, headers };
  }

  /** The redirect carrying the authorization response (success or error) to the client. */
  function respondToClient(redirectUri: string, params: Record<string, string | undefined>, status = 302, setCookie?: string): HttpReply {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
    url.searchParams.set('iss', issuer);
    return redirectTo(url.href, status, setCookie);
  }

  async function authorize(req: HttpRequest): Promise<HttpReply> {
    if (req.method !== 'GET') return errorPage(405, 'invalid_request', 'The authorization endpoint accepts GET requests');
    const q = req.url.indexOf('?');
    const params = singleParams(new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1)), ['resource']);
    if (params === undefined) return errorPage(400, 'invalid_request', 'A request parameter was given more than once');
    const clientId = params.get('client_id');
    if (clientId === undefined) return errorPage(400, 'invalid_request', 'client_id is missing');
    const client = await findClient(clientId);
    if (client === undefined) return errorPage(400, 'invalid_client', 'This application is not known here');
    let redirectUri = params.get('redirect_uri');
    if (redirectUri === undefined && client.redirect_uris.length === 1) redirectUri = client.redirect_uris[0]!;
    if (redirectUri === undefined || !client.redirect_uris.includes(redirectUri)) {
      return errorPage(400, 'invalid_request', 'The redirect URI is not registered for this application');
    }
    // from here on, errors go back to the client
    const state = params.get('state');
    const fail = (error: string, description: string): HttpReply => respondToClient(redirectUri, { error, error_description: description, state });
    if (params.get('response_type') !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');
    if (!client.grant_types.includes('authorization_code')) return fail('unauthorized_client', 'This client may not use the authorization code grant');
    const challenge = params.get('code_challenge');
    if (challenge === undefined) return fail('invalid_request', 'PKCE is required: code_challenge is missing');
    if (params.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'PKCE code_challenge_method must be S256');
    if (!PKCE_CHALLENGE.test(challenge)) return fail('invalid_request', 'code_challenge is malformed');
    const resources = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1)).getAll('resource');
    if (resources.length > 1 || (resources.length === 1 && canonicalResource(resources[0]!) !== canonical))
      return fail('invalid_target', `Tokens are issued for ${resource} only`);
    const requested = (params.get('scope') ?? '').split(' ').filter((s) => s !== '');
    const unknown = requested.filter((s) => !scopesSupported.includes(s));
    if (unknown.length > 0) return fail('invalid_scope', `Unknown scope ${unknown.join(' ')}`);
    const scopes = requested.length > 0 ? [...new Set(requested)] : defaultScopes;

    const browser = (await browserOf(req, true))!;
    const transactionId = randomToken();
    // sign-ins of browsers without a completed sign-in share a budget; known browsers have their own, a share each
    const admitted = browser.known ? knownSignIns.admit(transactionId, browser.key) : anonymousSignIns.admit(transactionId);
    if (admitted.retryAfter > 0) {
      const busy = admitted.reason === 'owner' ? 'This browser has too many sign-ins in progress' : 'Too many sign-ins are in progress';
      return {
        status: admitted.reason === 'owner' ? 429 : 503,
        headers: { ...PAGE_HEADERS, 'retry-after': String(admitted.retryAfter) },
        body: renderErrorPage('temporarily_unavailable', `${busy}; try again in ${admitted.retryAfter} seconds`),
      };
    }
    const transaction: TransactionRecord = {
      browser: browser.key,
      clientId,
      redirectUri,
      state,
      codeChallenge: challenge,
      scopes,
      resource,
      csrf: randomToken(),
    };
    await store.set('transaction', transactionId, transaction, transactionTtl);
    const approved = browser.record.consents[clientId];
    if (approved !== undefined && scopes.every((s) => approved.includes(s))) return goUpstream(transactionId, transaction, 302, browser.setCookie);
    const body = renderConsentPage({
      clientName: client.client_name ?? clientId,
      clientId,
      redirectUri,
      ...(client.client_uri !== undefined ? { clientUri: client.client_uri } : {}),
      scopes,
      upstreamName,
      action: `${origin}${paths.consent}`,
      fields: { transaction: transactionId, csrf: transaction.csrf },
    });
    const headers: Record<string, string> = { ...PAGE_HEADERS };
    if (browser.setCookie !== undefined) headers['set-cookie'] = browser.setCookie;
    return { status: 200, headers, body };
  }

  async function consent(req: HttpRequest): Promise<HttpReply> {
    if (req.method !== 'POST') return errorPage(405, 'invalid_request', 'The consent endpoint accepts POST requests');
    // browsers name the page a form was posted from; only this server's own consent page may post here
    const postedFrom = req.headers('origin');
    if (postedFrom !== null && postedFrom !== origin) return errorPage(403, 'invalid_request', 'The consent form was posted from another site');
    const text = await readBody(req, MAX_FORM_BYTES);
    if (text === undefined) return errorPage(400, 'invalid_request', 'The form could not be read');
    const params = singleParams(new URLSearchParams(text));
    const transactionId = params?.get('transaction');
    const csrf = params?.get('csrf');
    if (params === undefined || transactionId === undefined || csrf === undefined) return errorPage(400, 'invalid_request', 'The consent form is incomplete');
    const transaction = await store.get<TransactionRecord>('transaction', transactionId);
    const browser = await browserOf(req, false);
    if (transaction === undefined || browser === undefined || browser.key !== transaction.browser || !safeEqual(csrf, transaction.csrf)) {
      return errorPage(400, 'invalid_request', 'This consent form expired or was not issued to this browser; start again from the application');
    }
    if (params.get('decision') !== 'approve') {
      await store.delete('transaction', transactionId);
      releaseSignIn(transactionId);
      return respondToClient(transaction.redirectUri, { error: 'access_denied', error_description: 'The user declined', state: transaction.state }, 303);
    }
    // the form is answered once: a second post cannot start a second upstream sign-in
    await store.set<TransactionRecord>('transaction', transactionId, { ...transaction, csrf: randomToken() }, transactionTtl);
    // the approval is remembered for the browser once the sign-in completes (callback)
    return goUpstream(transactionId, transaction, 303);
  }

  /** Redirects the user to the upstream authorization server (after consent). */
  async function goUpstream(transactionId: string, transaction: TransactionRecord, status: number, setCookie?: string): Promise<HttpReply> {
    let as: Oauth.AuthorizationServer;
    let oauth: typeof Oauth;
    try {
      oauth = await loadOauth();
      as = await upstream();
    } catch (error) {
      report(error);
      return respondToClient(
        transaction.redirectUri,
        { error: 'temporarily_unavailable', error_description: 'The sign-in service cannot be reached', state: transaction.state },
        status,
        setCookie,
      );
    }
    if (as.authorization_endpoint === undefined) {
      report(new Error('The upstream authorization server has no authorization endpoint'));
      return respondToClient(
        transaction.redirectUri,
        { error: 'server_error', error_description: 'The sign-in service is misconfigured', state: transaction.state },
        status,
        setCookie,
      );
    }
    const upstreamState = oauth.generateRandomState();
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    await store.set<UpstreamStateRecord>('upstream_state', upstreamState, { transaction: transactionId, verifier, nonce }, transactionTtl);
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', options.upstream.clientId);
    url.searchParams.set('redirect_uri', callbackUrl);
    url.searchParams.set('scope', ['openid', ...(options.upstream.scope ?? '').split(' ').filter((s) => s !== '' && s !== 'openid')].join(' '));
    url.searchParams.set('state', upstreamState);
    url.searchParams.set('nonce', nonce);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    if (options.upstream.resource !== undefined) url.searchParams.set('resource', options.upstream.resource);
    return redirectTo(url.href, status, setCookie);
  }

  async function callback(req: HttpRequest): Promise<HttpReply> {
    if (req.method !== 'GET') return errorPage(405, 'invalid_request', 'The callback accepts GET requests');
    const q = req.url.indexOf('?');
    const query = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));
    const upstreamState = query.get('state');
    const pending = upstreamState === null ? undefined : await store.take<UpstreamStateRecord>('upstream_state', upstreamState);
    if (pending === undefined) return errorPage(400, 'invalid_request', 'This sign-in is unknown or expired; start again from the application');
    const transaction = await store.take<TransactionRecord>('transaction', pending.transaction);
    releaseSignIn(pending.transaction);
    const browser = await browserOf(req, false);
    if (transaction === undefined || browser === undefined || browser.key !== transaction.browser) {
      return errorPage(400, 'invalid_request', 'This sign-in was not started in this browser; start again from the application');
    }
    const back = (error: string, description: string): HttpReply =>
      respondToClient(transaction.redirectUri, { error, error_description: description, state: transaction.state });
    let result: Oauth.TokenEndpointResponse;
    let subject: string | undefined;
    try {
      const oauth = await loadOauth();
      const as = await upstream();
      let params: URLSearchParams;
      try {
        params = oauth.validateAuthResponse(as, upstreamClient, query, upstreamState!);
      } catch (error) {
        if (error instanceof oauth.AuthorizationResponseError) {
          return back(
            error.error === 'access_denied' ? 'access_denied' : 'server_error',
            error.error === 'access_denied' ? 'The user declined at the sign-in service' : 'The sign-in service refused the request',
          );
        }
        throw error;
      }
      const response = await oauth.authorizationCodeGrantRequest(as, upstreamClient, await upstreamClientAuth(), params, callbackUrl, pending.verifier, {
        ...(options.upstream.resource !== undefined ? { additionalParameters: { resource: options.upstream.resource } } : {}),
        ...(await requestOptions()),
      });
      result = await oauth.processAuthorizationCodeResponse(as, upstreamClient, response, { expectedNonce: pending.nonce, requireIdToken: true });
      subject = oauth.getValidatedIdTokenClaims(result)?.sub;
    } catch (error) {
      report(error);
      return back('server_error', 'Signing in at the sign-in service failed');
    }
    if (subject === undefined) return back('server_error', 'The sign-in service did not identify the user');
    const grantId = randomToken();
    const grant: GrantRecord = {
      subject,
      clientId: transaction.clientId,
      upstream: await seal(grantId, {
        access_token: result.access_token,
        ...(result.refresh_token !== undefined ? { refresh_token: result.refresh_token } : {}),
      }),
      upstreamExpiresAt: result.expires_in === undefined ? undefined : seconds() + result.expires_in,
      createdAt: seconds(),
    };
    await store.set('grant', grantId, grant, refreshTtl);
    // the sign-in completed: the browser is known from now on, and remembers its approval of this client
    const approved = [...new Set([...(browser.record.consents[transaction.clientId] ?? []), ...transaction.scopes])];
    await store.set<BrowserRecord>('browser', browser.key, { consents: { ...browser.record.consents, [transaction.clientId]: approved } }, consentTtl);
    const code = randomToken();
    await store.set<CodeRecord>(
      'code',
      await digest(code),
      {
        clientId: transaction.clientId,
        redirectUri: transaction.redirectUri,
        codeChallenge: transaction.codeChallenge,
        scopes: transaction.scopes,
        resource: transaction.resource,
        grant: grantId,
      },
      codeTtl,
    );
    return respondToClient(transaction.redirectUri, { code, state: transaction.state });
  }

  // ───────────── token issuance and the token endpoint ─────────────

  async function issueTokens(grantId: string, client: ClientRecord, scopes: string[], tokenResource: string): Promise<HttpReply> {
    const accessToken = randomToken();
    await store.set<AccessTokenRecord>(
      'access_token',
      await digest(accessToken),
      { grant: grantId, clientId: client.client_id, scopes, resource: tokenResource, expiresAt: seconds() + accessTtl },
      accessTtl,
    );
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: accessTtl, scope: scopes.join(' ') };
    if (client.grant_types.includes('refresh_token')) {
      const refreshToken = randomToken();
      await store.set<RefreshTokenRecord>(
        'refresh_token',
        await digest(refreshToken),
        { grant: grantId, clientId: client.client_id, scopes, resource: tokenResource, used: false },
        refreshTtl,
      );
      body.refresh_token = refreshToken;
    }
    return json(200, body);
  }

  /** Ends a grant: every MCP token of it stops working; the upstream refresh token is revoked (best effort). */
  async function endGrant(grantId: string): Promise<void> {
    const grant = await store.take<GrantRecord>('grant', grantId);
    if (grant === undefined) return;
    void (async () => {
      const tokens = await unseal(grantId, grant.upstream);
      const as = await upstream();
      if (as.revocation_endpoint === undefined) return;
      const oauth = await loadOauth();
      const token = tokens.refresh_token ?? tokens.access_token;
      const response = await oauth.revocationRequest(as, upstreamClient, await upstreamClientAuth(), token, await requestOptions());
      await oauth.processRevocationResponse(response);
    })().catch((error: unknown) => report(new Error(`Revoking an upstream token failed: ${(error as Error).message}`, { cause: error })));
  }

  async function token(req: HttpRequest): Promise<HttpReply> {
    if (req.method === 'OPTIONS') return preflight();
    if (req.method !== 'POST') return oauthError(405, 'invalid_request', 'The token endpoint accepts POST requests', { allow: 'POST' });
    const params = await formParams(req);
    const client = await authenticateClient(req, params);
    const grantType = params.get('grant_type');
    if (grantType === 'authorization_code') {
      if (!client.grant_types.includes('authorization_code'))
        throw new OAuthFailure(400, 'unauthorized_client', 'This client may not use the authorization code grant');
      const code = params.get('code');
      const verifier = params.get('code_verifier');
      const redirectUri = params.get('redirect_uri');
      if (code === undefined || verifier === undefined) throw new OAuthFailure(400, 'invalid_request', 'code and code_verifier are required');
      const codeKey = await digest(code);
      const record = await store.take<CodeRecord>('code', codeKey);
      if (record === undefined) {
        const used = await store.get<UsedCodeRecord>('used_code', codeKey);
        if (used !== undefined) await endGrant(used.grant);
        throw new OAuthFailure(400, 'invalid_grant', 'The authorization code is invalid, expired or already used');
      }
      await store.set<UsedCodeRecord>('used_code', codeKey, { grant: record.grant }, codeTtl);
      if (record.clientId !== client.client_id) {
        await endGrant(record.grant);
        throw new OAuthFailure(400, 'invalid_grant', 'The authorization code was issued to another client');
      }
      if (redirectUri !== record.redirectUri) throw new OAuthFailure(400, 'invalid_grant', 'redirect_uri does not match the authorization request');
      if (!PKCE_VERIFIER.test(verifier) || base64url(await sha256(verifier)) !== record.codeChallenge)
        throw new OAuthFailure(400, 'invalid_grant', 'The PKCE code_verifier does not match');
      const requestedResource = params.get('resource');
      if (requestedResource !== undefined && canonicalResource(requestedResource) !== canonical)
        throw new OAuthFailure(400, 'invalid_target', `Tokens are issued for ${record.resource} only`);
      if ((await store.get<GrantRecord>('grant', record.grant)) === undefined) throw new OAuthFailure(400, 'invalid_grant', 'The authorization was revoked');
      if (client.unconfirmed === true) {
        // its first completed authorization: a registered client from now on, out of the anonymous budget
        const { unconfirmed: _unconfirmed, ...confirmed } = client;
        await store.set<ClientRecord>('client', client.client_id, confirmed, confirmedTtl);
        unconfirmedClients.release(client.client_id);
      }
      return issueTokens(record.grant, client, record.scopes, record.resource);
    }
    if (grantType === 'refresh_token') {
      if (!client.grant_types.includes('refresh_token')) throw new OAuthFailure(400, 'unauthorized_client', 'This client may not use refresh tokens');
      const refreshToken = params.get('refresh_token');
      if (refreshToken === undefined) throw new OAuthFailure(400, 'invalid_request', 'refresh_token is required');
      const key = await digest(refreshToken);
      const record = await store.take<RefreshTokenRecord>('refresh_token', key);
      if (record === undefined) throw new OAuthFailure(400, 'invalid_grant', 'The refresh token is invalid or expired');
      if (record.used) {
        // a rotated refresh token came back: someone kept a copy; end the whole grant
        await store.set('refresh_token', key, record, codeTtl);
        await endGrant(record.grant);
        throw new OAuthFailure(400, 'invalid_grant', 'The refresh token was already used; the authorization is revoked');
      }
      if (record.clientId !== client.client_id) throw new OAuthFailure(400, 'invalid_grant', 'The refresh token was issued to another client');
      await store.set<RefreshTokenRecord>('refresh_token', key, { ...record, used: true }, refreshTtl);
      if ((await store.get<GrantRecord>('grant', record.grant)) === undefined) throw new OAuthFailure(400, 'invalid_grant', 'The authorization was revoked');
      const requestedResource = params.get('resource');
      if (requestedResource !== undefined && canonicalResource(requestedResource) !== canonical)
        throw new OAuthFailure(400, 'invalid_target', `Tokens are issued for ${record.resource} only`);
      const requested = params.get('scope');
      let scopes = record.scopes;
      if (requested !== undefined) {
        const asked = requested.split(' ').filter((s) => s !== '');
        if (asked.some((s) => !record.scopes.includes(s))) throw new OAuthFailure(400, 'invalid_scope', 'A refresh cannot add scopes');
        scopes = asked;
      }
      return issueTokens(record.grant, client, scopes, record.resource);
    }
    throw new OAuthFailure(400, 'unsupported_grant_type', `Unsupported grant_type ${grantType ?? '(none)'}`);
  }

  async function formParams(req: HttpRequest): Promise<Map<string, string>> {
    const type = (req.headers('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') throw new OAuthFailure(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
    const text = await readBody(req, MAX_FORM_BYTES);
    if (text === undefined) throw new OAuthFailure(400, 'invalid_request', 'The body could not be read or is too large');
    const params = singleParams(new URLSearchParams(text));
    if (params === undefined) throw new OAuthFailure(400, 'invalid_request', 'A parameter was given more than once');
    return params;
  }

  async function revoke(req: HttpRequest): Promise<HttpReply> {
    if (req.method === 'OPTIONS') return preflight();
    if (req.method !== 'POST') return oauthError(405, 'invalid_request', 'The revocation endpoint accepts POST requests', { allow: 'POST' });
    const params = await formParams(req);
    const client = await authenticateClient(req, params);
    const value = params.get('token');
    if (value === undefined) throw new OAuthFailure(400, 'invalid_request', 'token is required');
    const key = await digest(value);
    const refresh = await store.get<RefreshTokenRecord>('refresh_token', key);
    if (refresh !== undefined && refresh.clientId === client.client_id) {
      await store.delete('refresh_token', key);
      await endGrant(refresh.grant);
    } else {
      const access = await store.get<AccessTokenRecord>('access_token', key);
      if (access !== undefined && access.clientId === client.client_id) await store.delete('access_token', key);
    }
    // RFC 7009 § 2.2: the same answer whether or not the token existed
    return { status: 200, headers: { 'cache-control': 'no-store', 'access-control-allow-origin': '*' } };
  }

  async function registerEndpoint(req: HttpRequest): Promise<HttpReply> {
    if (req.method === 'OPTIONS') return preflight();
    if (req.method !== 'POST') return oauthError(405, 'invalid_request', 'The registration endpoint accepts POST requests', { allow: 'POST' });
    const type = (req.headers('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') throw new OAuthFailure(400, 'invalid_client_metadata', 'The body must be application/json');
    const text = await readBody(req, 16 * 1024);
    if (text === undefined) throw new OAuthFailure(400, 'invalid_client_metadata', 'The body could not be read or is too large');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthFailure(400, 'invalid_client_metadata', 'The body is not JSON');
    }
    if (!isObject(body)) throw new OAuthFailure(400, 'invalid_client_metadata', 'The body must be a JSON object');
    return json(201, await register(body as Record<string, unknown>, true));
  }

  function preflight(): HttpReply {
    return {
      status: 204,
      headers: {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
        'access-control-max-age': '86400',
      },
    };
  }

  // ───────────── validating issued tokens ─────────────

  const renewing = new Map<string, Promise<UpstreamTokens>>();

  /** The grant's upstream tokens, renewed first when the access token is (nearly) expired. Throws InvalidTokenError when the grant ended. */
  async function freshUpstream(grantId: string): Promise<UpstreamTokens> {
    const grant = await store.get<GrantRecord>('grant', grantId);
    if (grant === undefined) throw new InvalidTokenError('The authorization was revoked or has expired');
    const tokens = await unseal(grantId, grant.upstream);
    if (grant.upstreamExpiresAt === undefined || grant.upstreamExpiresAt - refreshSkew > seconds()) return tokens;
    let pending = renewing.get(grantId);
    if (pending === undefined) {
      pending = renew(grantId, grant, tokens).finally(() => renewing.delete(grantId));
      renewing.set(grantId, pending);
    }
    return pending;
  }

  async function renew(grantId: string, grant: GrantRecord, tokens: UpstreamTokens): Promise<UpstreamTokens> {
    if (tokens.refresh_token === undefined) {
      await store.delete('grant', grantId);
      throw new InvalidTokenError('The upstream session expired');
    }
    let result: Oauth.TokenEndpointResponse;
    const oauth = await loadOauth().catch((error: unknown) => {
      throw new VerifierUnavailableError((error as Error).message, { cause: error });
    });
    try {
      const as = await upstream();
      const response = await oauth.refreshTokenGrantRequest(as, upstreamClient, await upstreamClientAuth(), tokens.refresh_token, {
        ...(options.upstream.resource !== undefined ? { additionalParameters: { resource: options.upstream.resource } } : {}),
        ...(await requestOptions()),
      });
      result = await oauth.processRefreshTokenResponse(as, upstreamClient, response);
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError && (error.error === 'invalid_grant' || error.error === 'unauthorized_client')) {
        await store.delete('grant', grantId);
        throw new InvalidTokenError('The upstream session ended', { cause: error });
      }
      report(error);
      throw new VerifierUnavailableError('The upstream session could not be renewed right now', { cause: error });
    }
    const renewed: UpstreamTokens = {
      access_token: result.access_token,
      ...(result.refresh_token !== undefined
        ? { refresh_token: result.refresh_token }
        : tokens.refresh_token !== undefined
          ? { refresh_token: tokens.refresh_token }
          : {}),
    };
    const remaining = Math.max(1, grant.createdAt + refreshTtl - seconds());
    await store.set<GrantRecord>(
      'grant',
      grantId,
      { ...grant, upstream: await seal(grantId, renewed), upstreamExpiresAt: result.expires_in === undefined ? undefined : seconds() + result.expires_in },
      remaining,
    );
    return renewed;
  }

  const verifier: TokenVerifier = {
    async verify(value: string): Promise<AuthInfo> {
      const record = await store.get<AccessTokenRecord>('access_token', await digest(value));
      if (record === undefined || record.expiresAt <= seconds()) throw new InvalidTokenError('The token is invalid or has expired');
      if (record.resource !== resource) throw new InvalidTokenError('The token was not issued for this resource');
      const grant = await store.get<GrantRecord>('grant', record.grant);
      if (grant === undefined) throw new InvalidTokenError('The authorization was revoked or has expired');
      // the upstream session must still be good before the MCP token is honoured: renew it when due
      if (grant.upstreamExpiresAt !== undefined && grant.upstreamExpiresAt - refreshSkew <= seconds()) await freshUpstream(record.grant);
      return {
        issuer,
        subject: grant.subject,
        clientId: record.clientId,
        scopes: record.scopes,
        audience: [record.resource],
        expiresAt: record.expiresAt,
        tokenId: undefined,
        claims: {
          iss: issuer,
          sub: grant.subject,
          client_id: record.clientId,
          scope: record.scopes.join(' '),
          aud: record.resource,
          exp: record.expiresAt,
          grant: record.grant,
          upstream_issuer: options.upstream.issuer,
        },
      };
    },
  };

  // ───────────── routing ─────────────

  async function route(req: HttpRequest): Promise<HttpReply | undefined> {
    const q = req.url.indexOf('?');
    let path = q < 0 ? req.url : req.url.slice(0, q);
    if (path.charCodeAt(0) !== 47 /* / */) {
      try {
        path = new URL(path).pathname;
      } catch {
        return undefined;
      }
    }
    try {
      switch (path) {
        case paths.metadata:
          if (req.method === 'OPTIONS') return preflight();
          if (req.method !== 'GET' && req.method !== 'HEAD') return oauthError(405, 'invalid_request', 'Method Not Allowed', { allow: 'GET, HEAD' });
          return {
            status: 200,
            headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' },
            ...(req.method === 'GET' ? { body: metadataBody } : {}),
          };
        case paths.authorize:
          return await authorize(req);
        case paths.consent:
          return await consent(req);
        case paths.callback:
          return await callback(req);
        case paths.token:
          return await token(req);
        case paths.revoke:
          return await revoke(req);
        case paths.register:
          return registration ? await registerEndpoint(req) : undefined;
        default:
          return undefined;
      }
    } catch (error) {
      if (error instanceof OAuthFailure) return oauthError(error.status, error.error, error.message, error.headers);
      report(error);
      return path === paths.token || path === paths.revoke || path === paths.register
        ? oauthError(500, 'server_error', 'Internal error')
        : { status: 500, headers: PAGE_HEADERS, body: renderErrorPage('server_error', 'Internal error') };
    }
  }

  return {
    issuer,
    metadata,
    verifier,
    route,
    async fetch(request: Request): Promise<Response> {
      const reply = await route(describeWebRequest(request));
      return toWebResponse(reply ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'Not Found' });
    },
    async registerClient(body) {
      try {
        return await register(body, false);
      } catch (error) {
        if (error instanceof OAuthFailure) throw new Error(`${error.error}: ${error.message}`);
        throw error;
      }
    },
    async upstreamAccessToken(authInfo: AuthInfo): Promise<string> {
      const grantId = authInfo.claims.grant;
      if (typeof grantId !== 'string' || authInfo.issuer !== issuer)
        throw new InvalidTokenError('These credentials were not issued by this authorization server');
      return (await freshUpstream(grantId)).access_token;
    },
  };
}
