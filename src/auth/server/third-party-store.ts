/**
 * State of the third-party authorization server (`third-party.ts`) behind a small store
 * interface, with an in-memory implementation.
 *
 * Design notes:
 * - Records are plain JSON-serializable objects under a kind and a key, each with a
 *   lifetime: a durable implementation (SQL, Redis) stores them as JSON with an expiry.
 * - Tokens and codes are never stored: their keys are SHA-256 digests of them. Upstream
 *   tokens (the third-party server's) are stored sealed (AES-GCM) inside grant records.
 * - `take` reads and deletes atomically: authorization codes and upstream `state` values are
 *   single-use even with concurrent requests.
 */

/** The kinds of records the authorization server keeps. */
export type RecordKind = 'client' | 'browser' | 'transaction' | 'upstream_state' | 'code' | 'used_code' | 'access_token' | 'refresh_token' | 'grant';

/**
 * Where the third-party authorization server keeps its state. Implementations must be safe
 * for concurrent use, must make `take` atomic, must not return a record past its lifetime,
 * and may bound their size (dropping the records closest to expiry first). Values are
 * treated as immutable: store a new object to change one.
 */
export interface ThirdPartyStore {
  /** The record, or undefined when absent or expired. */
  get<T>(kind: RecordKind, key: string): Promise<T | undefined>;
  /** Stores (replaces) a record for `ttlSeconds` (> 0). */
  set<T>(kind: RecordKind, key: string, value: T, ttlSeconds: number): Promise<void>;
  /** Deletes a record; absent records are ignored. */
  delete(kind: RecordKind, key: string): Promise<void>;
  /** Returns the record and deletes it, atomically (single use). */
  take<T>(kind: RecordKind, key: string): Promise<T | undefined>;
}

/** A registered client (dynamic registration, pre-registration or a metadata document). */
export interface ClientRecord {
  client_id: string;
  /** SHA-256 (hex) of the secret of a confidential client. */
  client_secret_hash?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_basic' | 'client_secret_post';
  grant_types: string[];
  client_name?: string;
  client_uri?: string;
  /** Registered through a client ID metadata document (cached, not registered). */
  metadata_document?: boolean;
  /**
   * A dynamic registration that has not completed an authorization yet: kept
   * `unconfirmedClientTtlSeconds` within its own budget; cleared when its first code is
   * redeemed.
   */
  unconfirmed?: boolean;
}

/** One browser (user agent) that completed a sign-in, known by its cookie: the clients its user approved. */
export interface BrowserRecord {
  /** Client id → scopes approved for it. */
  consents: Record<string, string[]>;
}

/** An authorization request between `/authorize` and the code. */
export interface TransactionRecord {
  browser: string;
  clientId: string;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  /** The consent form's anti-CSRF token. */
  csrf: string;
}

/** An upstream `state` in flight: which transaction it belongs to and its PKCE verifier and nonce. */
export interface UpstreamStateRecord {
  transaction: string;
  verifier: string;
  nonce: string;
}

/** An authorization code issued to an MCP client. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  grant: string;
}

/** What a redeemed code leaves behind, so a second redemption can revoke what the first got. */
export interface UsedCodeRecord {
  grant: string;
}

/** An access token issued to an MCP client. */
export interface AccessTokenRecord {
  grant: string;
  clientId: string;
  scopes: string[];
  resource: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/** A refresh token issued to an MCP client. Rotated: each is used once. */
export interface RefreshTokenRecord {
  grant: string;
  clientId: string;
  scopes: string[];
  resource: string;
  /** Set once it was exchanged; a second use revokes the grant (replay detection). */
  used: boolean;
}

/**
 * One user's authorization of one client: the link between the MCP tokens issued for it
 * (they name the grant) and the upstream tokens (sealed here).
 */
export interface GrantRecord {
  subject: string;
  clientId: string;
  /** The upstream access and refresh tokens, sealed (see `third-party.ts`). */
  upstream: string;
  /** Upstream access token expiry, seconds since the epoch (undefined: unknown). */
  upstreamExpiresAt: number | undefined;
  /** When the grant was made, seconds since the epoch. */
  createdAt: number;
}

interface Entry {
  value: unknown;
  expires: number;
}

/** Options of {@link InMemoryThirdPartyStore}. */
export interface InMemoryThirdPartyStoreOptions {
  /** Most records of each kind; beyond it expired ones are swept, then the soonest-expiring dropped. Default 100 000. */
  maxRecordsPerKind?: number;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/**
 * The default store: one `Map` per kind in this process. State is lost on restart (every
 * issued token becomes invalid; users authorize again). Bounded per kind.
 */
export class InMemoryThirdPartyStore implements ThirdPartyStore {
  readonly #maps = new Map<RecordKind, Map<string, Entry>>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: InMemoryThirdPartyStoreOptions = {}) {
    this.#max = options.maxRecordsPerKind ?? 100_000;
    this.#now = options.now ?? Date.now;
    if (!(this.#max >= 1)) throw new RangeError('maxRecordsPerKind must be at least 1');
  }

  #map(kind: RecordKind): Map<string, Entry> {
    let map = this.#maps.get(kind);
    if (map === undefined) this.#maps.set(kind, (map = new Map()));
    return map;
  }

  #read(kind: RecordKind, key: string): Entry | undefined {
    const map = this.#map(kind);
    const entry = map.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.#now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  }

  get<T>(kind: RecordKind, key: string): Promise<T | undefined> {
    return Promise.resolve(this.#read(kind, key)?.value as T | undefined);
  }

  set<T>(kind: RecordKind, key: string, value: T, ttlSeconds: number): Promise<void> {
    if (!(ttlSeconds > 0)) return Promise.reject(new RangeError('ttlSeconds must be positive'));
    const map = this.#map(kind);
    if (!map.has(key) && map.size >= this.#max) this.#makeRoom(map);
    map.set(key, { value, expires: this.#now() + ttlSeconds * 1000 });
    return Promise.resolve();
  }

  delete(kind: RecordKind, key: string): Promise<void> {
    this.#map(kind).delete(key);
    return Promise.resolve();
  }

  take<T>(kind: RecordKind, key: string): Promise<T | undefined> {
    const entry = this.#read(kind, key);
    if (entry !== undefined) this.#map(kind).delete(key);
    return Promise.resolve(entry?.value as T | undefined);
  }

  /** Number of live records of `kind` (expired ones are swept first). */
  size(kind: RecordKind): number {
    const map = this.#map(kind);
    const now = this.#now();
    for (const [key, entry] of map) if (entry.expires <= now) map.delete(key);
    return map.size;
  }

  #makeRoom(map: Map<string, Entry>): void {
    const now = this.#now();
    for (const [key, entry] of map) if (entry.expires <= now) map.delete(key);
    if (map.size < this.#max) return;
    // drop the tenth closest to expiry
    const victims = [...map.entries()].sort((a, b) => a[1].expires - b[1].expires).slice(0, Math.max(1, Math.floor(this.#max / 10)));
    for (const [key] of victims) map.delete(key);
  }
}
