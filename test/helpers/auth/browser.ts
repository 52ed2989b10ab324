/**
 * A headless stand-in for the user's browser in authorization tests: follows redirects with
 * a cookie jar, submits the consent forms mcpkit's authorization server renders, and stops
 * at the first URL a test says belongs to the client (its `redirect_uri`), without fetching
 * it. Used with the oidc-provider fixture (`oidc-server.ts`) and the third-party
 * authorization server.
 *
 * Design note: deliberately small. Cookies are kept per host name (ports ignored, as
 * browsers do), matched by path prefix, and expire by `Max-Age`/`Expires`; `Secure` cookies
 * are sent over plain http because every server in the tests is on loopback. Only forms
 * marked `data-consent` (mcpkit's consent page) are understood. Every walk is bounded.
 */

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expires: number;
}

/** Cookies of one simulated browser. Not thread-safe; one walk at a time. */
export class CookieJar {
  readonly #byHost = new Map<string, StoredCookie[]>();

  /** Stores the `Set-Cookie` headers of `response`, received from `url`. */
  store(url: URL, response: Response): void {
    const lines = response.headers.getSetCookie();
    if (lines.length === 0) return;
    const host = url.hostname;
    let list = this.#byHost.get(host);
    if (list === undefined) this.#byHost.set(host, (list = []));
    for (const line of lines) {
      const parts = line.split(';');
      const first = parts[0]!;
      const eq = first.indexOf('=');
      if (eq <= 0) continue;
      const cookie: StoredCookie = { name: first.slice(0, eq).trim(), value: first.slice(eq + 1).trim(), path: '/', expires: Infinity };
      for (let i = 1; i < parts.length; i++) {
        const attr = parts[i]!.trim();
        const aeq = attr.indexOf('=');
        const key = (aeq < 0 ? attr : attr.slice(0, aeq)).toLowerCase();
        const val = aeq < 0 ? '' : attr.slice(aeq + 1);
        if (key === 'path' && val.startsWith('/')) cookie.path = val;
        else if (key === 'max-age') cookie.expires = Date.now() + Number(val) * 1000;
        else if (key === 'expires' && cookie.expires === Infinity) {
          const t = Date.parse(val);
          if (!Number.isNaN(t)) cookie.expires = t;
        }
      }
      const at = list.findIndex((c) => c.name === cookie.name && c.path === cookie.path);
      if (at >= 0) list.splice(at, 1);
      if (cookie.expires > Date.now()) list.push(cookie);
    }
  }

  /** The `Cookie` header value for a request to `url`, or undefined when none applies. */
  header(url: URL): string | undefined {
    const list = this.#byHost.get(url.hostname);
    if (list === undefined) return undefined;
    const now = Date.now();
    const out: string[] = [];
    for (const c of list) {
      if (c.expires <= now) continue;
      if (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/') out.push(`${c.name}=${c.value}`);
    }
    return out.length === 0 ? undefined : out.join('; ');
  }

  /** Forgets every cookie (a fresh browser profile). */
  clear(): void {
    this.#byHost.clear();
  }
}

/** Options of {@link browse}. */
export interface BrowseOptions {
  /** The browser's cookies; a fresh jar when absent. */
  jar?: CookieJar;
  /** Stop at the first URL for which this returns true, without requesting it. */
  stopAt?: (url: URL) => boolean;
  /** How a consent form (`<form data-consent>`) is answered. Default `approve`. */
  consent?: 'approve' | 'deny';
  /** Most requests made. Default 25. */
  maxSteps?: number;
  /** Time limit of each request in ms. Default 10 000. */
  timeoutMs?: number;
}

/** Where a walk ended. */
export interface BrowseResult {
  /** The URL the walk stopped at (matched by `stopAt`), or the last one requested. */
  readonly url: URL;
  /** True when `stopAt` matched. */
  readonly stopped: boolean;
  /** Status of the last response, when the walk ended on one. */
  readonly status?: number;
  /** Body of the last response, when the walk ended on one. */
  readonly body?: string;
  /** Every URL requested, in order. */
  readonly visited: readonly URL[];
}

function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" })[e] ?? _m);
}

function attribute(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m === null ? undefined : unescapeHtml(m[1]!);
}

/** The consent form of a page: its action and hidden fields; undefined when the page has none. */
function consentForm(html: string, base: URL): { action: URL; fields: URLSearchParams } | undefined {
  const open = /<form\b[^>]*\sdata-consent\b[^>]*>/i.exec(html);
  if (open === null) return undefined;
  const end = html.indexOf('</form>', open.index);
  const inner = html.slice(open.index, end < 0 ? html.length : end);
  const fields = new URLSearchParams();
  for (const m of inner.matchAll(/<input\b[^>]*>/gi)) {
    const tag = m[0];
    if (attribute(tag, 'type') !== 'hidden') continue;
    const name = attribute(tag, 'name');
    if (name !== undefined) fields.append(name, attribute(tag, 'value') ?? '');
  }
  return { action: new URL(attribute(open[0], 'action') ?? base.href, base), fields };
}

/**
 * Walks from `start` like a browser whose user approves (or denies) every consent page:
 * follows redirects (any 3xx with `Location`), submits `data-consent` forms, keeps cookies.
 * Resolves when `stopAt` matches a URL about to be requested, or on the first response that
 * is neither a redirect nor a consent page. Rejects when `maxSteps` requests were made, or
 * when a request fails or times out.
 */
export async function browse(start: string | URL, options: BrowseOptions = {}): Promise<BrowseResult> {
  const jar = options.jar ?? new CookieJar();
  const maxSteps = options.maxSteps ?? 25;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const visited: URL[] = [];
  let url = new URL(start);
  let method = 'GET';
  let body: URLSearchParams | undefined;
  for (let step = 0; ; step++) {
    if (options.stopAt?.(url) === true) return { url, stopped: true, visited };
    if (step >= maxSteps) throw new Error(`browse: gave up after ${maxSteps} requests (last ${url.href})`);
    visited.push(url);
    const headers: Record<string, string> = { accept: 'text/html,application/json;q=0.9,*/*;q=0.8' };
    const cookie = jar.header(url);
    if (cookie !== undefined) headers.cookie = cookie;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    jar.store(url, response);
    method = 'GET';
    body = undefined;
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    const text = await response.text();
    const form = response.status === 200 ? consentForm(text, url) : undefined;
    if (form !== undefined) {
      form.fields.set('decision', options.consent ?? 'approve');
      url = form.action;
      method = 'POST';
      body = form.fields;
      continue;
    }
    return { url, stopped: false, status: response.status, body: text, visited };
  }
}
