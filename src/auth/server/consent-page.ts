/**
 * The pages the third-party authorization server shows a user: the per-client consent page
 * (2025-11-25 › Security Best Practices › Confused Deputy Problem: it names the client, the
 * scopes, where the result goes, carries an anti-CSRF token and cannot be framed) and the
 * error page for requests that must not be redirected (unknown client, unregistered
 * redirect URI). Every value is HTML-escaped. Runtime-neutral.
 */

/** What the consent page shows. */
export interface ConsentDetails {
  /** The MCP client's name (or its id when it gave none). */
  clientName: string;
  clientId: string;
  /** Where the authorization code will be sent. */
  redirectUri: string;
  /** The client's own site (`client_uri`), shown as stated (unverified) when given. */
  clientUri?: string;
  /** The scopes requested. */
  scopes: readonly string[];
  /** The service the user signs in to next (the upstream authorization server). */
  upstreamName: string;
  /** Where the form posts. */
  action: string;
  /** Hidden fields of the form (transaction id and anti-CSRF token). */
  fields: Readonly<Record<string, string>>;
}

/** Headers of every page: no caching, no framing, no scripts, no referrer. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
});

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Characters that change how the text around them displays without showing themselves, or
 * that draw as nothing: controls (Cc), every format character (Cf: bidirectional overrides,
 * embeddings, isolates and marks, zero-width characters, tags, Arabic number signs,
 * interlinear annotations, ...), unpaired surrogates, private-use and unassigned code points,
 * line and paragraph separators, every default-ignorable code point (U+034F, the Hangul
 * fillers, variation selectors, ...) and the blank U+2800; also enclosing marks and combining
 * marks that do not sit on a letter or digit, or stack more than two deep (they draw over
 * the lines around them).
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Me}\u2800]|(?<![\p{L}\p{N}\p{M}])\p{M}+|(?<=[\p{L}\p{N}])\p{M}{3,}/gu;

/**
 * A value a client chose (its name, id, URIs, …) as page text: every hidden or
 * direction-changing character shown as its code (`<U+202E>`), HTML-escaped, and isolated
 * in a `<bdi>` element so right-to-left text in it cannot reorder the page around it.
 */
export function clientText(text: string): string {
  const visible = text.replace(HIDDEN, (run) => [...run].map((c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`).join(''));
  return `<bdi>${escapeHtml(visible)}</bdi>`;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}code{word-break:break-all}.warn{color:#8a4b00}button{margin-right:.5rem;padding:.4rem 1rem}';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}

function isLoopback(uri: string): boolean {
  try {
    const h = new URL(uri).hostname;
    return h === 'localhost' || h === '127.0.0.1' || h === '[::1]';
  } catch {
    return false;
  }
}

/** The consent page (a form marked `data-consent` with approve and deny buttons named `decision`). */
export function renderConsentPage(details: ConsentDetails): string {
  const scopes =
    details.scopes.length === 0 ? '<li>(no specific permissions)</li>' : details.scopes.map((s) => `<li><code>${clientText(s)}</code></li>`).join('');
  const hidden = Object.entries(details.fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const warning = isLoopback(details.redirectUri)
    ? '<p class="warn">This application receives the result on this computer (a local address). Only continue if you started this sign-in yourself.</p>'
    : '';
  return page(
    'Authorize application',
    `<h1>Allow ${clientText(details.clientName)}?</h1>` +
      `<p><strong>${clientText(details.clientName)}</strong> (<code>${clientText(details.clientId)}</code>) asks to use this server on your behalf, with your ${escapeHtml(details.upstreamName)} account.</p>` +
      (details.clientUri !== undefined ? `<p>The application's site, as it states it: <code>${clientText(details.clientUri)}</code> (not verified).</p>` : '') +
      `<p>Permissions requested:</p><ul>${scopes}</ul>` +
      `<p>The result is sent to <strong>${clientText(hostOf(details.redirectUri))}</strong> (<code>${clientText(details.redirectUri)}</code>).</p>` +
      warning +
      `<form method="post" action="${escapeHtml(details.action)}" data-consent>${hidden}` +
      '<button type="submit" name="decision" value="approve">Allow</button>' +
      '<button type="submit" name="decision" value="deny">Deny</button></form>',
  );
}

/** A page for an error the user sees (nothing is redirected). */
export function renderErrorPage(error: string, description: string): string {
  return page('Authorization error', `<h1>Authorization failed</h1><p><code>${clientText(error)}</code></p><p>${clientText(description)}</p>`);
}
