/**
 * Per-caller visibility and tool transforms, as an interceptor (`server.use(visibility(policy))`):
 * it works the same on a plain server, on one with mounts and on a proxy.
 *
 * For each request the policy gives a {@link VisibilityRule} from the caller (principal,
 * scopes, client info, era) — a fixed rule, or a function of the caller. Then:
 * - `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list` show only what
 *   the rule lets the caller see (pages may come out shorter; their cursors stay valid);
 * - a hidden tool or prompt is answered exactly as an unknown one (-32602 `Unknown tool: x`,
 *   `Unknown prompt: x`), a hidden resource as a missing one (-32002, which the 2026-07-28
 *   era words as -32602 like any), a completion of a hidden prompt or template likewise; a
 *   subscription to a hidden resource is accepted as one to a missing resource is, and not
 *   made (no `resources/updated` of it reaches the caller);
 * - tool transforms: a new name (the old one is then unknown to the caller), a new
 *   title or description, arguments fixed (removed from the input schema shown; injected on
 *   call; a caller passing one gets -32602) or defaulted (shown optional with the default;
 *   injected when absent), and output fields dropped (from the output schema and from
 *   `structuredContent`, and from the text block that serialises it).
 *
 * Allow and deny lists match the names (and URIs) the server itself serves — before a
 * rename — with globs (glob.ts): visible when `allow` is absent or matches, and `deny` does
 * not match. In the 2026-07-28 era a filtered list is marked `cacheScope: "private"`: one
 * caller's view is never cached for another.
 */
import { invalidParams, McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { InterceptContext, Interceptor } from '../server/interceptors.js';
import type { Implementation } from '../types.js';
import { matchesAny, validateGlob } from './glob.js';
import { isValidToolName } from './names.js';

/** An argument hidden behind a value, or shown with a default. */
export type ArgumentTransform = { readonly value: unknown } | { readonly default: unknown };

/** How one tool looks and behaves for the caller. */
export interface ToolTransform {
  /** The name the caller sees and calls (a valid tool name). */
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  /** Per argument: `{ value }` fixed and hidden, `{ default }` optional with that default. */
  readonly arguments?: Readonly<Record<string, ArgumentTransform>>;
  /** Top-level fields of `structuredContent` the caller never sees. */
  readonly dropOutput?: readonly string[];
}

/** What one caller may see and call. */
export interface VisibilityRule {
  /** Globs of tool and prompt names the caller may see (absent: all). */
  readonly allow?: readonly string[];
  /** Globs of tool and prompt names hidden from the caller (wins over `allow`). */
  readonly deny?: readonly string[];
  /** Globs of resource URIs and URI templates the caller may see (absent: all). */
  readonly allowResources?: readonly string[];
  /** Globs of resource URIs and templates hidden from the caller. */
  readonly denyResources?: readonly string[];
  /** Transforms by the server's tool name. */
  readonly tools?: Readonly<Record<string, ToolTransform>>;
}

/** Who is asking, as the policy sees it. */
export interface Caller {
  /** The verified auth information (mcpkit/auth's AuthInfo over HTTP), if any. */
  readonly principal: unknown;
  /** `principal.scopes` when it is a list of strings, else empty. */
  readonly scopes: readonly string[];
  /** The client's self-reported identity (not proof of anything). */
  readonly clientInfo: Implementation | undefined;
  readonly era: InterceptContext['era'];
  /** The whole interceptor context. */
  readonly call: InterceptContext;
}

/** A fixed rule, or a function of the caller (undefined: everything visible, nothing transformed). */
export type VisibilityPolicy = VisibilityRule | ((caller: Caller) => VisibilityRule | undefined | Promise<VisibilityRule | undefined>);

/** A rule checked once and indexed for lookups. */
class Compiled {
  /** exposed name → server name, for renamed tools */
  readonly renamedFrom = new Map<string, string>();
  constructor(readonly rule: VisibilityRule) {
    for (const list of [rule.allow, rule.deny, rule.allowResources, rule.denyResources]) for (const g of list ?? []) validateGlob(g);
    for (const [name, t] of Object.entries(rule.tools ?? {})) {
      if (t.name !== undefined) {
        if (!isValidToolName(t.name))
          throw new TypeError(
            `visibility: tool ${JSON.stringify(name)} cannot be renamed ${JSON.stringify(t.name)}: a tool name is 1-128 characters of A-Z, a-z, 0-9, "_", "-" and "."`,
          );
        if (this.renamedFrom.has(t.name)) throw new TypeError(`visibility: two tools are renamed ${JSON.stringify(t.name)}: give each its own name`);
        this.renamedFrom.set(t.name, name);
      }
      for (const [arg, a] of Object.entries(t.arguments ?? {})) {
        if (typeof a !== 'object' || a === null || 'value' in a === 'default' in a)
          throw new TypeError(
            `visibility: argument ${JSON.stringify(arg)} of tool ${JSON.stringify(name)} takes exactly one of { value } (fixed, hidden) or { default }`,
          );
      }
    }
  }

  sees(name: string): boolean {
    const { allow, deny } = this.rule;
    return (allow === undefined || matchesAny(allow, name)) && !(deny !== undefined && matchesAny(deny, name));
  }

  seesResource(uri: string): boolean {
    const { allowResources: allow, denyResources: deny } = this.rule;
    return (allow === undefined || matchesAny(allow, uri)) && !(deny !== undefined && matchesAny(deny, uri));
  }

  /** Whether another tool is renamed to this server name (the renamed one answers to it). */
  shadowed(name: string): boolean {
    const from = this.renamedFrom.get(name);
    return from !== undefined && from !== name;
  }

  transform(name: string): ToolTransform | undefined {
    const tools = this.rule.tools;
    return tools !== undefined && Object.hasOwn(tools, name) ? tools[name] : undefined;
  }

  /** The server's name of the tool the caller calls `exposed`, or undefined when the caller cannot see it. */
  serverName(exposed: string): string | undefined {
    const original = this.renamedFrom.get(exposed) ?? exposed;
    if (original === exposed && this.transform(exposed)?.name !== undefined && this.transform(exposed)!.name !== exposed) return undefined; // renamed away
    return this.sees(original) ? original : undefined;
  }
}

const LIST_KEYS: Record<string, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/**
 * The visibility interceptor of `policy` (see the module note). A fixed rule is checked
 * now (TypeError for a bad glob, rename or argument transform); a function's rules when
 * first returned, each checked rule remembered by identity (return the same objects).
 */
export function visibility(policy: VisibilityPolicy): Interceptor {
  const ruleFor = resolver(policy);
  return {
    name: 'visibility',
    intercept(call, next) {
      if (call.direction !== 'incoming' || call.kind !== 'request' || !(call.method in LIST_KEYS || GATED.has(call.method))) return next();
      return ruleFor(call).then((rule) => (rule === undefined ? next() : serve(rule, call, next)));
    },
  };
}

/** The rule of each caller under `policy`: a fixed rule checked now, a function's rules checked when first returned. */
function resolver(policy: VisibilityPolicy): (call: InterceptContext) => Promise<Compiled | undefined> {
  const fixed = typeof policy === 'function' ? undefined : new Compiled(policy);
  const seen = new WeakMap<VisibilityRule, Compiled>();
  return async (call) => {
    if (fixed !== undefined) return fixed;
    const principal = call.principal;
    const scopes = (principal as { scopes?: unknown } | undefined)?.scopes;
    const caller: Caller = {
      principal,
      scopes: Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [],
      clientInfo: call.clientInfo,
      era: call.era,
      call,
    };
    const rule = await (policy as (caller: Caller) => VisibilityRule | undefined | Promise<VisibilityRule | undefined>)(caller);
    if (rule === undefined) return undefined;
    let compiled = seen.get(rule);
    if (compiled === undefined) seen.set(rule, (compiled = new Compiled(rule)));
    return compiled;
  };
}

/**
 * @internal The caller's view of a server's tool definitions under `policy` (search-tools.ts):
 * by the server's name, each visible tool as the caller sees it (renamed, described and with
 * its arguments as the rule transforms them), in the server's order. Checks a fixed rule now.
 */
export function toolView(policy: VisibilityPolicy): (call: InterceptContext, tools: readonly JSONObject[]) => Promise<Map<string, JSONObject>> {
  const ruleFor = resolver(policy);
  return async (call, tools) => {
    const rule = await ruleFor(call);
    const view = new Map<string, JSONObject>();
    for (const tool of tools) {
      const name = tool.name as string;
      if (rule === undefined) view.set(name, tool);
      else if (rule.sees(name) && !rule.shadowed(name)) view.set(name, showTool(tool, rule.transform(name)));
    }
    return view;
  };
}

/**
 * @internal What the caller sees of a result of tool `name` (the server's name) under
 * `policy`: without the output fields its rule drops (gateway-tasks.ts: a task's result
 * reaches the caller through `tasks/result`, past the `tools/call` this interceptor shapes).
 */
export function toolResultView(policy: VisibilityPolicy): (call: InterceptContext, name: string, result: JSONObject) => Promise<JSONObject> {
  const ruleFor = resolver(policy);
  return async (call, name, result) => {
    const drop = (await ruleFor(call))?.transform(name)?.dropOutput;
    return drop === undefined ? result : dropFields(result, drop);
  };
}

const GATED = new Set(['tools/call', 'prompts/get', 'resources/read', 'resources/subscribe', 'completion/complete']);

async function serve(rule: Compiled, call: InterceptContext, next: (params?: JSONObject) => unknown): Promise<unknown> {
  const params = call.params ?? {};
  const key = LIST_KEYS[call.method];
  if (key !== undefined) {
    const result = (await next()) as JSONObject;
    const items = result[key];
    if (!Array.isArray(items)) return result;
    const shown = (items as JSONObject[]).flatMap((item) => {
      if (key === 'tools')
        return rule.sees(item.name as string) && !rule.shadowed(item.name as string) ? [showTool(item, rule.transform(item.name as string))] : [];
      if (key === 'prompts') return rule.sees(item.name as string) ? [item] : [];
      return rule.seesResource((key === 'resources' ? item.uri : item.uriTemplate) as string) ? [item] : [];
    });
    return call.era === '2026-07-28' ? { ...result, [key]: shown, cacheScope: 'private' } : { ...result, [key]: shown };
  }
  if (call.method === 'tools/call') {
    const exposed = params.name;
    const name = typeof exposed === 'string' ? rule.serverName(exposed) : undefined;
    if (name === undefined) throw invalidParams(`Unknown tool: ${String(exposed)}`);
    const t = rule.transform(name);
    const args = injectArguments(exposed as string, params.arguments, t);
    const result = await next({ ...params, name, ...(args === undefined ? {} : { arguments: args }) });
    return t?.dropOutput === undefined ? result : dropFields(result as JSONObject, t.dropOutput);
  }
  if (call.method === 'prompts/get') {
    if (typeof params.name !== 'string' || !rule.sees(params.name)) throw invalidParams(`Unknown prompt: ${String(params.name)}`);
    return next();
  }
  if (call.method === 'resources/subscribe') {
    // the server accepts a subscription to any URI; to a hidden one it is accepted and never made (no updates of it reach the caller)
    if (typeof params.uri === 'string' && !rule.seesResource(params.uri)) return {};
    return next();
  }
  if (call.method === 'resources/read') {
    if (typeof params.uri === 'string' && !rule.seesResource(params.uri)) throw new McpError(-32002, 'Resource not found', { uri: params.uri });
    return next();
  }
  // completion/complete
  const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  if (ref?.type === 'ref/prompt' && (typeof ref.name !== 'string' || !rule.sees(ref.name))) throw invalidParams(`Unknown prompt: ${String(ref.name)}`);
  if (ref?.type === 'ref/resource' && (typeof ref.uri !== 'string' || !rule.seesResource(ref.uri)))
    throw invalidParams(`Unknown resource template: ${String(ref.uri)}`);
  return next();
}

/** A tool definition as the caller sees it. */
function showTool(tool: JSONObject, t: ToolTransform | undefined): JSONObject {
  if (t === undefined) return tool;
  const out: JSONObject = { ...tool };
  if (t.name !== undefined) out.name = t.name;
  if (t.title !== undefined) out.title = t.title;
  if (t.description !== undefined) out.description = t.description;
  if (t.arguments !== undefined && isObject(tool.inputSchema)) {
    const schema = { ...tool.inputSchema };
    const properties: JSONObject = isObject(schema.properties) ? { ...schema.properties } : {};
    let required = Array.isArray(schema.required) ? (schema.required as string[]).slice() : undefined;
    for (const [arg, a] of Object.entries(t.arguments)) {
      required = required?.filter((r) => r !== arg);
      if ('value' in a) delete properties[arg];
      else if (Object.hasOwn(properties, arg)) properties[arg] = { ...(properties[arg] as JSONObject), default: a.default as JSONObject };
    }
    schema.properties = properties;
    if (required !== undefined) schema.required = required;
    out.inputSchema = schema;
  }
  if (t.dropOutput !== undefined && isObject(tool.outputSchema)) {
    const schema = { ...tool.outputSchema };
    if (isObject(schema.properties)) {
      const properties = { ...schema.properties };
      for (const f of t.dropOutput) delete properties[f];
      schema.properties = properties;
    }
    if (Array.isArray(schema.required)) schema.required = (schema.required as string[]).filter((r) => !t.dropOutput!.includes(r));
    out.outputSchema = schema;
  }
  return out;
}

/** The arguments to forward: fixed ones injected (-32602 when the caller sent one), defaults filled in. */
function injectArguments(exposed: string, given: unknown, t: ToolTransform | undefined): JSONObject | undefined {
  if (t?.arguments === undefined) return undefined;
  const args: JSONObject = isObject(given) ? { ...given } : {};
  for (const [arg, a] of Object.entries(t.arguments)) {
    if ('value' in a) {
      if (Object.hasOwn(args, arg)) throw invalidParams(`Invalid arguments for tool ${exposed}: "${arg}" is not an argument of this tool; remove it`);
      args[arg] = a.value as JSONObject;
    } else if (!Object.hasOwn(args, arg)) args[arg] = a.default as JSONObject;
  }
  return args;
}

/** A tool result without the dropped fields (in `structuredContent` and its JSON text block). */
function dropFields(result: JSONObject, fields: readonly string[]): JSONObject {
  const structured = result.structuredContent;
  if (!isObject(structured)) return result;
  const kept: JSONObject = { ...structured };
  for (const f of fields) delete kept[f];
  const original = JSON.stringify(structured);
  const content = Array.isArray(result.content)
    ? (result.content as JSONObject[]).map((block) =>
        block.type === 'text' && typeof block.text === 'string' && sameJson(block.text, original) ? { ...block, text: JSON.stringify(kept) } : block,
      )
    : result.content;
  return { ...result, structuredContent: kept, ...(content === undefined ? {} : { content }) };
}

/** Whether `text` is the JSON of the value serialised as `json` (any spacing). */
function sameJson(text: string, json: string): boolean {
  if (text === json) return true;
  if (text.length > 4 * json.length + 1024 || text.trimStart()[0] !== '{') return false;
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is JSONObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
