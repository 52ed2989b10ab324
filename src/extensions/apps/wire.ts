/**
 * The wire of MCP Apps (the `io.modelcontextprotocol/ui` extension, specification of
 * 2026-01-26): UI resources under `ui://` with the `text/html;profile=mcp-app` MIME type,
 * their `_meta.ui` (CSP origins, sandbox permissions, dedicated domain, border preference),
 * and tools linked to them through `_meta.ui` (`resourceUri`, `visibility`).
 *
 * Negotiation: the host (client) declares
 * `capabilities.extensions["io.modelcontextprotocol/ui"] = {mimeTypes: [...]}` — at
 * `initialize` in the 2025 era, in every request's `_meta` client capabilities on
 * 2026-07-28 — and servers read it (`ctx.clientCapabilities`) to decide whether to offer
 * UI. The extension adds no methods to the MCP connection (the view talks to its host over
 * `postMessage`).
 */

/** The extension's identifier. */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/** The MIME type of an HTML UI resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The URI scheme UI resources use. */
export const UI_SCHEME = 'ui://';

/** The deprecated flat tool `_meta` key for the resource URI (`_meta.ui.resourceUri` replaces it). */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** Origins a UI resource needs, per CSP directive family; omitted or empty = none (the host's restrictive default). */
export interface AppResourceCsp {
  /** Origins for fetch/XHR/WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Origins for scripts, styles, images, fonts, media (`script-src`, `style-src`, `img-src`, `font-src`, `media-src`). */
  resourceDomains?: string[];
  /** Origins for nested iframes (`frame-src`). */
  frameDomains?: string[];
  /** Allowed base URIs (`base-uri`). */
  baseUriDomains?: string[];
}

/** Browser capabilities a UI asks for (hosts MAY grant them through the iframe's `allow`). */
export interface AppResourcePermissions {
  camera?: Record<never, never>;
  microphone?: Record<never, never>;
  geolocation?: Record<never, never>;
  clipboardWrite?: Record<never, never>;
}

/** A UI resource's `_meta.ui`. */
export interface AppResourceMeta {
  csp?: AppResourceCsp;
  permissions?: AppResourcePermissions;
  /** A dedicated sandbox origin (its format is host-specific). */
  domain?: string;
  /** true: the host should draw a border and background; false: none; omitted: the host decides. */
  prefersBorder?: boolean;
}

/** Who may call a tool: the model (agent), the app (its view, same server only). */
export type AppToolVisibility = 'model' | 'app';

/** A tool's `_meta.ui`. */
export interface AppToolMeta {
  /** The `ui://` resource that renders the tool's results. */
  resourceUri?: string;
  /** Default `["model", "app"]`. */
  visibility?: AppToolVisibility[];
}

/** The host's settings under the extension's identifier. */
export interface AppsClientCapability {
  /** UI MIME types the host renders; must include {@link APP_MIME_TYPE} for HTML apps. */
  mimeTypes?: string[];
}

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
/** A DNS label: letters, digits and inner hyphens, at most 63 characters. */
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * Why `value` is not an origin a UI may name in its `csp` lists, or undefined. Accepted, as
 * the MCP Apps specification writes them: `scheme://host[:port]` with scheme `https`,
 * `http`, `wss` or `ws`, a host of DNS labels (the leftmost may be `*` for any subdomain,
 * as in `https://*.example.com`), a port of 1-65535, and nothing else — no path, query,
 * credentials, spaces, quotes or `;` (which would add CSP directives or keywords). Pure.
 */
export function cspOriginProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `${JSON.stringify(value)} is not a string`;
  const bad = `${JSON.stringify(value)} is not an origin such as https://cdn.example.com or https://*.example.com`;
  const m = /^(https?|wss?):\/\/([^:/]+)(?::(\d{1,5}))?$/.exec(value);
  if (m === null || value.length > 300) return bad;
  const labels = m[2]!.split('.');
  if (labels.length > 127) return bad;
  for (let i = 0; i < labels.length; i++) {
    if (i === 0 && labels[0] === '*' && labels.length > 2) continue;
    if (!LABEL.test(labels[i]!)) return bad;
  }
  if (m[3] !== undefined && !(Number(m[3]) >= 1 && Number(m[3]) <= 65535)) return `${JSON.stringify(value)}: the port must be 1-65535`;
  return undefined;
}

/** Why `meta` is not a valid resource `_meta.ui`, or undefined. Pure. */
export function appResourceMetaProblem(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return '_meta.ui must be an object';
  const m = meta as Record<string, unknown>;
  if (m.csp !== undefined) {
    if (typeof m.csp !== 'object' || m.csp === null) return 'csp must be an object';
    for (const [key, value] of Object.entries(m.csp)) {
      if (!(CSP_KEYS as readonly string[]).includes(key)) return `csp.${key} is not a CSP member (${CSP_KEYS.join(', ')})`;
      if (!Array.isArray(value)) return `csp.${key} must be an array of origins`;
      for (const origin of value) {
        const problem = cspOriginProblem(origin);
        if (problem !== undefined) return `csp.${key}: ${problem}`;
      }
    }
  }
  if (m.permissions !== undefined) {
    if (typeof m.permissions !== 'object' || m.permissions === null) return 'permissions must be an object';
    for (const [key, value] of Object.entries(m.permissions)) {
      if (!(PERMISSION_KEYS as readonly string[]).includes(key)) return `permissions.${key} is not a permission (${PERMISSION_KEYS.join(', ')})`;
      if (typeof value !== 'object' || value === null || Object.keys(value).length > 0) return `permissions.${key} must be {}`;
    }
  }
  if (m.domain !== undefined && (typeof m.domain !== 'string' || m.domain === '')) return 'domain must be a non-empty string';
  // the format is host-specific, but no origin or host name holds these: a host that puts the
  // value in a header, a policy or an attribute must not get a directive, a header or markup
  if (m.domain !== undefined && (m.domain.length > 300 || /[^\x21-\x7e]|[;,'"<>\\`]/.test(m.domain)))
    return `domain ${JSON.stringify(m.domain)} holds spaces, control characters, quotes, ";", "," or non-ASCII characters (or is over 300 characters): not an origin or host name`;
  if (m.prefersBorder !== undefined && typeof m.prefersBorder !== 'boolean') return 'prefersBorder must be a boolean';
  return undefined;
}

/** True when `uri` is a UI resource URI (`ui://` and something after it). Pure. */
export function isUiUri(uri: unknown): uri is string {
  return typeof uri === 'string' && uri.startsWith(UI_SCHEME) && uri.length > UI_SCHEME.length;
}

/** The host's apps settings in `caps` (either era's client capabilities), or undefined when it did not declare the extension. Pure. */
export function appsCapabilityOf(caps: object | undefined): AppsClientCapability | undefined {
  const extensions = (caps as { extensions?: unknown } | undefined)?.extensions;
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const value = (extensions as Record<string, unknown>)[APPS_EXTENSION_ID];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as AppsClientCapability) : undefined;
}

/** True when the host behind `caps` renders `mimeType` UIs (default: HTML apps). Pure. */
export function hostSupportsApps(caps: object | undefined, mimeType: string = APP_MIME_TYPE): boolean {
  const mimeTypes = appsCapabilityOf(caps)?.mimeTypes;
  return Array.isArray(mimeTypes) && mimeTypes.includes(mimeType);
}
