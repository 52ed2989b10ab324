/**
 * DPoP proofs (RFC 9449) for the OAuth client: one key pair per client, a fresh proof JWT
 * for every HTTP request (token endpoint and MCP server alike), and the nonces servers hand
 * out in `DPoP-Nonce` (RFC 9449 §8, §9), remembered per origin.
 *
 * Design note: a proof is `typ: dpop+jwt` with the public key as `jwk`, claims `jti`
 * (random), `htm`, `htu` (the request URL without query and fragment), `iat`, the current
 * nonce of the origin when there is one, and `ath` (base64url SHA-256 of the access token)
 * on resource requests. Signing uses `jose` (loaded on first use). The nonce memory is bounded (least recently
 * used origins are forgotten first).
 */

import type { JWK } from 'jose';
import type { WebCryptoKeyPair } from './crypto-types.js';
import { loadJose } from './libs.js';

/** Most origins whose nonce is remembered. */
const MAX_NONCE_ORIGINS = 64;

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]!);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function sha256Base64Url(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let s = '';
  for (let i = 0; i < digest.length; i++) s += String.fromCharCode(digest[i]!);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The `htu` of a request: its URL without query and fragment (RFC 9449 §4.2). */
export function dpopHtu(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * Signs DPoP proofs with one key pair and remembers server nonces. Created by the OAuth
 * client when DPoP is enabled; usable on its own.
 */
export class DpopProver {
  readonly #keyPair: WebCryptoKeyPair;
  readonly #alg: string;
  #jwk: JWK | undefined;
  #thumbprint: string | undefined;
  readonly #nonces = new Map<string, string>();

  /** `alg` must match the key (ES256 for a P-256 key). The public key must be extractable. */
  constructor(keyPair: WebCryptoKeyPair, alg = 'ES256') {
    this.#keyPair = keyPair;
    this.#alg = alg;
  }

  /** A prover with a fresh, non-extractable ES256 private key. */
  static async generate(alg = 'ES256'): Promise<DpopProver> {
    const jose = await loadJose();
    const pair = await jose.generateKeyPair(alg, { extractable: false });
    return new DpopProver(pair, alg);
  }

  /** The signing algorithm. */
  get alg(): string {
    return this.#alg;
  }

  async #publicJwk(): Promise<JWK> {
    if (!this.#jwk) {
      const jose = await loadJose();
      const { kty, crv, x, y, n, e } = await jose.exportJWK(this.#keyPair.publicKey);
      const jwk: JWK = { kty };
      if (crv !== undefined) jwk.crv = crv;
      if (x !== undefined) jwk.x = x;
      if (y !== undefined) jwk.y = y;
      if (n !== undefined) jwk.n = n;
      if (e !== undefined) jwk.e = e;
      this.#jwk = jwk;
    }
    return this.#jwk;
  }

  /** The JWK SHA-256 thumbprint of the public key (the `cnf.jkt` of bound tokens). */
  async thumbprint(): Promise<string> {
    const jose = await loadJose();
    this.#thumbprint ??= await jose.calculateJwkThumbprint(await this.#publicJwk(), 'sha256');
    return this.#thumbprint;
  }

  /**
   * A fresh proof for an `htm` request to `url`; with `accessToken`, bound to it (`ath`).
   * Includes the nonce last received from `url`'s origin.
   */
  async proof(htm: string, url: URL, accessToken?: string): Promise<string> {
    const claims: Record<string, unknown> = { htm: htm.toUpperCase(), htu: dpopHtu(url), jti: randomId() };
    const nonce = this.#nonces.get(url.origin);
    if (nonce !== undefined) claims.nonce = nonce;
    if (accessToken !== undefined) claims.ath = await sha256Base64Url(accessToken);
    const jose = await loadJose();
    return new jose.SignJWT(claims)
      .setProtectedHeader({ alg: this.#alg, typ: 'dpop+jwt', jwk: await this.#publicJwk() })
      .setIssuedAt()
      .sign(this.#keyPair.privateKey);
  }

  /** Remembers the `DPoP-Nonce` of a response from `url`'s origin; true when it changed. */
  noteNonce(url: URL, headers: Headers): boolean {
    const nonce = headers.get('dpop-nonce');
    if (nonce === null || nonce === '') return false;
    const origin = url.origin;
    const previous = this.#nonces.get(origin);
    this.#nonces.delete(origin);
    this.#nonces.set(origin, nonce);
    while (this.#nonces.size > MAX_NONCE_ORIGINS) this.#nonces.delete(this.#nonces.keys().next().value!);
    return previous !== nonce;
  }
}
