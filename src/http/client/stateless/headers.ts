/**
 * The client side of the stateless era's HTTP request headers (2026-07-28 › Transports ›
 * Streamable HTTP › Request Metadata): which headers a POST carries, and the `x-mcp-header`
 * annotations they are computed from.
 *
 * Design note: the Streamable HTTP client transport already sees every message both ways,
 * so it learns tool definitions from the `tools/list` results it carries (no API between
 * the client role and the transport): a tool whose `x-mcp-header` annotations break the
 * rules is removed from the result before the client sees it (the spec's "MUST exclude",
 * reported as a warning through the transport's `error` channel), and the annotations of
 * the others are remembered by tool name for later `tools/call`s. Only messages that claim
 * the stateless era get these headers; 2025-era traffic is untouched.
 */
import { LocalError } from '../../../jsonrpc/errors.js';
import type { RequestId } from '../../../jsonrpc/types.js';
import { claimedRevision } from '../../../protocol/stateless/wire.js';
import { argumentAt, argumentHeaderText, encodeHeaderValue, mcpNameSource, paramHeaders, type ParamHeader } from '../../stateless/mcp-headers.js';
import { isObject } from '../../../jsonrpc/values.js';

/** Most tool definitions remembered (a bound against a server listing without end). */
const MAX_TOOLS = 10_000;

/** Per-transport state: remembered annotations and `tools/list` requests in flight. */
export class StatelessRequestHeaders {
  readonly #tools = new Map<string, readonly ParamHeader[]>();
  readonly #lists = new Set<RequestId>();

  /**
   * The headers of one outgoing message, or undefined when it does not claim the stateless
   * era: `MCP-Protocol-Version` (the version its `_meta` names), `Mcp-Method`, `Mcp-Name`
   * where the method has one, and `Mcp-Param-{Name}` for annotated `tools/call` arguments
   * (present and not null). Remembers `tools/list` ids to read their results.
   */
  headersFor(message: unknown): Record<string, string> | undefined {
    if (!isObject(message) || typeof message.method !== 'string') return undefined;
    const params = isObject(message.params) ? message.params : undefined;
    const version = claimedRevision(params);
    if (version === undefined) return undefined;
    const method = message.method;
    const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': method };
    const name = mcpNameSource(method, params);
    if (name !== undefined) headers['mcp-name'] = encodeHeaderValue(name);
    if (method === 'tools/list' && (typeof message.id === 'string' || typeof message.id === 'number')) this.#lists.add(message.id);
    if (method === 'tools/call' && name !== undefined) {
      const specs = this.#tools.get(name);
      if (specs !== undefined) {
        for (const spec of specs) {
          const text = argumentHeaderText(argumentAt(params!.arguments, spec.path));
          if (text !== undefined) headers[`mcp-param-${spec.name}`] = encodeHeaderValue(text);
        }
      }
    }
    return headers;
  }

  /** A `tools/list` request that will get no answer through {@link absorb} (its POST failed). */
  forget(id: RequestId): void {
    this.#lists.delete(id);
  }

  /**
   * Reads one incoming message before it is delivered: a `tools/list` result loses its tools
   * with invalid `x-mcp-header` annotations (each reported through `warn`) and the rest are
   * remembered. Mutates `value` in place (it was parsed for this delivery alone).
   */
  absorb(value: unknown, warn: (error: Error) => void): void {
    if (this.#lists.size === 0 || !isObject(value) || value.method !== undefined) return;
    const id = value.id;
    if ((typeof id !== 'string' && typeof id !== 'number') || !this.#lists.delete(id)) return;
    const result = value.result;
    if (!isObject(result) || !Array.isArray(result.tools)) return;
    const kept: unknown[] = [];
    for (const tool of result.tools) {
      if (!isObject(tool) || typeof tool.name !== 'string') {
        kept.push(tool);
        continue;
      }
      let specs: ParamHeader[];
      try {
        specs = paramHeaders(tool.inputSchema);
      } catch (err) {
        this.#tools.delete(tool.name);
        warn(new LocalError('invalid_message', `Tool ${JSON.stringify(tool.name)} was left out of tools/list: ${(err as Error).message}`));
        continue;
      }
      if (specs.length > 0) {
        if (this.#tools.size >= MAX_TOOLS && !this.#tools.has(tool.name)) this.#tools.delete(this.#tools.keys().next().value!);
        this.#tools.set(tool.name, specs);
      } else this.#tools.delete(tool.name);
      kept.push(tool);
    }
    if (kept.length !== result.tools.length) result.tools = kept;
  }
}
