/**
 * The bounded HTTP GET the OAuth client uses for metadata documents: a time limit, a size
 * limit on the body, `Accept: application/json`, and a check that a followed redirect did
 * not leave https (unless the insecure opt-in is set).
 */

import { isObject } from '../../jsonrpc/values.js';
import { OAuthClientError } from './errors.js';

/** Largest metadata document read, in bytes. */
export const MAX_METADATA_BYTES = 256 * 1024;

/** What the OAuth client's HTTP requests need to know. */
export interface HttpContext {
  fetch: typeof fetch;
  /** Bound on each request, in milliseconds. */
  timeoutMs: number;
  /** The loudly named opt-in that permits `http:` URLs (tests against local servers). */
  allowInsecure: boolean;
  /** Sent as `MCP-Protocol-Version` on discovery requests (MCP 2025-03-26 › Server Metadata Discovery Headers). */
  protocolVersion?: string;
}

/** The outcome of {@link getJson}: the status, and the parsed body when it was a JSON object. */
export interface JsonResult {
  status: number;
  body: Record<string, unknown> | undefined;
}

/**
 * GETs `url` and parses a JSON object body (at most {@link MAX_METADATA_BYTES}). Non-2xx
 * statuses resolve with `body` undefined; so does a 2xx body that is not a JSON object.
 * Rejects with {@link OAuthClientError} `timeout` when the time runs out, `insecure_url`
 * when a redirect left https, `discovery_failed` when the server is unreachable or the body
 * is too large.
 */
export async function getJson(ctx: HttpContext, url: URL): Promise<JsonResult> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (ctx.protocolVersion) headers['mcp-protocol-version'] = ctx.protocolVersion;
  const signal = AbortSignal.timeout(ctx.timeoutMs);
  let response: Response;
  try {
    response = await ctx.fetch(url.href, { method: 'GET', headers, signal, redirect: 'follow' });
  } catch (err) {
    if (signal.aborted) throw new OAuthClientError('timeout', `GET ${url.href} took longer than ${ctx.timeoutMs} ms`, { cause: err });
    throw new OAuthClientError('discovery_failed', `GET ${url.href} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (response.url && !ctx.allowInsecure && !response.url.startsWith('https:')) {
    await response.body?.cancel().catch(() => undefined);
    throw new OAuthClientError('insecure_url', `GET ${url.href} was redirected to a non-https URL`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status, body: undefined };
  }
  const text = await readBounded(response, MAX_METADATA_BYTES, url);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { status: response.status, body: undefined };
  }
  const body = isObject(parsed) ? parsed : undefined;
  return { status: response.status, body };
}

async function readBounded(response: Response, maxBytes: number, url: URL): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new OAuthClientError('discovery_failed', `The document at ${url.href} is larger than ${maxBytes} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
