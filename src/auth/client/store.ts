/**
 * The state an OAuth client keeps, and where it keeps it: client registrations per
 * authorization server (issuer), tokens per MCP server, and authorization requests in
 * flight (their PKCE code verifier, keyed by `state`).
 *
 * Design note: {@link OAuthStore} is the provider interface applications implement to keep
 * this state wherever they like (a keychain, a database); every method may be synchronous
 * or return a promise. Registrations are keyed by issuer and the OAuth client only ever
 * asks for the issuer it is talking to, so credentials are never reused with another
 * authorization server. {@link InMemoryOAuthStore} keeps everything in maps (lost on
 * exit); `FileOAuthStore` (file-store.ts) keeps it in a JSON file.
 */

/** How a client registration was obtained. */
export type RegistrationMethod = 'pre-registered' | 'metadata-document' | 'dynamic';

/** Token endpoint authentication methods the OAuth client implements. */
export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** A client registration at one authorization server. */
export interface StoredClient {
  /** The authorization server's issuer identifier, exactly as in its metadata. */
  issuer: string;
  clientId: string;
  clientSecret?: string;
  /** Seconds since the epoch after which the secret is invalid (RFC 7591); 0 or absent: never. */
  clientSecretExpiresAt?: number;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** The redirect URIs the registration holds (dynamic registration). */
  redirectUris?: string[];
  method: RegistrationMethod;
  /** Milliseconds since the epoch. */
  registeredAt: number;
}

/** Tokens for one MCP server (one protected resource). */
export interface StoredTokens {
  /** Issuer of the authorization server that issued them. */
  issuer: string;
  /** The `resource` they were requested for (RFC 8707), exactly as sent. */
  resource: string;
  accessToken: string;
  /** `Bearer`, or `DPoP` for sender-constrained tokens (RFC 9449). */
  tokenType: 'Bearer' | 'DPoP';
  refreshToken?: string;
  /** Milliseconds since the epoch; absent when the server gave no lifetime. */
  expiresAt?: number;
  /** Space-separated scopes granted (the token response's `scope`, else those requested). */
  scope?: string;
  /** Space-separated scopes requested (kept to accumulate scopes on step-up). */
  requestedScope?: string;
  /** JWK thumbprint of the DPoP key a DPoP token is bound to. */
  dpopJkt?: string;
}

/** An authorization request in flight, between sending the user away and the redirect back. */
export interface PendingAuthorization {
  issuer: string;
  /** Key of the MCP server's tokens (its canonical URI). */
  serverKey: string;
  resource: string;
  clientId: string;
  redirectUri: string;
  /** The PKCE code verifier (RFC 7636); never leaves the client except in the token request. */
  codeVerifier: string;
  scope?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * Storage of the OAuth client's state. Implement it to keep credentials somewhere durable
 * and protected; the OAuth client awaits every call, and an exception fails the operation
 * that needed it. Implementations must store what they are given verbatim.
 */
export interface OAuthStore {
  /** The registration at `issuer`, if any. */
  getClient(issuer: string): MaybePromise<StoredClient | undefined>;
  saveClient(issuer: string, client: StoredClient): MaybePromise<void>;
  deleteClient(issuer: string): MaybePromise<void>;
  /** Tokens for the MCP server whose canonical URI is `serverKey`, if any. */
  getTokens(serverKey: string): MaybePromise<StoredTokens | undefined>;
  saveTokens(serverKey: string, tokens: StoredTokens): MaybePromise<void>;
  deleteTokens(serverKey: string): MaybePromise<void>;
  savePendingAuthorization(state: string, pending: PendingAuthorization): MaybePromise<void>;
  /** Returns and removes the pending authorization of `state` (one use only). */
  takePendingAuthorization(state: string): MaybePromise<PendingAuthorization | undefined>;
}

/** How long an authorization request may stay pending before a store may forget it. */
export const PENDING_AUTHORIZATION_TTL_MS = 15 * 60_000;

/** Most pending authorizations a store keeps; older ones are dropped first. */
export const MAX_PENDING_AUTHORIZATIONS = 64;

/** An {@link OAuthStore} in memory: fast, private to the process, gone when it exits. */
export class InMemoryOAuthStore implements OAuthStore {
  readonly #clients = new Map<string, StoredClient>();
  readonly #tokens = new Map<string, StoredTokens>();
  readonly #pending = new Map<string, PendingAuthorization>();

  getClient(issuer: string): StoredClient | undefined {
    return this.#clients.get(issuer);
  }
  saveClient(issuer: string, client: StoredClient): void {
    this.#clients.set(issuer, client);
  }
  deleteClient(issuer: string): void {
    this.#clients.delete(issuer);
  }
  getTokens(serverKey: string): StoredTokens | undefined {
    return this.#tokens.get(serverKey);
  }
  saveTokens(serverKey: string, tokens: StoredTokens): void {
    this.#tokens.set(serverKey, tokens);
  }
  deleteTokens(serverKey: string): void {
    this.#tokens.delete(serverKey);
  }
  savePendingAuthorization(state: string, pending: PendingAuthorization): void {
    prunePending(this.#pending, Date.now());
    this.#pending.set(state, pending);
  }
  takePendingAuthorization(state: string): PendingAuthorization | undefined {
    const pending = this.#pending.get(state);
    this.#pending.delete(state);
    if (pending !== undefined && Date.now() - pending.createdAt > PENDING_AUTHORIZATION_TTL_MS) return undefined;
    return pending;
  }
}

/** Drops expired entries, then the oldest ones beyond {@link MAX_PENDING_AUTHORIZATIONS} - 1. */
export function prunePending(pending: Map<string, PendingAuthorization>, now: number): void {
  for (const [state, p] of pending) if (now - p.createdAt > PENDING_AUTHORIZATION_TTL_MS) pending.delete(state);
  while (pending.size >= MAX_PENDING_AUTHORIZATIONS) pending.delete(pending.keys().next().value!);
}
