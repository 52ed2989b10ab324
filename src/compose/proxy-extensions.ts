/**
 * What a proxy declares to its callers of its upstream's capabilities, and the protocol
 * extensions (`capabilities.extensions`) it serves on the upstream's behalf.
 *
 * The rule: a proxy declares only what it serves. A capability or extension it declares
 * while answering its methods with -32601 misleads every caller (it picks the server for a
 * feature, then fails), so:
 * - the core capabilities it forwards (tools, resources, prompts, completions, logging, the
 *   2025-era `tasks`) are mirrored; `experimental` and any other member whose methods the
 *   proxy does not know are left out;
 * - an extension it knows is declared with the upstream's own settings, and each
 *   client-to-server request of the extension those settings enable is forwarded upstream
 *   (the skills extension, SEP-2640: `skills/list`, `skills/get`, and
 *   `resources/directory/read` when the upstream declares `directoryRead`); an extension
 *   that adds no methods (MCP Apps: its `ui://` resources and tool metadata travel through
 *   the core methods) is declared as it is;
 * - an extension it does not know (so cannot forward) is not declared. The 2026-07-28
 *   tasks extension is not declared here either: the proxy's server declares it in its own
 *   `server/discover` when it passes the extension through (proxy-tasks.ts).
 */
import { ALL_REVISIONS } from '../client/client.js';
import { APPS_EXTENSION_ID } from '../extensions/apps/wire.js';
import { SKILLS_EXTENSION_ID, skillsProtocolExtension } from '../extensions/skills/wire.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import { hasCapability, type ProtocolExtension } from '../protocol/table.js';
import type { ServerCapabilities } from '../types.js';

/**
 * The extensions a proxy forwards, by identifier: the method-table entries of the server
 * side for the upstream's settings (they declare the settings), or null for an extension
 * that adds no methods.
 */
const FORWARDABLE: ReadonlyMap<string, ((settings: JSONObject) => ProtocolExtension) | null> = new Map<
  string,
  ((settings: JSONObject) => ProtocolExtension) | null
>([
  [SKILLS_EXTENSION_ID, (settings) => skillsProtocolExtension('server', settings)],
  [APPS_EXTENSION_ID, null],
]);

/** The core capabilities a proxy forwards (proxy.ts installs their methods when the upstream has them). */
const CORE: ReadonlySet<string> = new Set(['tools', 'resources', 'prompts', 'completions', 'logging', 'tasks']);

/** The 2026-07-28 tasks extension's identifier (spelled out: this module stays era-neutral). */
const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/**
 * The capabilities a proxy declares for `upstream`'s (see the module note): the core ones it
 * forwards, with `listChanged` on every list (the proxy announces a change when the upstream
 * comes back after a restart), and the extensions it knows with the upstream's settings.
 * Pure.
 */
export function proxiedCapabilities(upstream: ServerCapabilities): ServerCapabilities {
  const caps: JSONObject = {};
  for (const [key, value] of Object.entries(upstream as JSONObject)) {
    if (value === undefined || !CORE.has(key)) continue;
    caps[key] = key === 'tools' || key === 'resources' || key === 'prompts' ? { ...(value as JSONObject), listChanged: true } : value;
  }
  const extensions = proxiedExtensions(upstream);
  if (Object.keys(extensions).length > 0) caps.extensions = extensions;
  return caps as ServerCapabilities;
}

/** The upstream's extensions a proxy serves, identifier → the upstream's settings. Pure. */
export function proxiedExtensions(upstream: ServerCapabilities): Record<string, JSONObject> {
  const out: Record<string, JSONObject> = {};
  const declared = (upstream as { extensions?: unknown }).extensions;
  if (!isObject(declared)) return out;
  for (const [id, settings] of Object.entries(declared)) {
    if (id === TASKS_EXTENSION_ID || !FORWARDABLE.has(id) || !isObject(settings)) continue;
    out[id] = settings;
  }
  return out;
}

/**
 * For each extension of `extensions` (from {@link proxiedExtensions}) that adds methods:
 * its server-side table entries (declaring the upstream's settings) and the client-to-server
 * requests those settings enable, which the proxy forwards. Pure.
 */
export function forwardedExtensionRequests(extensions: Readonly<Record<string, JSONObject>>): Array<{ extension: ProtocolExtension; requests: string[] }> {
  const out: Array<{ extension: ProtocolExtension; requests: string[] }> = [];
  for (const [id, settings] of Object.entries(extensions)) {
    const make = FORWARDABLE.get(id);
    if (make == null) continue;
    const extension = make(settings);
    const declared = { extensions: { [id]: settings } };
    const requests = new Set<string>();
    for (const revision of ALL_REVISIONS) {
      for (const spec of extension.methods(revision)) {
        if (spec.kind !== 'request' || spec.direction === 'server-to-client') continue;
        if (spec.gate !== undefined && spec.gate.holder === 'receiver' && !hasCapability(declared, spec.gate.path)) continue;
        requests.add(spec.method);
      }
    }
    out.push({ extension, requests: [...requests] });
  }
  return out;
}

/**
 * The method-table entries of every extension a proxy may forward, for its upstream client
 * (so that it may send their requests; gated there by the upstream's declaration). They
 * declare nothing: the proxy is no client of the extension itself.
 */
export function upstreamExtensionTables(): ProtocolExtension[] {
  const out: ProtocolExtension[] = [];
  for (const make of FORWARDABLE.values()) {
    if (make === null) continue;
    const extension = make({});
    out.push({ name: extension.name, methods: (revision) => extension.methods(revision) });
  }
  return out;
}
