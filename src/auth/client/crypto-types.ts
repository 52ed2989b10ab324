/**
 * Web Crypto key types that compile in every consumer setup: with the DOM library they are the
 * DOM's `CryptoKey`, without it (a Node project with `lib: ["ES2023"]` and @types/node) jose's
 * structural equivalent. The DOM's `CryptoKey` and `CryptoKeyPair` are not global there.
 */
import type { CryptoKey as JoseCryptoKey } from 'jose';

/** A Web Crypto key (`crypto.subtle.generateKey`, `importKey`). */
export type WebCryptoKey = JoseCryptoKey;

/** A Web Crypto key pair, as `crypto.subtle.generateKey` returns for an asymmetric algorithm. */
export interface WebCryptoKeyPair {
  readonly publicKey: WebCryptoKey;
  readonly privateKey: WebCryptoKey;
}
