/**
 * The integrity fields of a skill file: `size` (the length of its raw bytes) and `digest`
 * (`sha256:` and the SHA-256 of those bytes in 64 lowercase hex digits). Text files are
 * hashed as their UTF-8 bytes, the form `resources/read` text stands for.
 *
 * Uses the Web Crypto API (`globalThis.crypto.subtle`, present in Node 20+, browsers,
 * Deno, Bun and workers), so this module imports nothing platform-specific.
 */

/** A digest in the skills extension's form: `sha256:` and 64 lowercase hex digits. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

const encoder = new TextEncoder();

/** The raw bytes of a file's content: UTF-8 for text, the bytes themselves otherwise. Pure. */
export function contentBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? encoder.encode(content) : content;
}

/** `sha256:<hex>` of `bytes`. Rejects only when the platform has no Web Crypto. */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of hash) hex += b.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}
