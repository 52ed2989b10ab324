/**
 * mcpkit's OAuth 2.1 client for MCP servers (MCP 2025-03-26, 2025-06-18 and 2025-11-25 ›
 * Authorization, SEP-991 client ID metadata documents, the authorization extensions).
 *
 * Design note:
 * - One {@link OAuthClient} serves one MCP server (its endpoint URL). Give it to an HTTP
 *   transport as `auth` (or wrap any fetch with {@link OAuthClient.wrapFetch}): every
 *   request to the server's origin carries the access token in the `Authorization` header
 *   (never anywhere else: not in the URL, not to another origin); a 401 runs discovery and
 *   the grant and replays the request once; a 403 `insufficient_scope` re-authorizes with
 *   the union of the scopes requested so far and the challenged ones, at most
 *   `maxStepUps` times per request (and not at all when the token already holds every
 *   challenged scope). A 401 `use_dpop_nonce` replays the request once with the new nonce.
 * - Recovery is serialized: one flow at a time per client, and a request whose token was
 *   already replaced by another request's recovery is simply replayed.
 * - Discovery runs on every recovery (the server may have moved to another authorization
 *   server, SEP-2352): protected resource metadata (refused when its `resource` does not
 *   cover the server), then the authorization server's metadata (refused when its `issuer`
 *   differs); servers without resource metadata get the 2025-03-26 treatment.
 * - Registration, per issuer and in this order: pre-registered credentials, a registration
 *   stored earlier, a client ID metadata document URL when the server advertises
 *   `client_id_metadata_document_supported`, dynamic registration (RFC 7591). Registrations
 *   are stored and looked up by issuer only, so credentials never travel to another
 *   authorization server.
 * - Grants: authorization code with PKCE S256 (refused when the server's metadata does not
 *   advertise S256), `state` and `iss` (RFC 9207) checked, `resource` (RFC 8707) exactly as
 *   the resource metadata publishes it in the authorization, token and refresh requests;
 *   client credentials; JWT bearer (RFC 7523, workload identity); enterprise-managed
 *   authorization (RFC 8693 token exchange for an ID-JAG at the identity provider, then the
 *   JWT bearer grant). Refresh tokens are used (and rotated) before a new authorization.
 * - The user agent of the authorization code grant is the application's: a function that
 *   takes the user to the authorization URL and resolves with the redirect back (see
 *   `loopback.ts` for command-line and desktop apps). Without one, the flow stops with an
 *   `authorization_required` error carrying the URL, and {@link OAuthClient.finishAuthorization}
 *   completes it later (web apps).
 */

import type * as oauth from 'oauth4webapi';
import type { HttpAuthorization } from '../../http/client/common.js';
import { isObject } from '../../jsonrpc/values.js';
import { crossOriginHeaders, REDIRECT_STATUSES, redirectedMethod } from '../redirect-headers.js';
import type { WebCryptoKeyPair } from './crypto-types.js';
import {
  type DiscoveredAuthorizationServer,
  type DiscoveredResource,
  discoverAuthorizationServer,
  discoverLegacyAuthorizationServer,
  discoverProtectedResource,
} from './discovery.js';
import { DpopProver } from './dpop.js';
import { OAuthClientError } from './errors.js';
import type { HttpContext } from './http.js';
import { loadOAuth } from './libs.js';
import { InMemoryOAuthStore, type OAuthStore, type PendingAuthorization, type StoredClient, type StoredTokens, type TokenEndpointAuthMethod } from './store.js';
import {
  type ClientCredentials,
  type ClientPrivateKey,
  clientAuthentication,
  oauthClient,
  requestOptions,
  storedTokens,
  type TokenContext,
  tokenError,
  tokenExchange,
} from './token-endpoint.js';
import { canonicalServerUri, requireBrowserUrl, requireFetchableUrl, requireRedirectUri, sameRedirectUri } from './urls.js';
import { isDpopNonceChallenge, type ResourceChallenge, resourceChallenge, splitScopes } from './www-authenticate.js';

type MaybePromise<T> = T | Promise<T>;

/** Client credentials obtained outside the protocol (pre-registration). */
export interface PreRegisteredClient {
  /** The authorization server (issuer) they belong to; they are only ever used there. */
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** For `private_key_jwt`. */
  privateKey?: ClientPrivateKey;
  keyId?: string;
  /** Default: `private_key_jwt` with a key, else from the server's supported methods with a secret, else `none`. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

/** What a user agent gets: where to send the user, and what comes back. */
export interface AuthorizationRequest {
  /** The authorization URL (always http or https; checked before it is handed out). */
  url: URL;
  /** The `state` the redirect back must carry. */
  state: string;
  redirectUri: string;
  /** The authorization server's issuer. */
  issuer: string;
}

/**
 * Takes the user to `request.url` and resolves with the redirect back to the redirect URI:
 * the full URL, its query string, or its parameters. Rejecting aborts the authorization.
 */
export type UserAgent = (request: AuthorizationRequest) => Promise<URL | URLSearchParams | string>;

/** The authorization code grant (a user authorizes in a browser). */
export interface AuthorizationCodeGrant {
  type: 'authorization_code';
  /** The redirect URI: https, or http on localhost/127.0.0.1/[::1]. */
  redirectUri: string;
  /** Absent: flows stop with `authorization_required` (see {@link OAuthClient.finishAuthorization}). */
  userAgent?: UserAgent;
}

/** The client credentials grant (the client acts on its own behalf; needs pre-registered credentials). */
export interface ClientCredentialsGrant {
  type: 'client_credentials';
}

/** What an assertion provider is told. */
export interface AssertionContext {
  issuer: string;
  tokenEndpoint: string;
  resource: string;
}

/** The JWT bearer grant (RFC 7523) with an assertion from the environment (workload identity, SEP-1933). */
export interface JwtBearerGrant {
  type: 'jwt_bearer';
  /** Returns the JWT to present (its audience is normally the authorization server's issuer). */
  assertion: (context: AssertionContext) => MaybePromise<string>;
}

/** Enterprise-managed authorization (SEP-990): an ID token exchanged for an ID-JAG, then the JWT bearer grant. */
export interface EnterpriseManagedGrant {
  type: 'enterprise_managed';
  /** The enterprise identity provider's token endpoint and this client's id (and secret) there. */
  identityProvider: { tokenEndpoint: string; clientId: string; clientSecret?: string; issuer?: string };
  /** The user's identity assertion at the identity provider (normally an ID token). */
  subjectToken: (context: AssertionContext) => MaybePromise<string>;
  /** Default `urn:ietf:params:oauth:token-type:id_token`. */
  subjectTokenType?: string;
}

/** The grants an {@link OAuthClient} can run. */
export type OAuthGrant = AuthorizationCodeGrant | ClientCredentialsGrant | JwtBearerGrant | EnterpriseManagedGrant;

/** Client metadata sent in dynamic registration (and published in a client ID metadata document). */
export interface ClientMetadata {
  clientName: string;
  clientUri?: string;
  logoUri?: string;
  softwareId?: string;
  softwareVersion?: string;
  /** Default: `native` for a loopback redirect URI, `web` otherwise. */
  applicationType?: 'native' | 'web';
}

/** Options of {@link OAuthClient}. */
export interface OAuthClientOptions {
  /** The MCP server's endpoint URL. */
  serverUrl: string | URL;
  grant: OAuthGrant;
  /** Where state is kept. Default: a new {@link InMemoryOAuthStore}. */
  store?: OAuthStore;
  /** Default `{ clientName: 'mcpkit client' }`. */
  clientMetadata?: ClientMetadata;
  /** Pre-registered credentials: per issuer, or a function asked with the issuer. */
  preRegistered?: PreRegisteredClient | PreRegisteredClient[] | ((issuer: string) => MaybePromise<Omit<PreRegisteredClient, 'issuer'> | undefined>);
  /** The https URL of this client's metadata document (SEP-991), used as client id where supported. */
  clientIdMetadataDocumentUrl?: string;
  /** Register dynamically (RFC 7591) when nothing else applies. Default true. */
  dynamicRegistration?: boolean;
  /** Ask for `offline_access` when the server lists it, and declare `refresh_token` (SEP-2207). Default true. */
  offlineAccess?: boolean;
  /** Re-authorizations for more scope allowed per request (403 `insufficient_scope`). Default 2. */
  maxStepUps?: number;
  /** Request sender-constrained tokens (RFC 9449) where the server supports them: true (a fresh ES256 key) or a key. Default false. */
  dpop?: boolean | { keyPair: WebCryptoKeyPair; alg?: string };
  /** The fetch used for metadata and authorization server requests. Default: the global fetch. */
  fetch?: typeof fetch;
  /** Bound on each request to a metadata document or authorization server endpoint, in ms. Default 30000. */
  timeoutMs?: number;
  /** `MCP-Protocol-Version` sent during discovery when the failing request carried none. */
  protocolVersion?: string;
  /**
   * DANGEROUS: permits plain `http:` for metadata, authorization server endpoints and the
   * MCP server. Only for tests against local servers; never in production.
   */
  dangerouslyAllowInsecureHttp?: boolean;
}

/** Where a recovery found the server's authorization server. */
interface Target {
  resource: string;
  prm: DiscoveredResource | undefined;
  as: DiscoveredAuthorizationServer;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
/**
 * A token is refreshed before sending once it is this close to its recorded expiry (it is
 * then as good as expired). Earlier renewal would turn short-lived tokens into a refresh
 * per request; a token that expires in flight gets a 401, which refreshes and replays.
 */
const EXPIRY_SKEW_MS = 1_000;
/** Bound on the attempts of one request (challenges, replays). */
const MAX_ROUNDS = 8;
/** Most redirects an authorized request follows (as fetch does). */
const MAX_REDIRECTS = 20;

function discard(response: Response): void {
  if (response.body && !response.bodyUsed) response.body.cancel().catch(() => undefined);
}

function unionScopes(...lists: Array<string | undefined>): string[] {
  const out: string[] = [];
  for (const list of lists) for (const s of splitScopes(list)) if (!out.includes(s)) out.push(s);
  return out;
}

function isReplayableBody(body: unknown): boolean {
  return (
    body === undefined ||
    body === null ||
    typeof body === 'string' ||
    body instanceof URLSearchParams ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    (typeof FormData !== 'undefined' && body instanceof FormData)
  );
}

/**
 * Reads a dynamic registration response (RFC 7591 §3.2): 201 (or 200) with a JSON object
 * holding a `client_id`. Lenient where servers commonly are not exact (a missing
 * `client_secret_expires_at` means the secret does not expire). Throws
 * {@link OAuthClientError} `registration_failed` with the server's OAuth error.
 */
async function registrationResponse(response: Response, what: string): Promise<Record<string, unknown> & { client_id: string }> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const record = isObject(body) ? body : {};
  if (response.status !== 201 && response.status !== 200) {
    const error = typeof record.error === 'string' ? record.error : undefined;
    const description = typeof record.error_description === 'string' ? `: ${record.error_description}` : '';
    throw new OAuthClientError('registration_failed', `${what} failed with HTTP ${response.status}${error ? ` ${error}${description}` : ''}`, {
      oauthError: error,
      status: response.status,
    });
  }
  if (typeof record.client_id !== 'string' || record.client_id === '')
    throw new OAuthClientError('registration_failed', `${what} answered without a client_id`);
  if (record.client_secret !== undefined && typeof record.client_secret !== 'string')
    throw new OAuthClientError('registration_failed', `${what} answered a malformed client_secret`);
  return record as Record<string, unknown> & { client_id: string };
}

/**
 * The OAuth client of one MCP server. Pass it as the `auth` option of
 * `StreamableHttpClientTransport` / `SseClientTransport`, or use {@link OAuthClient.fetch}.
 * Methods reject with {@link OAuthClientError}; see the module's design note.
 */
export class OAuthClient implements HttpAuthorization {
  readonly #server: URL;
  readonly #serverKey: string;
  readonly #options: OAuthClientOptions;
  readonly #store: OAuthStore;
  readonly #http: HttpContext;
  readonly #maxStepUps: number;
  #dpop: Promise<DpopProver> | undefined;
  #target: Target | undefined;
  /** The recovery in progress (a mutex: one flow at a time). */
  #lock: Promise<unknown> = Promise.resolve();

  /** Throws {@link OAuthClientError} `insecure_url` / `invalid_configuration` for unusable options. */
  constructor(options: OAuthClientOptions) {
    const insecure = options.dangerouslyAllowInsecureHttp === true;
    this.#server = requireFetchableUrl(options.serverUrl, 'The MCP server URL', insecure);
    this.#server.hash = '';
    this.#serverKey = canonicalServerUri(this.#server);
    this.#options = options;
    this.#store = options.store ?? new InMemoryOAuthStore();
    const fetchFn = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (typeof fetchFn !== 'function') throw new OAuthClientError('invalid_configuration', 'No global fetch is available; pass options.fetch');
    this.#http = { fetch: fetchFn, timeoutMs: options.timeoutMs ?? 30_000, allowInsecure: insecure, protocolVersion: options.protocolVersion };
    this.#maxStepUps = options.maxStepUps ?? 2;
    if (!Number.isInteger(this.#maxStepUps) || this.#maxStepUps < 0)
      throw new OAuthClientError('invalid_configuration', 'maxStepUps must be a non-negative integer');
    const grant = options.grant;
    if (grant.type === 'authorization_code') requireRedirectUri(grant.redirectUri);
    if (options.clientIdMetadataDocumentUrl !== undefined) {
      const url = requireFetchableUrl(options.clientIdMetadataDocumentUrl, 'The client ID metadata document URL', false);
      if (url.pathname === '/' || url.pathname === '')
        throw new OAuthClientError('invalid_configuration', 'The client ID metadata document URL must have a path (SEP-991)');
    }
    if (options.dpop !== undefined && options.dpop !== false) {
      const d = options.dpop;
      this.#dpop = d === true ? DpopProver.generate() : Promise.resolve(new DpopProver(d.keyPair, d.alg));
      this.#dpop.catch(() => undefined);
    }
  }

  /** The MCP server this client authorizes for. */
  get serverUrl(): URL {
    return new URL(this.#server);
  }

  /** The tokens held for the server, if any (from the store). */
  async tokens(): Promise<StoredTokens | undefined> {
    return (await this.#store.getTokens(this.#serverKey)) ?? undefined;
  }

  /** Forgets the server's tokens (the registration at its authorization server stays). */
  async signOut(): Promise<void> {
    await this.#store.deleteTokens(this.#serverKey);
  }

  /** {@link HttpAuthorization}: a fetch that authorizes requests to the server's origin. */
  wrapFetch(inner: typeof globalThis.fetch): typeof globalThis.fetch {
    return (input, init) => this.#send(inner, input, init);
  }

  /** An authorized fetch over `options.fetch` (or the global fetch), for requests of your own. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    return this.#send(this.#http.fetch, input, init);
  }

  /**
   * Runs discovery and the grant now, without waiting for a 401 (and without a challenge:
   * scopes come from `scope` or the resource metadata). Resolves with the new tokens.
   */
  authorize(options: { scope?: string } = {}): Promise<StoredTokens> {
    return this.#locked(async () => {
      const target = await this.#discover(undefined, undefined);
      const current = await this.#usableTokens();
      const scope = this.#selectScope(target, options.scope, current?.requestedScope);
      return this.#obtain(target, scope);
    });
  }

  /**
   * Completes an authorization whose user agent ran elsewhere (after `authorization_required`):
   * `callback` is the redirect back (URL, query string or parameters). Validates `state`
   * (against a pending authorization of this server), `iss` and errors, exchanges the code
   * and stores the tokens. Rejects with {@link OAuthClientError} `authorization_failed` /
   * `token_request_failed`.
   */
  finishAuthorization(callback: URL | URLSearchParams | string): Promise<StoredTokens> {
    return this.#locked(() => this.#finish(callback, undefined));
  }

  // ───────────── requests ─────────────

  async #send(inner: typeof fetch, input: string | URL | Request, init: RequestInit | undefined, hops = 0): Promise<Response> {
    const isRequest = typeof Request !== 'undefined' && input instanceof Request;
    const url = new URL(isRequest ? (input as Request).url : String(input));
    if (url.origin !== this.#server.origin) return inner(input, init);
    const callerRedirect = init?.redirect ?? (isRequest ? (input as Request).redirect : 'follow');
    const method = (init?.method ?? (isRequest ? (input as Request).method : 'GET')).toUpperCase();
    const template = isRequest ? new Request(input as Request, init) : undefined;
    const replayable = template ? true : isReplayableBody(init?.body);
    const baseHeaders = template ? template.headers : new Headers(init?.headers);
    const protocolVersion = baseHeaders.get('mcp-protocol-version') ?? undefined;
    let reauthorized = false;
    let nonceRetried = false;
    let stepUps = 0;
    for (let round = 0; ; round++) {
      const tokens = await this.#usableTokens(true);
      const headers = new Headers(baseHeaders);
      if (tokens) await this.#authorizeHeaders(headers, method, url, tokens);
      // with credentials attached, redirects are followed here, so that none of them crosses origins
      const byHand = tokens !== undefined && callerRedirect === 'follow';
      const response = template
        ? await inner(new Request(template.clone(), { headers, ...(byHand ? { redirect: 'manual' as const } : {}) }))
        : await inner(input, { ...init, headers, ...(byHand ? { redirect: 'manual' as const } : {}) });
      if (byHand && REDIRECT_STATUSES.has(response.status) && response.headers.has('location')) {
        if (tokens?.tokenType === 'DPoP') (await this.#dpop)?.noteNonce(url, response.headers);
        return this.#redirected(inner, url, method, template, init, baseHeaders, response, hops);
      }
      if (response.status !== 401 && response.status !== 403) {
        if (tokens?.tokenType === 'DPoP') (await this.#dpop)?.noteNonce(url, response.headers);
        return response;
      }
      if (!replayable || round >= MAX_ROUNDS - 1) return response;
      const challenge = resourceChallenge(response.headers);
      if (response.status === 401) {
        if (tokens?.tokenType === 'DPoP' && isDpopNonceChallenge(response.headers)) {
          const fresh = (await this.#dpop)?.noteNonce(url, response.headers) ?? false;
          if (fresh && !nonceRetried) {
            nonceRetried = true;
            discard(response);
            continue;
          }
        }
        if (reauthorized) return response;
        discard(response);
        await this.#recoverUnauthorized(challenge, tokens, protocolVersion);
        reauthorized = true;
        continue;
      }
      // 403: only insufficient_scope is ours to answer
      if (challenge?.error !== 'insufficient_scope' || tokens === undefined || stepUps >= this.#maxStepUps) return response;
      const challenged = splitScopes(challenge.scope);
      const granted = splitScopes(tokens.scope);
      if (challenged.length === 0 || challenged.every((s) => granted.includes(s))) return response;
      discard(response);
      await this.#recoverScope(challenge, tokens, protocolVersion);
      stepUps++;
    }
  }

  /**
   * Follows a redirect of an authorized request: to the server's origin, authorized again
   * (a fresh DPoP proof for the new URL); to another origin, with only the allow-listed
   * headers (`redirect-headers.ts`: no `authorization`, `dpop`, cookies or API keys), and
   * never with a request body (the redirect response is returned instead). At most
   * {@link MAX_REDIRECTS} hops; past them, or for an unusable `Location`, the redirect
   * response itself is returned.
   */
  async #redirected(
    inner: typeof fetch,
    from: URL,
    method: string,
    template: Request | undefined,
    init: RequestInit | undefined,
    baseHeaders: Headers,
    response: Response,
    hops: number,
  ): Promise<Response> {
    if (hops >= MAX_REDIRECTS) return response;
    let next: URL;
    try {
      next = new URL(response.headers.get('location')!, from);
    } catch {
      return response;
    }
    if (next.protocol !== 'https:' && next.protocol !== 'http:') return response;
    const { method: nextMethod, dropBody } = redirectedMethod(response.status, method);
    const hasBody = !dropBody && (template !== undefined ? template.body !== null : init?.body !== undefined && init.body !== null);
    const sameOrigin = next.origin === from.origin;
    if (!sameOrigin && hasBody) return response;
    discard(response);
    const headers = sameOrigin ? new Headers(baseHeaders) : crossOriginHeaders(baseHeaders);
    if (dropBody) headers.delete('content-type');
    const body = !hasBody ? undefined : template !== undefined ? await template.clone().arrayBuffer() : init!.body!;
    const signal = init?.signal ?? template?.signal;
    const nextInit: RequestInit = { method: nextMethod, headers, ...(body !== undefined ? { body } : {}), ...(signal ? { signal } : {}) };
    return sameOrigin ? this.#send(inner, next.href, nextInit, hops + 1) : inner(next.href, nextInit);
  }

  async #authorizeHeaders(headers: Headers, method: string, url: URL, tokens: StoredTokens): Promise<void> {
    if (tokens.tokenType === 'DPoP') {
      const prover = await this.#dpop!;
      headers.set('authorization', `DPoP ${tokens.accessToken}`);
      headers.set('dpop', await prover.proof(method, url, tokens.accessToken));
    } else {
      headers.set('authorization', `Bearer ${tokens.accessToken}`);
    }
  }

  /**
   * The stored tokens when they can be used: a DPoP token only with the key it is bound
   * to. With `refreshIfExpired`, an expired token is refreshed first when that is possible
   * without discovery (a known authorization server and a refresh token).
   */
  async #usableTokens(refreshIfExpired = false): Promise<StoredTokens | undefined> {
    let tokens = (await this.#store.getTokens(this.#serverKey)) ?? undefined;
    if (tokens === undefined) return undefined;
    if (tokens.tokenType === 'DPoP') {
      const prover = this.#dpop ? await this.#dpop : undefined;
      if (prover === undefined || (tokens.dpopJkt !== undefined && tokens.dpopJkt !== (await prover.thumbprint()))) return undefined;
    }
    if (refreshIfExpired && tokens.expiresAt !== undefined && Date.now() > tokens.expiresAt - EXPIRY_SKEW_MS && tokens.refreshToken !== undefined) {
      const target = this.#target;
      if (target !== undefined && target.as.metadata.issuer === tokens.issuer && target.resource === tokens.resource) {
        const expired = tokens;
        tokens = await this.#locked(async () => {
          const now = (await this.#store.getTokens(this.#serverKey)) ?? undefined;
          if (now === undefined || now.accessToken !== expired.accessToken) return now;
          return this.#refresh(target, now).catch(() => now);
        });
      }
    }
    return tokens;
  }

  /** Runs `task` when no other recovery runs (serializes flows). */
  #locked<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(task);
    this.#lock = run.catch(() => undefined);
    return run;
  }

  /** 401: refresh, else authorize anew — unless another request already replaced the token used. */
  #recoverUnauthorized(challenge: ResourceChallenge | undefined, used: StoredTokens | undefined, protocolVersion: string | undefined): Promise<unknown> {
    return this.#locked(async () => {
      const current = await this.#usableTokens();
      if (current !== undefined && current.accessToken !== used?.accessToken) return;
      const target = await this.#discover(challenge, protocolVersion);
      if (current?.refreshToken !== undefined && current.issuer === target.as.metadata.issuer && current.resource === target.resource) {
        try {
          await this.#refresh(target, current);
          return;
        } catch (err) {
          // the server refused the refresh token: forget the tokens and authorize anew
          if (!(err instanceof OAuthClientError) || err.oauthError === undefined) throw err;
          await this.#store.deleteTokens(this.#serverKey);
        }
      }
      const scope = this.#selectScope(target, challenge?.scope, current?.requestedScope);
      await this.#obtain(target, scope);
    });
  }

  /** 403 insufficient_scope: authorize again with the accumulated scopes (SEP-2350). */
  #recoverScope(challenge: ResourceChallenge, used: StoredTokens, protocolVersion: string | undefined): Promise<unknown> {
    return this.#locked(async () => {
      const current = await this.#usableTokens();
      if (current !== undefined && current.accessToken !== used.accessToken) return;
      const target = await this.#discover(challenge, protocolVersion);
      const previous = current?.issuer === target.as.metadata.issuer ? (current.requestedScope ?? current.scope) : undefined;
      const scope = this.#finalScope(target, unionScopes(previous, challenge.scope));
      await this.#obtain(target, scope);
    });
  }

  // ───────────── discovery ─────────────

  async #discover(challenge: ResourceChallenge | undefined, protocolVersion: string | undefined): Promise<Target> {
    const http: HttpContext = protocolVersion === undefined ? this.#http : { ...this.#http, protocolVersion };
    const prm = await discoverProtectedResource(http, this.#server, challenge?.resourceMetadata);
    let target: Target;
    if (prm !== undefined) {
      const issuers = prm.metadata.authorization_servers ?? [];
      if (issuers.length === 0)
        throw new OAuthClientError('discovery_failed', `The protected resource metadata at ${prm.url.href} names no authorization server`);
      let found: DiscoveredAuthorizationServer | undefined;
      let lastError: unknown;
      for (const issuer of issuers) {
        try {
          found = await discoverAuthorizationServer(http, issuer);
          break;
        } catch (err) {
          if (!(err instanceof OAuthClientError) || err.code !== 'discovery_failed') throw err;
          lastError = err;
        }
      }
      if (found === undefined) throw lastError as Error;
      target = { resource: prm.metadata.resource, prm, as: found };
    } else {
      target = { resource: this.#serverKey, prm: undefined, as: await discoverLegacyAuthorizationServer(http, this.#server) };
    }
    this.#target = target;
    return target;
  }

  /** Scope selection (MCP 2025-11-25): the challenge's, else the resource's `scopes_supported`, else none; plus earlier ones. */
  #selectScope(target: Target, challenged: string | undefined, previous: string | undefined): string | undefined {
    const base = challenged !== undefined && challenged.trim() !== '' ? challenged : target.prm?.metadata.scopes_supported?.join(' ');
    return this.#finalScope(target, unionScopes(previous, base));
  }

  /** Adds `offline_access` when wanted and offered (SEP-2207); undefined for no scope at all. */
  #finalScope(target: Target, scopes: string[]): string | undefined {
    const offered = target.as.metadata.scopes_supported;
    if (
      this.#options.grant.type === 'authorization_code' &&
      this.#options.offlineAccess !== false &&
      Array.isArray(offered) &&
      offered.includes('offline_access') &&
      !scopes.includes('offline_access')
    ) {
      scopes = [...scopes, 'offline_access'];
    }
    return scopes.length > 0 ? scopes.join(' ') : undefined;
  }

  // ───────────── registration ─────────────

  async #preRegistered(issuer: string): Promise<Omit<PreRegisteredClient, 'issuer'> | undefined> {
    const pre = this.#options.preRegistered;
    if (pre === undefined) return undefined;
    if (typeof pre === 'function') return (await pre(issuer)) ?? undefined;
    const list = Array.isArray(pre) ? pre : [pre];
    return list.find((p) => p.issuer === issuer);
  }

  /** The credentials to use at `as`, registering when needed. */
  async #credentialsFor(as: oauth.AuthorizationServer): Promise<ClientCredentials> {
    const issuer = as.issuer;
    const supported = Array.isArray(as.token_endpoint_auth_methods_supported) ? as.token_endpoint_auth_methods_supported : undefined;
    const pre = await this.#preRegistered(issuer);
    if (pre !== undefined) {
      let method = pre.tokenEndpointAuthMethod;
      if (method === undefined) {
        if (pre.privateKey !== undefined) method = 'private_key_jwt';
        else if (pre.clientSecret !== undefined)
          method =
            supported === undefined || supported.includes('client_secret_basic') || !supported.includes('client_secret_post')
              ? 'client_secret_basic'
              : 'client_secret_post';
        else method = 'none';
      }
      return { clientId: pre.clientId, clientSecret: pre.clientSecret, privateKey: pre.privateKey, keyId: pre.keyId, method };
    }
    if (this.#options.grant.type !== 'authorization_code') {
      throw new OAuthClientError('registration_failed', `The ${this.#options.grant.type} grant needs pre-registered credentials for ${issuer}`);
    }
    const redirectUri = this.#options.grant.redirectUri;
    const stored = (await this.#store.getClient(issuer)) ?? undefined;
    if (stored !== undefined && stored.issuer === issuer && this.#storedUsable(stored, redirectUri)) {
      return {
        clientId: stored.clientId,
        clientSecret: stored.clientSecret,
        method: stored.tokenEndpointAuthMethod ?? (stored.clientSecret ? 'client_secret_basic' : 'none'),
      };
    }
    const cimd = this.#options.clientIdMetadataDocumentUrl;
    if (cimd !== undefined && (as as { client_id_metadata_document_supported?: unknown }).client_id_metadata_document_supported === true) {
      return { clientId: cimd, method: 'none' };
    }
    if (this.#options.dynamicRegistration !== false && typeof as.registration_endpoint === 'string') {
      const registered = await this.#register(as, redirectUri, supported);
      await this.#store.saveClient(issuer, registered);
      return { clientId: registered.clientId, clientSecret: registered.clientSecret, method: registered.tokenEndpointAuthMethod ?? 'none' };
    }
    throw new OAuthClientError(
      'registration_failed',
      `No client registration for ${issuer}: no pre-registered credentials, no client ID metadata document support, no dynamic registration`,
    );
  }

  #storedUsable(stored: StoredClient, redirectUri: string): boolean {
    if (stored.clientSecretExpiresAt !== undefined && stored.clientSecretExpiresAt > 0 && stored.clientSecretExpiresAt * 1000 <= Date.now()) return false;
    if (stored.redirectUris !== undefined && !stored.redirectUris.some((r) => sameRedirectUri(r, redirectUri))) return false;
    return true;
  }

  async #register(as: oauth.AuthorizationServer, redirectUri: string, supported: string[] | undefined): Promise<StoredClient> {
    const lib = await loadOAuth();
    requireFetchableUrl(as.registration_endpoint!, 'The registration endpoint', this.#http.allowInsecure);
    const preferences: TokenEndpointAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];
    const method = supported === undefined ? 'client_secret_basic' : (preferences.find((m) => supported.includes(m)) ?? 'client_secret_basic');
    const meta = this.#options.clientMetadata ?? { clientName: 'mcpkit client' };
    const redirect = new URL(redirectUri);
    const body: Record<string, unknown> = {
      client_name: meta.clientName,
      redirect_uris: [redirectUri],
      grant_types: this.#options.offlineAccess === false ? ['authorization_code'] : ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: method,
      application_type: meta.applicationType ?? (redirect.protocol === 'http:' ? 'native' : 'web'),
    };
    if (meta.clientUri !== undefined) body.client_uri = meta.clientUri;
    if (meta.logoUri !== undefined) body.logo_uri = meta.logoUri;
    if (meta.softwareId !== undefined) body.software_id = meta.softwareId;
    if (meta.softwareVersion !== undefined) body.software_version = meta.softwareVersion;
    const what = `Dynamic client registration at ${as.registration_endpoint}`;
    let response: Response;
    try {
      response = await lib.dynamicClientRegistrationRequest(
        as,
        body as Partial<oauth.OmitSymbolProperties<oauth.Client>>,
        requestOptions<string>(lib, this.#http),
      );
    } catch (err) {
      const e = tokenError(err, what);
      throw new OAuthClientError(e.code === 'timeout' ? 'timeout' : 'registration_failed', e.message, { cause: err });
    }
    const registered = await registrationResponse(response, what);
    const result: StoredClient = {
      issuer: as.issuer,
      clientId: registered.client_id,
      method: 'dynamic',
      registeredAt: Date.now(),
      redirectUris: [redirectUri],
    };
    if (typeof registered.client_secret === 'string') result.clientSecret = registered.client_secret;
    if (typeof registered.client_secret_expires_at === 'number') result.clientSecretExpiresAt = registered.client_secret_expires_at;
    const answered = registered.token_endpoint_auth_method;
    if (answered === 'none' || answered === 'client_secret_basic' || answered === 'client_secret_post' || answered === 'private_key_jwt')
      result.tokenEndpointAuthMethod = answered;
    else result.tokenEndpointAuthMethod = answered === undefined ? (result.clientSecret !== undefined && method !== 'none' ? method : 'none') : method;
    return result;
  }

  // ───────────── grants ─────────────

  async #tokenContext(as: oauth.AuthorizationServer): Promise<TokenContext> {
    let dpop: DpopProver | undefined;
    if (this.#dpop !== undefined) {
      const prover = await this.#dpop;
      const algs = (as as { dpop_signing_alg_values_supported?: unknown }).dpop_signing_alg_values_supported;
      if (Array.isArray(algs) && algs.includes(prover.alg)) dpop = prover;
    }
    return { http: this.#http, dpop };
  }

  async #save(tokens: StoredTokens): Promise<StoredTokens> {
    await this.#store.saveTokens(this.#serverKey, tokens);
    return tokens;
  }

  async #obtain(target: Target, scope: string | undefined): Promise<StoredTokens> {
    const grant = this.#options.grant;
    switch (grant.type) {
      case 'authorization_code':
        return this.#authorizationCode(target, grant, scope);
      case 'client_credentials':
        return this.#clientCredentials(target, scope);
      case 'jwt_bearer':
        return this.#jwtBearer(target, scope, await grant.assertion(this.#assertionContext(target)));
      case 'enterprise_managed':
        return this.#enterprise(target, grant, scope);
    }
  }

  #assertionContext(target: Target): AssertionContext {
    return { issuer: target.as.metadata.issuer, tokenEndpoint: String(target.as.metadata.token_endpoint ?? ''), resource: target.resource };
  }

  async #authorizationCode(target: Target, grant: AuthorizationCodeGrant, scope: string | undefined): Promise<StoredTokens> {
    const lib = await loadOAuth();
    const as = target.as.metadata;
    if (target.as.source !== 'legacy-defaults') {
      const methods = as.code_challenge_methods_supported;
      if (!Array.isArray(methods) || !methods.includes('S256')) {
        throw new OAuthClientError(
          'pkce_unsupported',
          `The authorization server ${as.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported); refusing to proceed`,
        );
      }
    }
    if (typeof as.authorization_endpoint !== 'string')
      throw new OAuthClientError('discovery_failed', `The authorization server ${as.issuer} has no authorization_endpoint`);
    const endpoint = requireFetchableUrl(as.authorization_endpoint, 'The authorization endpoint', this.#http.allowInsecure);
    const credentials = await this.#credentialsFor(as);
    const codeVerifier = lib.generateRandomCodeVerifier();
    const state = lib.generateRandomState();
    const url = new URL(endpoint);
    const params = url.searchParams;
    params.set('response_type', 'code');
    params.set('client_id', credentials.clientId);
    params.set('redirect_uri', grant.redirectUri);
    params.set('state', state);
    params.set('code_challenge', await lib.calculatePKCECodeChallenge(codeVerifier));
    params.set('code_challenge_method', 'S256');
    params.set('resource', target.resource);
    if (scope !== undefined) params.set('scope', scope);
    const ctx = await this.#tokenContext(as);
    if (ctx.dpop) params.set('dpop_jkt', await ctx.dpop.thumbprint());
    requireBrowserUrl(url);
    const pending: PendingAuthorization = {
      issuer: as.issuer,
      serverKey: this.#serverKey,
      resource: target.resource,
      clientId: credentials.clientId,
      redirectUri: grant.redirectUri,
      codeVerifier,
      createdAt: Date.now(),
    };
    if (scope !== undefined) pending.scope = scope;
    await this.#store.savePendingAuthorization(state, pending);
    if (grant.userAgent === undefined) {
      throw new OAuthClientError('authorization_required', `The user must authorize this client at ${url.origin}`, { authorizationUrl: url });
    }
    let callback: URL | URLSearchParams | string;
    try {
      callback = await grant.userAgent({ url, state, redirectUri: grant.redirectUri, issuer: as.issuer });
    } catch (err) {
      await this.#store.takePendingAuthorization(state);
      if (err instanceof OAuthClientError) throw err;
      throw new OAuthClientError('authorization_failed', `The authorization did not complete: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    return this.#finish(callback, { target, credentials, expectedState: state });
  }

  async #finish(
    callback: URL | URLSearchParams | string,
    known: { target: Target; credentials: ClientCredentials; expectedState: string } | undefined,
  ): Promise<StoredTokens> {
    const lib = await loadOAuth();
    let params: URLSearchParams;
    let fromUrl: URL | undefined;
    if (callback instanceof URLSearchParams) params = callback;
    else if (callback instanceof URL || /^[a-z][a-z0-9+.-]*:/i.test(callback)) {
      fromUrl = new URL(callback);
      params = fromUrl.searchParams;
    } else params = new URLSearchParams(callback.startsWith('?') ? callback.slice(1) : callback);
    const state = params.get('state');
    if (known !== undefined && state !== known.expectedState) {
      throw new OAuthClientError(
        'authorization_failed',
        state === null ? 'The authorization response has no state' : 'The authorization response carries another state than the request; discarded',
      );
    }
    if (state === null) throw new OAuthClientError('authorization_failed', 'The authorization response has no state');
    const pending = (await this.#store.takePendingAuthorization(state)) ?? undefined;
    if (pending === undefined || pending.serverKey !== this.#serverKey) {
      throw new OAuthClientError(
        'authorization_failed',
        'The authorization response does not match an authorization request of this client in progress (unknown or expired state)',
      );
    }
    if (fromUrl !== undefined) {
      const back = `${fromUrl.origin}${fromUrl.pathname}`;
      const expected = new URL(pending.redirectUri);
      if (!sameRedirectUri(back, `${expected.origin}${expected.pathname}`))
        throw new OAuthClientError('authorization_failed', 'The authorization response did not come to the redirect URI of the request');
    }
    let target = known?.target;
    if (target === undefined) {
      target = this.#target !== undefined && this.#target.as.metadata.issuer === pending.issuer ? this.#target : await this.#discover(undefined, undefined);
      if (target.as.metadata.issuer !== pending.issuer)
        throw new OAuthClientError('authorization_failed', 'The MCP server’s authorization server changed while the user was authorizing');
    }
    const as = target.as.metadata;
    const credentials = known?.credentials ?? (await this.#credentialsFor(as));
    if (credentials.clientId !== pending.clientId)
      throw new OAuthClientError('authorization_failed', 'The client registration changed while the user was authorizing');
    const client = oauthClient(credentials);
    let validated: URLSearchParams;
    try {
      validated = lib.validateAuthResponse(as, client, params, state);
    } catch (err) {
      const e = err as { code?: unknown; error?: unknown; error_description?: unknown };
      if (e.code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR' && typeof e.error === 'string') {
        const description = typeof e.error_description === 'string' ? `: ${e.error_description}` : '';
        throw new OAuthClientError('authorization_failed', `The authorization server answered ${e.error}${description}`, { cause: err, oauthError: e.error });
      }
      throw new OAuthClientError('authorization_failed', `The authorization response is invalid: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    const ctx = await this.#tokenContext(as);
    const auth = await clientAuthentication(credentials);
    const response = await tokenExchange(
      ctx,
      as,
      'The authorization code exchange',
      (headers) =>
        lib.authorizationCodeGrantRequest(as, client, auth, validated, pending.redirectUri, pending.codeVerifier, {
          ...requestOptions(lib, this.#http),
          headers,
          additionalParameters: { resource: pending.resource },
        }),
      (r) => lib.processAuthorizationCodeResponse(as, client, r),
    );
    return this.#save(
      storedTokens(response, { issuer: as.issuer, resource: pending.resource, requestedScope: pending.scope, dpopJkt: await ctx.dpop?.thumbprint() }),
    );
  }

  async #refresh(target: Target, tokens: StoredTokens): Promise<StoredTokens> {
    const lib = await loadOAuth();
    const as = target.as.metadata;
    const credentials = await this.#credentialsFor(as);
    const client = oauthClient(credentials);
    const auth = await clientAuthentication(credentials);
    const ctx = await this.#tokenContext(as);
    const response = await tokenExchange(
      ctx,
      as,
      'The refresh token grant',
      (headers) =>
        lib.refreshTokenGrantRequest(as, client, auth, tokens.refreshToken!, {
          ...requestOptions(lib, this.#http),
          headers,
          additionalParameters: { resource: tokens.resource },
        }),
      (r) => lib.processRefreshTokenResponse(as, client, r),
    );
    return this.#save(
      storedTokens(
        response,
        { issuer: as.issuer, resource: tokens.resource, requestedScope: tokens.requestedScope, dpopJkt: await ctx.dpop?.thumbprint() },
        tokens,
      ),
    );
  }

  async #clientCredentials(target: Target, scope: string | undefined): Promise<StoredTokens> {
    const lib = await loadOAuth();
    const as = target.as.metadata;
    const credentials = await this.#credentialsFor(as);
    const client = oauthClient(credentials);
    const auth = await clientAuthentication(credentials);
    const ctx = await this.#tokenContext(as);
    const parameters: Record<string, string> = { resource: target.resource };
    if (scope !== undefined) parameters.scope = scope;
    const response = await tokenExchange(
      ctx,
      as,
      'The client credentials grant',
      (headers) => lib.clientCredentialsGrantRequest(as, client, auth, parameters, { ...requestOptions(lib, this.#http), headers }),
      (r) => lib.processClientCredentialsResponse(as, client, r),
    );
    return this.#save(storedTokens(response, { issuer: as.issuer, resource: target.resource, requestedScope: scope, dpopJkt: await ctx.dpop?.thumbprint() }));
  }

  async #jwtBearer(target: Target, scope: string | undefined, assertion: string, credentials?: ClientCredentials): Promise<StoredTokens> {
    const lib = await loadOAuth();
    const as = target.as.metadata;
    const creds = credentials ?? (await this.#credentialsFor(as));
    const client = oauthClient(creds);
    const auth = await clientAuthentication(creds);
    const ctx = await this.#tokenContext(as);
    const parameters: Record<string, string> = { assertion, resource: target.resource };
    if (scope !== undefined) parameters.scope = scope;
    const response = await tokenExchange(
      ctx,
      as,
      'The JWT bearer grant',
      (headers) => lib.genericTokenEndpointRequest(as, client, auth, JWT_BEARER, parameters, { ...requestOptions(lib, this.#http), headers }),
      (r) => lib.processGenericTokenEndpointResponse(as, client, r),
    );
    return this.#save(storedTokens(response, { issuer: as.issuer, resource: target.resource, requestedScope: scope, dpopJkt: await ctx.dpop?.thumbprint() }));
  }

  async #enterprise(target: Target, grant: EnterpriseManagedGrant, scope: string | undefined): Promise<StoredTokens> {
    const lib = await loadOAuth();
    const as = target.as.metadata;
    const credentials = await this.#credentialsFor(as);
    const idp = grant.identityProvider;
    const idpEndpoint = requireFetchableUrl(idp.tokenEndpoint, 'The identity provider token endpoint', this.#http.allowInsecure);
    const idpAs: oauth.AuthorizationServer = { issuer: idp.issuer ?? idpEndpoint.origin, token_endpoint: idpEndpoint.href };
    const idpCredentials: ClientCredentials = {
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      method: idp.clientSecret ? 'client_secret_basic' : 'none',
    };
    const idpClient = oauthClient(idpCredentials);
    const idpAuth = await clientAuthentication(idpCredentials);
    const subjectToken = await grant.subjectToken(this.#assertionContext(target));
    const parameters: Record<string, string> = {
      requested_token_type: ID_JAG,
      subject_token: subjectToken,
      subject_token_type: grant.subjectTokenType ?? ID_TOKEN,
      audience: as.issuer,
      resource: target.resource,
    };
    if (scope !== undefined) parameters.scope = scope;
    const exchanged = await tokenExchange(
      { http: this.#http, dpop: undefined },
      idpAs,
      'The token exchange at the identity provider',
      (headers) => lib.genericTokenEndpointRequest(idpAs, idpClient, idpAuth, TOKEN_EXCHANGE, parameters, { ...requestOptions(lib, this.#http), headers }),
      (r) => lib.processGenericTokenEndpointResponse(idpAs, idpClient, r, { recognizedTokenTypes: { n_a: () => undefined } }),
    );
    if (exchanged.issued_token_type !== ID_JAG) {
      throw new OAuthClientError(
        'token_request_failed',
        `The identity provider issued ${JSON.stringify(exchanged.issued_token_type)} instead of an identity assertion authorization grant`,
      );
    }
    return this.#jwtBearer(target, scope, exchanged.access_token, credentials);
  }
}
