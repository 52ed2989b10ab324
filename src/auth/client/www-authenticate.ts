/**
 * Parsing `WWW-Authenticate` (RFC 9110 §11.6.1) as far as an MCP client needs it: the
 * `Bearer` (RFC 6750) and `DPoP` (RFC 9449) challenges and their `resource_metadata`
 * (RFC 9728 §5.1), `scope`, `error` and `error_description` parameters.
 *
 * Design note: a single left-to-right scan (linear time, no regular expression built from
 * input), tolerant of what servers actually send: several challenges in one header or in
 * several headers (joined with commas by `Headers`), quoted or bare parameter values,
 * escaped quotes, token68 credentials, stray separators. Parameter names are
 * case-insensitive (stored lower-cased); the first occurrence of a parameter wins. It never
 * throws; unparsable bytes are skipped.
 */

/** One challenge: its scheme (lower-cased) and parameters (names lower-cased). */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
  /** The token68 form of the challenge, when it used one. */
  token68?: string;
}

/** What a `Bearer`/`DPoP` challenge tells an MCP client. */
export interface ResourceChallenge {
  /** The scheme the values came from (`bearer` or `dpop`). */
  scheme: string;
  /** RFC 9728 `resource_metadata`: where the protected resource metadata is. */
  resourceMetadata?: string;
  /** Space-separated scopes the server requires (RFC 6750 §3). */
  scope?: string;
  /** `invalid_token`, `insufficient_scope`, `use_dpop_nonce`, ... */
  error?: string;
  errorDescription?: string;
}

function isTchar(c: number): boolean {
  // RFC 9110 tchar: ALPHA / DIGIT / "!#$%&'*+-.^_`|~"
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x21 ||
    (c >= 0x23 && c <= 0x27) ||
    c === 0x2a ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5e ||
    c === 0x5f ||
    c === 0x60 ||
    c === 0x7c ||
    c === 0x7e
  );
}

function isToken68Char(c: number): boolean {
  // ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/"
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5f ||
    c === 0x7e ||
    c === 0x2b ||
    c === 0x2f
  );
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/**
 * Parses a `WWW-Authenticate` value into its challenges. Called by the OAuth client for
 * every 401/403; usable on its own. Never throws; returns [] for null or garbage.
 */
export function parseWwwAuthenticate(header: string | null | undefined): AuthChallenge[] {
  const out: AuthChallenge[] = [];
  if (!header) return out;
  const n = header.length;
  let current: AuthChallenge | undefined;
  let i = 0;
  while (i < n) {
    const c = header.charCodeAt(i);
    if (isSpace(c) || c === 0x2c) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isTchar(header.charCodeAt(i))) i++;
    if (i === start) {
      i++; // a byte that cannot start anything: skip it
      continue;
    }
    const name = header.slice(start, i);
    let j = i;
    while (j < n && isSpace(header.charCodeAt(j))) j++;
    if (current !== undefined && header.charCodeAt(j) === 0x3d /* = */) {
      // auth-param: name = token / quoted-string
      j++;
      while (j < n && isSpace(header.charCodeAt(j))) j++;
      let value: string;
      if (header.charCodeAt(j) === 0x22 /* " */) {
        j++;
        let text = '';
        let segment = j;
        while (j < n) {
          const q = header.charCodeAt(j);
          if (q === 0x5c /* \ */ && j + 1 < n) {
            text += header.slice(segment, j) + header[j + 1];
            j += 2;
            segment = j;
            continue;
          }
          if (q === 0x22) break;
          j++;
        }
        text += header.slice(segment, j);
        if (j < n) j++; // the closing quote
        value = text;
      } else {
        const vs = j;
        while (j < n && isTchar(header.charCodeAt(j))) j++;
        value = header.slice(vs, j);
      }
      const key = name.toLowerCase();
      if (!Object.hasOwn(current.params, key)) current.params[key] = value;
      i = j;
      continue;
    }
    // a new challenge: its scheme, then maybe a token68
    current = { scheme: name.toLowerCase(), params: Object.create(null) as Record<string, string> };
    out.push(current);
    i = j;
    let k = i;
    while (k < n && isToken68Char(header.charCodeAt(k))) k++;
    if (k > i) {
      let end = k;
      while (end < n && header.charCodeAt(end) === 0x3d) end++;
      let after = end;
      while (after < n && isSpace(header.charCodeAt(after))) after++;
      // `scheme abc==` (then the end or a comma) is a token68; `scheme name=value` is a parameter
      if (after === n || header.charCodeAt(after) === 0x2c) {
        current.token68 = header.slice(i, end);
        i = after;
      }
    }
  }
  return out;
}

/**
 * The `Bearer` or `DPoP` challenge of a response, merged: each value is taken from the
 * first such challenge that has it. Undefined when the response has neither. Called by the
 * OAuth client on 401 and 403 responses.
 */
export function resourceChallenge(headers: Headers): ResourceChallenge | undefined {
  const challenges = parseWwwAuthenticate(headers.get('www-authenticate'));
  let merged: ResourceChallenge | undefined;
  for (const ch of challenges) {
    if (ch.scheme !== 'bearer' && ch.scheme !== 'dpop') continue;
    merged ??= { scheme: ch.scheme };
    const p = ch.params;
    if (merged.resourceMetadata === undefined && p.resource_metadata) merged.resourceMetadata = p.resource_metadata;
    if (merged.scope === undefined && p.scope !== undefined) merged.scope = p.scope;
    if (merged.error === undefined && p.error) merged.error = p.error;
    if (merged.errorDescription === undefined && p.error_description) merged.errorDescription = p.error_description;
  }
  return merged;
}

/** True when the response carries a `DPoP` challenge with `error="use_dpop_nonce"` (RFC 9449 §9). */
export function isDpopNonceChallenge(headers: Headers): boolean {
  for (const ch of parseWwwAuthenticate(headers.get('www-authenticate'))) {
    if (ch.scheme === 'dpop' && ch.params.error === 'use_dpop_nonce') return true;
  }
  return false;
}

/** Splits a space-separated scope string into its distinct scopes, in order. */
export function splitScopes(scope: string | undefined): string[] {
  if (!scope) return [];
  const out: string[] = [];
  for (const s of scope.split(/[ \t]+/)) if (s !== '' && !out.includes(s)) out.push(s);
  return out;
}
