/**
 * The OpenTelemetry semantic conventions for MCP this package follows, as names and pure
 * functions (no OpenTelemetry import): attribute keys, metric names and their bucket advice,
 * and what a method's params and result say about its span.
 *
 * Source: open-telemetry/semantic-conventions-genai, `docs/gen-ai/mcp.md` at commit
 * 0393513c908bf895e7b3ec480a2c1eb073c584af (status "Development"; its attribute tables cite
 * semantic-conventions v1.41.1 for `error.type`, `jsonrpc.*`, `rpc.*`, `network.*`,
 * `server.*`), and SEP-414 (trace context in `params._meta`: `traceparent`, `tracestate`,
 * `baggage`, written unprefixed).
 */
import type { JSONObject } from '../jsonrpc/types.js';

/** The conventions' document and commit this instrumentation follows. */
export const CONVENTIONS_SOURCE = 'open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md@0393513c908bf895e7b3ec480a2c1eb073c584af';

/** Attribute keys of the MCP spans and metrics. */
export const Attr = {
  MethodName: 'mcp.method.name',
  ProtocolVersion: 'mcp.protocol.version',
  SessionId: 'mcp.session.id',
  ResourceUri: 'mcp.resource.uri',
  RequestId: 'jsonrpc.request.id',
  StatusCode: 'rpc.response.status_code',
  ErrorType: 'error.type',
  OperationName: 'gen_ai.operation.name',
  ToolName: 'gen_ai.tool.name',
  PromptName: 'gen_ai.prompt.name',
  ToolArguments: 'gen_ai.tool.call.arguments',
  ToolResult: 'gen_ai.tool.call.result',
  NetworkTransport: 'network.transport',
  NetworkProtocolName: 'network.protocol.name',
  ServerAddress: 'server.address',
  ServerPort: 'server.port',
} as const;

/** Metric names (histograms, unit `s`). */
export const Metric = {
  ClientOperation: 'mcp.client.operation.duration',
  ServerOperation: 'mcp.server.operation.duration',
  ClientSession: 'mcp.client.session.duration',
  ServerSession: 'mcp.server.session.duration',
} as const;

/** The `ExplicitBucketBoundaries` advice the conventions give every MCP duration histogram (seconds). */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);

/** `error.type` of a `tools/call` answered with `isError: true`. */
export const TOOL_ERROR = 'tool_error';

/** The `_meta` keys SEP-414 reserves for context propagation (unprefixed). */
export const PROPAGATION_KEYS: readonly string[] = Object.freeze(['traceparent', 'tracestate', 'baggage']);

/** Attributes read from a method's params: its span name's target and the method's own attributes. */
export interface MethodFacts {
  /** The span name: `{mcp.method.name} {target}`, or the method alone without a low-cardinality target. */
  readonly name: string;
  /** Method-specific attributes (tool or prompt name, resource URI, operation name). */
  readonly attributes: Record<string, string>;
}

/** The methods whose params carry a resource URI (`mcp.resource.uri`, note [4] of the conventions). */
const URI_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe', 'notifications/resources/updated']);

/**
 * The span name and method attributes of `method` with `params`. The target is the tool
 * name (`tools/call`) or prompt name (`prompts/get`); the resource URI joins the name only
 * when `uriInName` (the conventions' opt-in: it is high-cardinality).
 */
export function methodFacts(method: string, params: JSONObject | undefined, uriInName: boolean): MethodFacts {
  const attributes: Record<string, string> = {};
  const name = describeMethod(method, params, uriInName, attributes);
  return { name, attributes };
}

/**
 * Writes the method attributes of `method` with `params` into `into` (`mcp.method.name`,
 * then the tool, prompt or resource ones) and returns the span name (see {@link methodFacts}):
 * the hot path's form, which builds no object of its own.
 */
export function describeMethod(method: string, params: JSONObject | undefined, uriInName: boolean, into: Record<string, string | number>): string {
  into[Attr.MethodName] = method;
  if (method === 'tools/call') {
    into[Attr.OperationName] = 'execute_tool';
    const name = params?.name;
    if (typeof name !== 'string') return method;
    into[Attr.ToolName] = name;
    return `${method} ${name}`;
  }
  if (method === 'prompts/get') {
    const name = params?.name;
    if (typeof name !== 'string') return method;
    into[Attr.PromptName] = name;
    return `${method} ${name}`;
  }
  if (URI_METHODS.has(method)) {
    const uri = params?.uri;
    if (typeof uri !== 'string') return method;
    into[Attr.ResourceUri] = uri;
    if (uriInName) return `${method} ${uri}`;
  }
  return method;
}

/** How an operation failed: `error.type`, and `rpc.response.status_code` when the peer answered a JSON-RPC error. */
export interface Failure {
  readonly type: string;
  readonly statusCode: string | undefined;
  readonly message: string;
}

/**
 * The failure an error stands for. A JSON-RPC error (numeric `code`) is its code as a string
 * in both attributes (note [1]: "the string representation of the JSON-RPC error code"); a
 * local failure with a string code (mcpkit's `LocalError`: `request_timeout`,
 * `connection_closed`, …) is that code; anything else is its class name, or `_OTHER`.
 */
export function failureOf(error: unknown, fallbackCode: number | undefined): Failure {
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | null | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const code = e?.code;
  if (typeof code === 'number') return { type: String(code), statusCode: String(code), message };
  if (typeof code === 'string' && code !== '') return { type: code, statusCode: undefined, message };
  // an incoming request whose handler threw something else is answered -32603
  if (fallbackCode !== undefined) return { type: String(fallbackCode), statusCode: String(fallbackCode), message };
  return { type: typeof e?.name === 'string' && e.name !== '' ? e.name : '_OTHER', statusCode: undefined, message };
}

/** True when `result` is a tool result reporting a failure (`isError: true`). */
export function isToolError(method: string, result: unknown): boolean {
  return method === 'tools/call' && typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
}

/**
 * The task a result created, if it is one: the 2025-11-25 `CreateTaskResult`
 * (`{ task: { taskId } }`) or the 2026-07-28 tasks extension's flat one (SEP-2663:
 * `{ resultType: "task", taskId }`).
 */
export function createdTaskId(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as { task?: unknown; resultType?: unknown; taskId?: unknown };
  if (r.resultType === 'task') return typeof r.taskId === 'string' ? r.taskId : undefined;
  const task = r.task;
  const id = typeof task === 'object' && task !== null ? (task as { taskId?: unknown }).taskId : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The requests about an existing task (`params.taskId`), whose spans link to the span of the
 * request that created it: `tasks/get`, `tasks/result`, `tasks/cancel` (2025-11-25) and
 * `tasks/get`, `tasks/update`, `tasks/cancel` (the 2026-07-28 tasks extension, whose
 * `tasks/get` carries the result).
 */
export const TASK_FOLLOW_UPS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/result', 'tasks/update', 'tasks/cancel']);

/** The metric attributes among a span's (the conventions list fewer on metrics: no ids, no URI by default). */
export const METRIC_ATTRIBUTES: readonly string[] = Object.freeze([
  Attr.MethodName,
  Attr.PromptName,
  Attr.ToolName,
  Attr.OperationName,
  Attr.ProtocolVersion,
  Attr.NetworkProtocolName,
  Attr.NetworkTransport,
  Attr.ServerAddress,
  Attr.ServerPort,
]);

/** A JSON value as an attribute value (the conventions allow a JSON string where structured values are not supported). */
export function jsonAttribute(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '"[unserializable]"';
  }
}
