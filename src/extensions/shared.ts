/**
 * Helpers the official extensions share: composing `capabilities.extensions`, and base64
 * for resource `blob`s. Pure and runtime-neutral.
 */

/**
 * The `extensions` member of `declared` with `id` set to `settings`: extensions compose, so
 * each keeps what the others declared. Pure.
 */
export function withExtension(declared: Readonly<Record<string, unknown>>, id: string, settings: Record<string, unknown>): Record<string, unknown> {
  const extensions = declared.extensions;
  const base = typeof extensions === 'object' && extensions !== null ? (extensions as Record<string, unknown>) : {};
  return { extensions: { ...base, [id]: settings } };
}

/** The bytes of base64 `text` (a `blob` of `resources/read`); undefined when it is not base64. Pure. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return undefined;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Base64 of `bytes` (for a `blob`). Pure. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}
