/**
 * The HTTP front that `mcpkit proxy` and `mcpkit gateway` share: its options (port, host,
 * allowed hosts, legacy SSE, caller authentication, the stdio servers' stderr), the rule that
 * a non-loopback `--host` needs caller authentication, the callers' authorizer, and the
 * shutdown on SIGINT/SIGTERM. Each command parses its own options around these.
 */

import { timingSafeEqual } from 'node:crypto';
import type { StreamableHttpOptions } from '../../http/server/handler.js';
import type { HttpAuthorizer, HttpReply, HttpRequest } from '../../http/server/types.js';
import { parsePort } from '../serve/serve.js';

/** Addresses that only this machine reaches: binding any other needs caller authentication. */
export const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The front's options that take a value. */
export const FRONT_VALUED: readonly string[] = [
  '--port',
  '--host',
  '--allowed-host',
  '--auth-token-env',
  '--auth-issuer',
  '--auth-jwks-uri',
  '--auth-resource',
  '--stderr',
];

/** The front's options, parsed. */
export interface FrontArgs {
  port: number;
  host: string;
  allowedHosts: string[];
  legacySse: boolean;
  tokenEnv: string | undefined;
  issuer: string | undefined;
  jwksUri: string | undefined;
  resource: string | undefined;
  stderrFile: string | undefined;
}

/**
 * Reads the front's options from `values` (every value of each valued option, in order) and
 * `flags`; a string is the usage error. `what` names what an open `--host` would expose.
 */
export function parseFront(values: ReadonlyMap<string, string[]>, flags: ReadonlySet<string>, what: string): FrontArgs | string {
  const one = (name: string): string | undefined => values.get(name)?.at(-1);
  const port = parsePort(one('--port'), 3000);
  if (port === undefined) return '--port needs a port number from 0 to 65535';
  const host = one('--host') ?? '127.0.0.1';
  const tokenEnv = one('--auth-token-env');
  const issuer = one('--auth-issuer');
  const jwksUri = one('--auth-jwks-uri');
  if ((issuer === undefined) !== (jwksUri === undefined)) return '--auth-issuer and --auth-jwks-uri go together';
  if (tokenEnv !== undefined && issuer !== undefined) return 'choose one of --auth-token-env and --auth-issuer';
  if (!LOOPBACK.has(host) && tokenEnv === undefined && issuer === undefined)
    return `--host ${host} would let anyone on the network use ${what}: add --auth-token-env VAR or --auth-issuer URL --auth-jwks-uri URL`;
  return {
    port,
    host,
    allowedHosts: values.get('--allowed-host') ?? [],
    legacySse: flags.has('--legacy-sse'),
    tokenEnv,
    issuer,
    jwksUri,
    resource: one('--auth-resource'),
    stderrFile: one('--stderr'),
  };
}

/** The MCP endpoint's URL from the front's host and port. */
export function listeningUrl(front: Pick<FrontArgs, 'host' | 'port'>): string {
  return `http://${front.host.includes(':') && !front.host.startsWith('[') ? `[${front.host}]` : front.host}:${front.port}/mcp`;
}

/**
 * The callers' authorizer of the front: the static token of `--auth-token-env` (read from the
 * environment; under 16 characters is refused), or the JWT check of `--auth-issuer`, or none.
 * A string is the problem to report (exit code 2).
 */
export async function frontAuthorizer(front: FrontArgs): Promise<HttpAuthorizer | undefined | string> {
  if (front.tokenEnv !== undefined) {
    const token = process.env[front.tokenEnv];
    if (token === undefined || token.length < 16) return `$${front.tokenEnv} must hold the callers' token (at least 16 characters)`;
    return staticToken(token);
  }
  if (front.issuer === undefined || front.jwksUri === undefined) return undefined;
  const { createJwtVerifier, requireBearerAuth } = await import('../../auth/index.js');
  const resource = front.resource ?? listeningUrl(front);
  return requireBearerAuth({
    verifier: createJwtVerifier({ issuer: front.issuer, audience: resource, jwksUri: front.jwksUri }),
    resourceMetadata: { resource, authorization_servers: [front.issuer] },
  });
}

/** The HTTP handler options the front sets: legacy SSE, the allowed hosts, the authorizer. */
export function frontHttpOptions(front: FrontArgs, authorize: HttpAuthorizer | undefined): Omit<StreamableHttpOptions, 'server'> {
  return {
    legacySse: front.legacySse,
    ...(front.allowedHosts.length === 0 ? {} : { allowedHosts: ['localhost', '127.0.0.1', '[::1]', ...front.allowedHosts] }),
    ...(authorize === undefined ? {} : { authorize }),
  };
}

/** Callers must present `token` as a bearer token (compared in constant time); one principal. */
export function staticToken(token: string): HttpAuthorizer {
  const expected = Buffer.from(token, 'utf8');
  const refuse = (error: string, description: string): HttpReply => ({
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer error="${error}", error_description="${description}"` },
    body: JSON.stringify({ error, error_description: description }),
  });
  return {
    async authenticate(req: HttpRequest) {
      const header = req.headers('authorization');
      const match = header === null ? null : /^Bearer ([^\s]+)$/i.exec(header.trim());
      if (match === null) return { reply: refuse('invalid_request', 'Send Authorization: Bearer <token>') };
      const given = Buffer.from(match[1]!, 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return { reply: refuse('invalid_token', 'The token is not the one this proxy accepts') };
      return { authInfo: { subject: 'proxy-caller', clientId: 'proxy-caller', scopes: [] } };
    },
    sessionOwner: () => 'proxy-caller',
  };
}

/**
 * Resolves on the first SIGINT or SIGTERM; a second one exits at once. The listeners stay
 * installed until the process exits: the stdio transport re-raises a signal when its own
 * listener is the only one left (see stdio/client-transport.ts), which a `once` listener
 * already consumed would make it do, killing the front mid-shutdown.
 */
export function shutdownSignal(onSecond: () => void): Promise<void> {
  return new Promise((resolve) => {
    let seen = false;
    const handle = (signal: NodeJS.Signals): void => {
      if (!seen) {
        seen = true;
        resolve();
        return;
      }
      onSecond();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.on('SIGINT', handle);
    process.on('SIGTERM', handle);
  });
}
