/**
 * The client role's side of the stateless era's request metadata (2026-07-28 › Transports ›
 * Streamable HTTP › Request Metadata): what each request carries beside its body
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-{Name}`), handed to the
 * transport as `SendOptions.metadata`, and the `x-mcp-header` annotations those are
 * computed from.
 *
 * Design note: this is the client's knowledge, not the transport's. The client reads the
 * `tools/list` results it asked for: a tool whose `x-mcp-header` annotations break the
 * rules is removed from the result before the caller sees it (the spec's "MUST exclude",
 * reported as a warning), and the annotations of the others are remembered by tool name
 * for later `tools/call`s. A transport with nowhere to put metadata (stdio) ignores it.
 */
import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONObject } from '../../jsonrpc/types.js';
import { isObject } from '../../jsonrpc/values.js';
import { argumentAt, argumentHeaderText, encodeHeaderValue, mcpNameSource, type ParamHeader, paramHeaders } from '../../transport/stateless/mcp-headers.js';

/** Most tool definitions remembered (a bound against a server listing without end). */
const MAX_TOOLS = 10_000;

/** Per-connection state: the `x-mcp-header` annotations of the tools listed so far. */
export class RequestMetadata {
  readonly #tools = new Map<string, readonly ParamHeader[]>();

  /**
   * The metadata of one request at `revision`: `MCP-Protocol-Version`, `Mcp-Method`,
   * `Mcp-Name` where the method has one, and `Mcp-Param-{Name}` for annotated `tools/call`
   * arguments (present and not null). Header names are lower case; values are encoded.
   */
  of(revision: string, method: string, params: JSONObject | undefined): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-protocol-version': revision, 'mcp-method': method };
    const name = mcpNameSource(method, params);
    if (name !== undefined) headers['mcp-name'] = encodeHeaderValue(name);
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

  /**
   * Reads a `tools/list` result: its tools with invalid `x-mcp-header` annotations are
   * removed (each reported through `warn`) and the annotations of the rest remembered.
   * Mutates `result` in place (it was parsed for this request alone).
   */
  absorbTools(result: unknown, warn: (error: Error) => void): void {
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
