/**
 * The HMAC keys behind the tokens mcpkit mints and checks itself (`requestState`, the
 * gateway's task ids and cursors), from a secret the caller may give. Runtime-neutral (Web
 * Crypto).
 */

/**
 * The bytes of `secret`: 32 random bytes when undefined, the UTF-8 of a string, or the bytes
 * given. Throws RangeError `"<what> must be at least 16 bytes"` for a shorter one.
 */
export function secretBytes(secret: string | Uint8Array | undefined, what: string): Uint8Array {
  const bytes = secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (bytes.length < 16) throw new RangeError(`${what} must be at least 16 bytes`);
  return bytes;
}

/** An HMAC-SHA-256 key of `bytes` for `usages`. */
export function hmacKey(bytes: Uint8Array, usages: KeyUsage[]): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, usages);
}
