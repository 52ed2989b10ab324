/**
 * What happened when an HTTP request of a client transport got no answer at all, in words.
 *
 * Node's `fetch` rejects every such request with the same `TypeError: fetch failed`; what
 * happened is in its cause chain (a system error with a `code` such as `ECONNREFUSED`, an
 * undici error such as `UND_ERR_CONNECT_TIMEOUT`, an OpenSSL error); a requester (mcpkit/node's
 * `nodeHttpRequester`) rejects with the system error itself. {@link connectionFailureReason}
 * reads the chain and says what went wrong and what to check. Runtime-neutral: it only reads
 * `code`, `message` and `cause` (browsers give no more than "Failed to fetch": that is said
 * as it is).
 */

/** Longest cause chain followed (a cycle or a pathological chain stops there). */
const MAX_DEPTH = 8;

const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

interface Link {
  code: string | undefined;
  message: string;
}

/** The errors of the cause chain of `error`, outermost first. */
function chain(error: unknown): Link[] {
  const links: Link[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current !== undefined && current !== null; depth++) {
    if (typeof current === 'object') {
      const e = current as { code?: unknown; message?: unknown; cause?: unknown };
      links.push({ code: typeof e.code === 'string' ? e.code : undefined, message: typeof e.message === 'string' ? e.message : String(current) });
      current = e.cause;
    } else {
      links.push({ code: undefined, message: String(current) });
      break;
    }
  }
  return links;
}

/**
 * Why a request to `url` failed without an HTTP answer, from `error`'s cause chain: the
 * connection was refused, the host name was not found, TLS failed (for example https:// to a
 * port that speaks plain HTTP, or a certificate that is not trusted), connecting or the
 * response headers timed out, the connection was reset. Otherwise the innermost error's
 * message (with its code). Never throws.
 */
export function connectionFailureReason(error: unknown, url: URL): string {
  const links = chain(error);
  const has = (...codes: string[]) => links.find((l) => l.code !== undefined && codes.includes(l.code));
  const host = url.hostname;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (has('ECONNREFUSED'))
    return `the connection to ${host}:${port} was refused (ECONNREFUSED): nothing listens there (is the server running, and is the port right?)`;
  if (has('ENOTFOUND')) return `the host name ${host} was not found (DNS, ENOTFOUND): check the URL`;
  if (has('EAI_AGAIN')) return `the host name ${host} could not be resolved now (a temporary DNS failure, EAI_AGAIN): check the network and try again`;
  const certificate = links.find((l) => l.code !== undefined && CERTIFICATE_CODES.has(l.code));
  if (certificate)
    return `the server's TLS certificate was not accepted (${certificate.code}: ${certificate.message}); use a certificate the client trusts (a private CA: NODE_EXTRA_CA_CERTS, or nodeHttpRequester's tls.ca)`;
  const tls = links.find((l) => l.code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number|packet length too long/i.test(l.message));
  if (tls && url.protocol === 'https:')
    return `the TLS handshake with ${host}:${port} failed: the server does not speak TLS on this port (a plain HTTP server? then use http://)`;
  if (tls) return `the TLS handshake with ${host}:${port} failed (${tls.message})`;
  if (has('UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'))
    return `connecting to ${host}:${port} timed out: is the host reachable, and does a firewall drop the packets?`;
  if (has('UND_ERR_HEADERS_TIMEOUT'))
    return `${host}:${port} accepted the connection but sent no response headers in time (the server hangs, or a proxy holds the request)`;
  if (has('UND_ERR_BODY_TIMEOUT')) return `${host}:${port} stopped sending the response body (body timeout)`;
  if (has('EHOSTUNREACH', 'ENETUNREACH')) return `${host} cannot be reached from here (no route to the host): check the network`;
  const reset = has('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE');
  if (reset) return `${host}:${port} closed the connection (${reset.code}; does it speak ${url.protocol === 'https:' ? 'TLS' : 'plain HTTP'} on this port?)`;
  const inner = links[links.length - 1];
  if (inner === undefined) return 'the request failed for an unknown reason';
  return inner.code !== undefined && !inner.message.includes(inner.code) ? `${inner.code}: ${inner.message}` : inner.message;
}
