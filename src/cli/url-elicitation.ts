/**
 * URL-mode elicitation at the terminal (2025-11-25, SEP-1036): the server asks the person to
 * open a page (an `elicitation/create` request in URL mode, or a -32042 error listing the
 * pages a request waits for). mcpkit shows the domain, the server's message and the full
 * URL, and opens nothing without consent (`y`); only https URLs are offered, and for any
 * other the person is told why it was declined.
 */
import type { PendingUrlElicitation } from '../jsonrpc/errors.js';
import type { Asker } from './ask.js';
import { clean } from './terminal.js';

/** Most rounds of -32042 (open the pages, try again) for one call before its error stands. */
export const MAX_URL_REQUIRED_ROUNDS = 3;

/** Why a URL that is not https is declined (the spec allows only HTTPS for URL elicitation). */
export function refusedUrlReason(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `mcpkit: the server asked you to open ${JSON.stringify(clean(url, true))}, which is not a valid URL; declined`;
  }
  if (parsed.protocol === 'https:') return undefined;
  return (
    `mcpkit: the server asked you to open ${clean(url, true)}; declined: only https:// pages are opened for a server ` +
    `(URL elicitation, MCP 2025-11-25), because over ${clean(parsed.protocol, true)} what you see and type on the page could be read or changed on the way. ` +
    'Ask the server operator for an https:// URL.'
  );
}

/** The lines that present one URL request: domain, message, full URL. */
export function describeUrlRequest(url: string, message: string): string {
  let domain = '';
  try {
    domain = new URL(url).hostname;
  } catch {
    domain = '?';
  }
  return `mcpkit: the server asks you to open a page on ${clean(domain, true)}:\n  ${clean(message, true)}\n  ${clean(url, true)}`;
}

/** Asks consent for one URL; true only for `y` or `yes`. */
export async function consentToOpen(asker: Asker): Promise<boolean> {
  const answer = (await asker.ask('Open this URL in your browser? [y/N] ')).trim().toLowerCase();
  return answer === 'y' || answer === 'yes';
}

/**
 * The pages of a -32042 error, each shown and (with consent) opened through `open`. Resolves
 * with true when every https page was agreed to, false when one was declined or not https.
 */
export async function offerRequiredPages(
  pages: readonly PendingUrlElicitation[],
  asker: Asker,
  say: (line: string) => void,
  open: (url: string) => Promise<void>,
): Promise<boolean> {
  if (pages.length === 0) return false;
  say(
    `mcpkit: the server needs you to visit ${pages.length === 1 ? 'a page' : `${pages.length} pages`} before it can answer (URL elicitation required, error -32042)`,
  );
  for (const page of pages) {
    const url = typeof page.url === 'string' ? page.url : '';
    const refused = refusedUrlReason(url);
    if (refused !== undefined) {
      say(refused);
      return false;
    }
    say(describeUrlRequest(url, typeof page.message === 'string' ? page.message : ''));
    if (!(await consentToOpen(asker))) return false;
    await open(url);
  }
  return true;
}
