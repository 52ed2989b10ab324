/**
 * The child-process half of the test authorization server (see `oidc-server.ts`, which
 * starts this file with the Node 22 binary and talks to it over the IPC channel).
 *
 * Design note: `oidc-provider` 9 needs Node 22 while mcpkit runs on Node 20, so the provider
 * lives in its own process. This file is plain code for that process: it binds an HTTP
 * server on 127.0.0.1 (random port), builds the provider with the issuer
 * `http://127.0.0.1:<port>`, serves an in-process interaction handler at
 * `/interaction/<uid>` (the scripted login and consent), and answers the parent's commands.
 * It exits when the parent disconnects, so a crashed test never leaves it behind.
 *
 * The package has no type declarations; it is loaded with a computed specifier and used
 * untyped. Nothing here is exported: the module runs on import.
 */

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Any = any;

/** What the parent sends in its `start` message (the fixture's options, resolved). */
export interface ChildConfig {
  resources: Record<string, { scopes: string[]; format: 'jwt' | 'opaque'; accessTokenTtlSeconds?: number }>;
  anyResource: boolean;
  anyResourceScopes: string[];
  defaultResource?: string;
  scopes: string[];
  accessTokenTtlSeconds: number;
  clientCredentialsTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  authorizationCodeTtlSeconds: number;
  rotateRefreshTokens: boolean;
  clientIdMetadataDocuments: boolean;
  registration: boolean;
  clients: Record<string, unknown>[];
  accountId: string;
}

/** The scripted interaction: who logs in and what happens at consent. */
interface InteractionScript {
  accountId: string;
  /** `approve` grants what was asked (within the resource's scopes); `deny` ends with access_denied. */
  decision: 'approve' | 'deny';
  /** Grant only these scopes (intersection with the request), when set. */
  grantScopes?: string[];
}

type Command =
  | {
      id: number;
      cmd: 'configure';
      ttl: Partial<Pick<ChildConfig, 'accessTokenTtlSeconds' | 'clientCredentialsTtlSeconds' | 'refreshTokenTtlSeconds' | 'authorizationCodeTtlSeconds'>>;
    }
  | { id: number; cmd: 'interaction'; script: Partial<InteractionScript> }
  | { id: number; cmd: 'cimd'; url: string; document: unknown }
  | { id: number; cmd: 'addResource'; resource: string; config: ChildConfig['resources'][string] }
  | { id: number; cmd: 'stats' };

const send = (message: unknown): void => {
  process.send?.(message);
};

function fail(error: unknown): never {
  process.stderr.write(`oidc-child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}

async function main(config: ChildConfig): Promise<void> {
  const providerModule = 'oidc-provider';
  const joseModule = 'jose';
  const { default: Provider, errors } = (await import(providerModule)) as Any;
  const jose = (await import(joseModule)) as Any;

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const keys: Any[] = [];
  for (const alg of ['RS256', 'ES256']) {
    const { privateKey } = await jose.generateKeyPair(alg, { extractable: true });
    const jwk = await jose.exportJWK(privateKey);
    keys.push({ ...jwk, alg, use: 'sig', kid: `${alg.toLowerCase()}-${randomBytes(4).toString('hex')}` });
  }

  const ttl = {
    accessToken: config.accessTokenTtlSeconds,
    clientCredentials: config.clientCredentialsTtlSeconds,
    refreshToken: config.refreshTokenTtlSeconds,
    authorizationCode: config.authorizationCodeTtlSeconds,
  };
  const resources = new Map(Object.entries(config.resources));
  let script: InteractionScript = { accountId: config.accountId, decision: 'approve' };
  const cimd = new Map<string, string>();
  const stats = { cimdFetches: 0, introspections: 0 };

  const resourceInfo = (indicator: string): { scopes: string[]; format: 'jwt' | 'opaque'; accessTokenTtlSeconds?: number } | undefined => {
    const known = resources.get(indicator);
    if (known !== undefined) return known;
    if (config.anyResource) return { scopes: config.anyResourceScopes, format: 'jwt' };
    return undefined;
  };

  const provider = new Provider(issuer, {
    clients: config.clients,
    jwks: { keys },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    scopes: ['openid', 'offline_access', ...config.scopes],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { url: (_ctx: unknown, interaction: Any) => `/interaction/${interaction.uid}` },
    issueRefreshToken: (_ctx: unknown, client: Any) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => config.rotateRefreshTokens,
    // the fixture serves many short tests; nothing binds tokens to the browser session
    expiresWithSession: () => false,
    ttl: {
      AccessToken: (_ctx: unknown, token: Any) => token.resourceServer?.accessTokenTTL ?? ttl.accessToken,
      ClientCredentials: (_ctx: unknown, token: Any) => token.resourceServer?.accessTokenTTL ?? ttl.clientCredentials,
      RefreshToken: () => ttl.refreshToken,
      AuthorizationCode: () => ttl.authorizationCode,
      Grant: () => 3600,
      Interaction: () => 600,
      Session: () => 3600,
      IdToken: () => 600,
    },
    // the fake CIMD host: documents handed over by the parent, nothing fetched for real
    fetch: async (url: string | URL) => {
      stats.cimdFetches++;
      const body = cimd.get(String(url));
      if (body === undefined) return new Response('not found', { status: 404 });
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'max-age=0' } });
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: config.registration, initialAccessToken: false },
      introspection: {
        enabled: true,
        // any confidential client (a resource server) may introspect any token
        allowedPolicy: (ctx: Any, client: Any, token: Any) => {
          stats.introspections++;
          return client.clientAuthMethod !== 'none' || token.clientId === ctx.oidc.client.clientId;
        },
      },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      clientIdMetadataDocument: {
        enabled: config.clientIdMetadataDocuments,
        ack: 'draft-02',
        cacheDuration: { min: 0, max: 0 },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string | string[]) => oneOf ?? config.defaultResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          const info = resourceInfo(indicator);
          if (info === undefined) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          const result: Any = {
            scope: info.scopes.join(' '),
            audience: indicator,
            accessTokenFormat: info.format,
            accessTokenTTL: info.accessTokenTtlSeconds ?? ttl.accessToken,
          };
          if (info.format === 'jwt') result.jwt = { sign: { alg: 'ES256' } };
          return result;
        },
      },
    },
  });
  provider.proxy = false;
  provider.on('server_error', (_ctx: unknown, error: Error) => process.stderr.write(`oidc-child server_error: ${error.stack ?? error.message}\n`));

  const callback = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details;
    if (script.decision === 'deny') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The test user declined' }, { mergeWithLastSubmission: false });
      return;
    }
    if (prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: script.accountId } }, { mergeWithLastSubmission: false });
      return;
    }
    if (prompt.name === 'consent') {
      const grant =
        details.grantId !== undefined
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const limit = script.grantScopes === undefined ? undefined : new Set(script.grantScopes);
      const allowed = (scopes: string[]): string => scopes.filter((s) => limit === undefined || limit.has(s)).join(' ');
      const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
      if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims !== undefined) grant.addOIDCClaims(missing.missingOIDCClaims);
      if (missing.missingResourceScopes !== undefined) {
        for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes)) grant.addResourceScope(indicator, allowed(scopes));
      }
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return;
    }
    res.statusCode = 400;
    res.end(`unsupported prompt ${String(prompt.name)}`);
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(req, res).catch((error: unknown) => {
        process.stderr.write(`oidc-child interaction: ${error instanceof Error ? error.message : String(error)}\n`);
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end('interaction failed');
        }
      });
      return;
    }
    callback(req, res);
  });

  process.on('message', (message: Command) => {
    try {
      switch (message.cmd) {
        case 'configure':
          if (message.ttl.accessTokenTtlSeconds !== undefined) ttl.accessToken = message.ttl.accessTokenTtlSeconds;
          if (message.ttl.clientCredentialsTtlSeconds !== undefined) ttl.clientCredentials = message.ttl.clientCredentialsTtlSeconds;
          if (message.ttl.refreshTokenTtlSeconds !== undefined) ttl.refreshToken = message.ttl.refreshTokenTtlSeconds;
          if (message.ttl.authorizationCodeTtlSeconds !== undefined) ttl.authorizationCode = message.ttl.authorizationCodeTtlSeconds;
          for (const info of resources.values()) {
            if (message.ttl.accessTokenTtlSeconds !== undefined) delete info.accessTokenTtlSeconds;
          }
          send({ id: message.id, ok: true });
          break;
        case 'interaction':
          script = { accountId: config.accountId, decision: 'approve', ...message.script };
          send({ id: message.id, ok: true });
          break;
        case 'cimd':
          if (message.document === undefined) cimd.delete(message.url);
          else cimd.set(message.url, typeof message.document === 'string' ? message.document : JSON.stringify(message.document));
          send({ id: message.id, ok: true });
          break;
        case 'addResource':
          resources.set(message.resource, message.config);
          send({ id: message.id, ok: true });
          break;
        case 'stats':
          send({ id: message.id, ok: true, value: { ...stats } });
          break;
        default:
          send({ id: (message as { id: number }).id, ok: false, error: 'unknown command' });
      }
    } catch (error) {
      send({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  });

  send({ type: 'ready', issuer, port });
}

process.on('disconnect', () => process.exit(0));
process.once('message', (message: { type?: string; config?: ChildConfig }) => {
  if (message.type !== 'start' || message.config === undefined) fail(new Error('expected a start message'));
  main(message.config).catch(fail);
});
