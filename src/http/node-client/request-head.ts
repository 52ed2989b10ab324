/**
 * Writing one HTTP/1.1 request of the Node requester: request line, headers and body as a
 * single payload, handed to the socket in one write.
 *
 * Design note: everything is checked before a byte is sent, and a violation is a TypeError
 * saying which name or value is wrong: the method and the header names must be tokens
 * (RFC 9110 § 5.6.2), header values must hold no CR, LF or NUL (a value with them could
 * smuggle a header or a second request). `Host` comes from the URL and `Content-Length`
 * from the body (its UTF-8 length in bytes); the caller's own `Host` and `Content-Length`
 * are ignored, and `Transfer-Encoding` is refused (the body is always sent whole). The
 * payload stays a string when the head is ASCII (the socket encodes it once, as UTF-8);
 * a header value with bytes above 0x7F is sent as Latin-1, as Node's own client does,
 * which takes a Buffer.
 */
import { PlainHeaders, type RequesterInit } from '../client/common.js';
import { isToken } from './response-head.js';

/** What is fixed per URL: the origin, the request target and the `Host` header. */
export interface RequestTarget {
  readonly origin: string;
  /** Path and query, as sent on the request line. */
  readonly path: string;
  readonly host: string;
}

/** Anything but visible ASCII, space and tab: worth a closer look. */
const UNUSUAL = /[^\x20-\x7e\t]/;
const FORBIDDEN = /[\r\n\0]/;

/**
 * Header names found to be tokens and values found plain (visible ASCII, space and tab),
 * remembered because the transports send the same few on every request: a lookup of a
 * string whose hash V8 already holds costs less than checking it again. Short strings
 * only, and the sets are emptied when full, so they stay small whatever is sent. Values of
 * credential headers are never remembered: a token must not outlive its request in a
 * process-wide table.
 */
const TOKENS = new Set<string>();
const PLAIN = new Set<string>();
const MAX_REMEMBERED = 64;
const MAX_REMEMBERED_CHARS = 256;
/** Headers whose values are credentials (checked every time, never remembered). */
const SECRET = new Set(['authorization', 'proxy-authorization', 'cookie']);

function remember(set: Set<string>, text: string): void {
  if (text.length > MAX_REMEMBERED_CHARS) return;
  if (set.size >= MAX_REMEMBERED) set.clear();
  set.add(text);
}

/** The target of `url`; throws TypeError for a protocol other than http: and https:, or credentials in the URL. */
export function requestTarget(url: URL): RequestTarget {
  const protocol = url.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') throw new TypeError(`The Node HTTP requester speaks http: and https: only, not ${protocol} (${url.href})`);
  if (url.username !== '' || url.password !== '')
    throw new TypeError('The URL holds credentials (user:password@); pass them in a header (or use auth) instead');
  return { origin: url.origin, path: url.pathname + url.search, host: url.host };
}

/** The header lines of a request, checked and serialized; `latin1` when a value holds bytes above 0x7F. */
interface HeaderLines {
  readonly text: string;
  readonly latin1: boolean;
}

/** The request's bytes; throws TypeError (see the design note) before anything is sent. */
export function requestPayload(target: RequestTarget, init: RequesterInit): string | Buffer {
  const method = init.method;
  if (!isToken(method)) throw new TypeError(`The HTTP method ${JSON.stringify(method)} is not a token`);
  const headers = init.headers;
  // a transport hands the same PlainHeaders to request after request: their lines are
  // checked and joined once (the object forgets them when a header is set)
  let lines: HeaderLines;
  if (headers instanceof PlainHeaders) lines = (headers.memo as HeaderLines | undefined) ?? (headers.memo = headerLines(headers));
  else lines = headerLines(headers);
  let head = method + ' ' + target.path + ' HTTP/1.1\r\nhost: ' + target.host + '\r\n' + lines.text;
  const latin1 = lines.latin1;
  const body = init.body;
  if (body !== undefined) head += 'content-length: ' + Buffer.byteLength(body) + '\r\n\r\n';
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') head += 'content-length: 0\r\n\r\n';
  else head += '\r\n';
  if (!latin1) return body === undefined ? head : head + body;
  for (let i = 0; i < head.length; i++) {
    if (head.charCodeAt(i) > 0xff) throw new TypeError('A header value holds a character beyond Latin-1; encode it first');
  }
  const bytes = Buffer.from(head, 'latin1');
  return body === undefined ? bytes : Buffer.concat([bytes, Buffer.from(body, 'utf8')]);
}

/** The lines of `headers` but `Host` and `Content-Length`; throws TypeError for a name or value that cannot be sent. */
function headerLines(headers: RequesterInit['headers']): HeaderLines {
  let text = '';
  let latin1 = false;
  headers.forEach((value, name) => {
    if (!TOKENS.has(name)) {
      if (!isToken(name)) throw new TypeError(`The header name ${JSON.stringify(name)} is not a token; it was not sent`);
      remember(TOKENS, name);
    }
    if (!PLAIN.has(value)) {
      if (UNUSUAL.test(value)) {
        if (FORBIDDEN.test(value)) throw new TypeError(`The value of header ${name} holds CR, LF or NUL; nothing was sent`);
        latin1 = true;
      } else if (!SECRET.has(name)) remember(PLAIN, value);
    }
    if (name === 'host' || name === 'content-length') return;
    if (name === 'transfer-encoding') throw new TypeError('Transfer-Encoding cannot be set: the requester sends whole bodies with Content-Length');
    text += name + ': ' + value + '\r\n';
  });
  return { text, latin1 };
}
