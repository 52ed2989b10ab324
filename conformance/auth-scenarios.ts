/**
 * The `auth/*` client scenarios of the MCP conformance suite (both pinned versions,
 * `--suite all`): the conformance client (`client.ts`) calls {@link runAuthScenario} for
 * every scenario whose name starts with `auth/`.
 *
 * Design note: each scenario is mcpkit's real OAuth client (`OAuthClient` from
 * `mcpkit/auth`) configured the way an application would for that situation — which grant,
 * which pre-registered credentials (from `MCP_CONFORMANCE_CONTEXT`), DPoP or not — and then
 * an ordinary MCP session through the authorized transport: list the tools and call
 * `test-tool`. Nothing about the flow is scripted per scenario: discovery, registration,
 * scope selection, step-up and every refusal come from the OAuth client itself. Three
 * things stand in for a user and an application:
 * - the user agent fetches the authorization URL headlessly and takes the redirect's
 *   `Location` (the suite's authorization server redirects at once);
 * - the client "hosts" its client ID metadata document at the URL the suite expects;
 * - the suite's servers are plain http on localhost, so the insecure-http opt-in is on.
 * Scenarios the suite runs on the 2026-07-28 wire (`MCP_CONFORMANCE_PROTOCOL_VERSION`) pin
 * that revision in the `Client` (stateless: `server/discover`, per-request `_meta`); the
 * authorization is the same on both wires.
 */

import { type AuthorizationRequest, OAuthClient, type OAuthClientOptions, type OAuthGrant, type PreRegisteredClient } from '../src/auth/client/oauth-client.js';
import { Client } from '../src/client/index.js';
// the modules themselves rather than the `mcpkit/http` and `mcpkit/auth` barrels: the suite
// starts every scenario at once, and loading the server halves would only slow that down
import { StreamableHttpClientTransport } from '../src/http/client/streamable.js';
import type { CallToolResult } from '../src/index.js';

/** The client ID metadata document URL the suite expects (it never fetches it). */
export const CONFORMANCE_CIMD_URL = 'https://conformance-test.local/client-metadata.json';
/** The redirect URI registered and used (the headless user agent never serves it). */
export const CONFORMANCE_REDIRECT_URI = 'http://localhost:3000/callback';

const CLIENT_INFO = { name: 'mcpkit-conformance-client', version: '0.1.0' };
const STATELESS_WIRE = '2026-07-28';
/** Scenarios that opt in to DPoP (SEP-1932). */
const DPOP_SCENARIOS = new Set(['auth/dpop', 'auth/dpop-nonce']);

/** What a scenario run needs besides its name and the server URL. */
export interface AuthScenarioOptions {
  /** The parsed `MCP_CONFORMANCE_CONTEXT` (credentials for some scenarios). */
  context?: Record<string, unknown>;
  /** `MCP_CONFORMANCE_PROTOCOL_VERSION` (the pre-release suite); `2026-07-28` is the stateless wire. */
  protocolVersion?: string;
  /**
   * Per-request timeout. Default 20000 ms: the first request carries the whole
   * authorization (discovery, registration, authorization, token), and the suite starts
   * every scenario at once.
   */
  timeoutMs?: number;
}

/** True for the scenarios {@link runAuthScenario} handles (every `auth/*` one). */
export function isAuthScenario(scenario: string): boolean {
  return scenario.startsWith('auth/');
}

/** A failed expectation of a scenario step. */
export class AuthScenarioFailure extends Error {}

function text(context: Record<string, unknown> | undefined, key: string): string {
  const value = context?.[key];
  if (typeof value !== 'string' || value === '') throw new AuthScenarioFailure(`MCP_CONFORMANCE_CONTEXT has no ${key}`);
  return value;
}

/**
 * The user agent of the conformance runs: GETs the authorization URL without following
 * redirects and returns the `Location` it redirects to (where a browser would go next).
 */
export async function headlessUserAgent(request: AuthorizationRequest): Promise<URL> {
  const response = await fetch(request.url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  await response.body?.cancel().catch(() => undefined);
  const location = response.headers.get('location');
  if (response.status < 300 || response.status >= 400 || location === null) {
    throw new AuthScenarioFailure(`The authorization endpoint answered HTTP ${response.status} without a redirect`);
  }
  return new URL(location, request.url);
}

/** The OAuth client options an application would choose for `scenario`. */
export function authClientOptions(scenario: string, serverUrl: string, context: Record<string, unknown> | undefined): OAuthClientOptions {
  const code: OAuthGrant = { type: 'authorization_code', redirectUri: CONFORMANCE_REDIRECT_URI, userAgent: headlessUserAgent };
  let grant: OAuthGrant = code;
  let preRegistered: OAuthClientOptions['preRegistered'];
  const credentials = (extra: Partial<Omit<PreRegisteredClient, 'issuer'>>) => {
    const issuer = typeof context?.issuer === 'string' ? context.issuer : undefined;
    const entry = { clientId: text(context, 'client_id'), ...extra };
    // bound to the issuer when the context names it; else to whichever server this one is
    return (candidate: string) => (issuer === undefined || issuer === candidate ? entry : undefined);
  };
  switch (scenario) {
    case 'auth/pre-registration':
      preRegistered = credentials({ clientSecret: text(context, 'client_secret') });
      break;
    case 'auth/client-credentials-basic':
      grant = { type: 'client_credentials' };
      preRegistered = credentials({ clientSecret: text(context, 'client_secret') });
      break;
    case 'auth/client-credentials-jwt':
      grant = { type: 'client_credentials' };
      preRegistered = credentials({
        privateKey: { pem: text(context, 'private_key_pem'), alg: typeof context?.signing_algorithm === 'string' ? context.signing_algorithm : 'ES256' },
      });
      break;
    case 'auth/wif-jwt-bearer': {
      const assertion = text(context, 'valid_jwt');
      grant = { type: 'jwt_bearer', assertion: () => assertion };
      preRegistered = credentials({ tokenEndpointAuthMethod: 'none' });
      break;
    }
    case 'auth/cross-app-access-complete-flow':
    case 'auth/enterprise-managed-authorization': {
      const idToken = text(context, 'idp_id_token');
      grant = {
        type: 'enterprise_managed',
        identityProvider: { tokenEndpoint: text(context, 'idp_token_endpoint'), clientId: text(context, 'idp_client_id'), issuer: text(context, 'idp_issuer') },
        subjectToken: () => idToken,
      };
      preRegistered = credentials({ clientSecret: text(context, 'client_secret') });
      break;
    }
  }
  return {
    serverUrl,
    grant,
    preRegistered,
    clientIdMetadataDocumentUrl: CONFORMANCE_CIMD_URL,
    clientMetadata: { clientName: CLIENT_INFO.name, softwareVersion: CLIENT_INFO.version },
    dpop: DPOP_SCENARIOS.has(scenario),
    timeoutMs: 10_000,
    dangerouslyAllowInsecureHttp: true,
  };
}

/**
 * Runs one `auth/*` scenario against `serverUrl`: authorizes as the scenario requires and
 * lists and calls the server's tools through the authorized transport. Rejects when a step
 * fails — which is the expected outcome of the scenarios where the client must refuse
 * (resource mismatch, `iss` checks, a poisoned issuer, endless step-up).
 */
export async function runAuthScenario(scenario: string, serverUrl: string, options: AuthScenarioOptions = {}): Promise<void> {
  if (!isAuthScenario(scenario)) throw new AuthScenarioFailure(`${scenario} is not an auth scenario`);
  const oauth = new OAuthClient(authClientOptions(scenario, serverUrl, options.context));
  const timeoutMs = options.timeoutMs ?? 20_000;
  // the stateless wire (2026-07-28) is pinned when the suite runs the scenario on it
  const client = new Client(CLIENT_INFO, options.protocolVersion === STATELESS_WIRE ? { protocolVersion: STATELESS_WIRE } : {});
  const transport = new StreamableHttpClientTransport({ url: serverUrl, auth: oauth });
  await client.connect(transport, { timeoutMs });
  try {
    const tools = await client.listAllTools({ timeoutMs });
    if (tools.some((t) => t.name === 'test-tool')) {
      const result = await client.callTool({ name: 'test-tool', arguments: {} }, { timeoutMs });
      expectToolResult(result);
    }
  } finally {
    await client.close();
  }
}

function expectToolResult(result: CallToolResult): void {
  if (result.isError === true) throw new AuthScenarioFailure(`test-tool answered with isError: ${JSON.stringify(result.content)}`);
}
