/**
 * The gateway's config file: an `mcpServers` file in the format the clients use (read by
 * client/servers-config.ts: stdio `command`/`args`/`env`, `url` + `headers`), plus an
 * optional top-level `gateway` object for the gateway itself. Runtime-neutral.
 *
 * ```jsonc
 * {
 *   "mcpServers": { "fs": { "command": "mcp-server-filesystem", "args": ["/data"] }, ... },
 *   "gateway": {
 *     "separator": "_",                 // between a server's name and its tools' names
 *     "optional": ["scratch"],          // servers /readyz does not wait for
 *     "requestTimeoutMs": 600000,
 *     "restart": { "initialDelayMs": 250, "maxDelayMs": 30000 },
 *     "healthCheck": { "intervalMs": 15000, "timeoutMs": 5000 },   // or false
 *     "visibility": {
 *       "default": { "deny": ["fs_write_*"] },           // callers matched by nothing below
 *       "scopes": { "fs:write": {} },                    // the first scope the caller holds, in file order
 *       "principals": { "alice": { "allow": ["*"] } }    // by token subject (else client id); wins over scopes
 *     }
 *   }
 * }
 * ```
 *
 * A visibility rule is a `VisibilityRule` (visibility.ts): `allow`, `deny`, `allowResources`,
 * `denyResources` (globs of the namespaced names and URIs) and `tools` (transforms). Every
 * rule is checked when the file is read; an unknown key anywhere in `gateway` is an error
 * (a misspelt `deny` must not silently show everything). Errors are `ServersConfigError`s
 * naming the file and the field.
 */
import { parseJsonc } from '../client/jsonc.js';
import { parseServersConfig, type ServerSpec, type ServersConfig, ServersConfigError, type ServersConfigOptions } from '../client/servers-config.js';
import { isObject } from '../jsonrpc/values.js';
import type { Transport } from '../transport/types.js';
import type { GatewayOptions, GatewayUpstream } from './gateway.js';
import type { Caller, VisibilityPolicy, VisibilityRule } from './visibility.js';
import { visibility } from './visibility.js';

/** The `gateway` object of a config file, checked. */
export interface GatewaySettings {
  readonly separator?: string;
  /** Servers the readiness endpoint does not wait for. */
  readonly optional: readonly string[];
  readonly requestTimeoutMs?: number;
  readonly restart?: { readonly initialDelayMs?: number; readonly maxDelayMs?: number };
  readonly healthCheck?: { readonly intervalMs?: number; readonly timeoutMs?: number } | false;
  /** The visibility policy of the file; undefined when it has none. */
  readonly policy?: VisibilityPolicy;
}

/** A gateway config file: its servers and the gateway's settings. */
export interface GatewayConfig {
  readonly servers: ServersConfig;
  readonly gateway: GatewaySettings;
}

const GATEWAY_KEYS = new Set(['separator', 'optional', 'requestTimeoutMs', 'restart', 'healthCheck', 'visibility']);
const RULE_KEYS = new Set(['allow', 'deny', 'allowResources', 'denyResources', 'tools']);

/**
 * Parses the text of a gateway config file (JSONC): the servers as `parseServersConfig` does
 * (same bounds and options), then the `gateway` object. Throws {@link ServersConfigError}.
 */
export function parseGatewayConfig(text: string, options: ServersConfigOptions = {}): GatewayConfig {
  const servers = parseServersConfig(text, options);
  const source = servers.source;
  const fail = (problem: string, field: string): ServersConfigError => new ServersConfigError(source, problem, undefined, field);
  // the text passed parseServersConfig's size, depth and syntax checks
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const { value } = parseJsonc(body, (error) => {
    throw new ServersConfigError(source, `not valid JSON or JSONC (${error}); fix the file`);
  });
  const raw = (value as Record<string, unknown>).gateway;
  if (raw === undefined) return { servers, gateway: { optional: [] } };
  if (!isObject(raw)) throw fail('must be an object', 'gateway');
  for (const key of Object.keys(raw))
    if (!GATEWAY_KEYS.has(key)) throw fail(`unknown key; the gateway object takes ${[...GATEWAY_KEYS].join(', ')}`, `gateway.${key}`);
  const settings: { -readonly [K in keyof GatewaySettings]: GatewaySettings[K] } = { optional: [] };
  if (raw.separator !== undefined) {
    if (typeof raw.separator !== 'string') throw fail('must be a string', 'gateway.separator');
    settings.separator = raw.separator;
  }
  if (raw.optional !== undefined) {
    const list = strings(raw.optional, 'gateway.optional', fail);
    for (const name of list)
      if (!servers.servers.has(name) && !servers.disabled.includes(name))
        throw fail(`names ${JSON.stringify(name)}, which is not a server of the file`, 'gateway.optional');
    settings.optional = list;
  }
  if (raw.requestTimeoutMs !== undefined) settings.requestTimeoutMs = positive(raw.requestTimeoutMs, 'gateway.requestTimeoutMs', fail);
  if (raw.restart !== undefined) settings.restart = numbers(raw.restart, 'gateway.restart', ['initialDelayMs', 'maxDelayMs'], fail);
  if (raw.healthCheck !== undefined)
    settings.healthCheck = raw.healthCheck === false ? false : numbers(raw.healthCheck, 'gateway.healthCheck', ['intervalMs', 'timeoutMs'], fail);
  if (raw.visibility !== undefined) settings.policy = policyOf(raw.visibility, fail);
  return { servers, gateway: settings };
}

type Fail = (problem: string, field: string) => ServersConfigError;

function strings(value: unknown, field: string, fail: Fail): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw fail('must be an array of strings', field);
  return value as string[];
}

function positive(value: unknown, field: string, fail: Fail): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw fail('must be a whole number of milliseconds, at least 1', field);
  return value;
}

function numbers(value: unknown, field: string, keys: readonly string[], fail: Fail): Record<string, number> {
  if (!isObject(value)) throw fail(`must be an object with ${keys.join(' and ')}`, field);
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!keys.includes(key)) throw fail(`unknown key; use ${keys.join(' or ')}`, `${field}.${key}`);
    out[key] = positive(v, `${field}.${key}`, fail);
  }
  return out;
}

/** The policy of a `visibility` object: principals first, then the first scope held, then the default. */
function policyOf(value: unknown, fail: Fail): VisibilityPolicy {
  if (!isObject(value)) throw fail('must be an object with "default", "scopes" and/or "principals"', 'gateway.visibility');
  for (const key of Object.keys(value))
    if (key !== 'default' && key !== 'scopes' && key !== 'principals')
      throw fail('unknown key; use "default", "scopes" or "principals"', `gateway.visibility.${key}`);
  const fallback = value.default === undefined ? undefined : ruleOf(value.default, 'gateway.visibility.default', fail);
  const table = (key: 'scopes' | 'principals'): Map<string, VisibilityRule> => {
    const raw = value[key];
    const map = new Map<string, VisibilityRule>();
    if (raw === undefined) return map;
    if (!isObject(raw)) throw fail('must be an object mapping names to rules', `gateway.visibility.${key}`);
    for (const [name, rule] of Object.entries(raw)) map.set(name, ruleOf(rule, `gateway.visibility.${key}.${name}`, fail));
    return map;
  };
  const scopes = table('scopes');
  const principals = table('principals');
  return (caller: Caller) => {
    const principal = caller.principal as { subject?: unknown; clientId?: unknown } | undefined;
    for (const id of [principal?.subject, principal?.clientId]) if (typeof id === 'string' && principals.has(id)) return principals.get(id);
    for (const [scope, rule] of scopes) if (caller.scopes.includes(scope)) return rule;
    return fallback;
  };
}

/** One rule, checked now (keys, then `visibility()`'s own checks of globs and transforms). */
function ruleOf(value: unknown, field: string, fail: Fail): VisibilityRule {
  if (!isObject(value)) throw fail('must be an object (allow, deny, allowResources, denyResources, tools)', field);
  for (const key of Object.keys(value)) if (!RULE_KEYS.has(key)) throw fail(`unknown key; a rule takes ${[...RULE_KEYS].join(', ')}`, `${field}.${key}`);
  for (const key of ['allow', 'deny', 'allowResources', 'denyResources']) if (value[key] !== undefined) strings(value[key], `${field}.${key}`, fail);
  if (value.tools !== undefined && !isObject(value.tools)) throw fail('must be an object of tool transforms by tool name', `${field}.tools`);
  const rule = value as VisibilityRule;
  try {
    visibility(rule);
  } catch (error) {
    throw fail((error as Error).message, field);
  }
  return rule;
}

/**
 * The {@link GatewayOptions} of a config: one upstream per enabled server (its transport from
 * `transport(name, spec)`, e.g. `mcpkit/client/node`'s `transportFactory(spec)`), the
 * settings and the policy of the file. `extra` adds or overrides options (HTTP, server, hooks).
 */
export function gatewayOptions(
  config: GatewayConfig,
  transport: (name: string, spec: ServerSpec) => Transport | Promise<Transport>,
  extra: Partial<Omit<GatewayOptions, 'upstreams'>> = {},
): GatewayOptions {
  const upstreams: Record<string, GatewayUpstream> = {};
  for (const [name, spec] of config.servers.servers) {
    Object.defineProperty(upstreams, name, {
      value: { transport: () => transport(name, spec), required: !config.gateway.optional.includes(name) },
      enumerable: true,
    });
  }
  const g = config.gateway;
  return {
    upstreams,
    ...(g.separator === undefined ? {} : { separator: g.separator }),
    ...(g.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: g.requestTimeoutMs }),
    ...(g.restart === undefined ? {} : { restart: g.restart }),
    ...(g.healthCheck === undefined ? {} : { healthCheck: g.healthCheck }),
    ...(g.policy === undefined ? {} : { policy: g.policy }),
    ...extra,
  };
}
