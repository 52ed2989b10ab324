/**
 * The tool registry: keyed by name, in registration order, shared by every session of a
 * server. Two tiers of handlers:
 *
 * - typed (`registerTool`): arguments validated against the input schema (JSON Schema or
 *   Standard Schema, compiled once), invalid input and thrown errors become `isError: true`
 *   results (SEP-1303; thrown errors also go to `onError` as {@link ToolHandlerError}), a
 *   returned value of the wrong shape is refused naming the tool (tool-return.ts), `structuredContent` validated against the output schema and given a
 *   text fallback, content blocks the client's revision lacks rewritten (content-compat.ts);
 *   `structuredContent` JSON cannot carry (Infinity, NaN, bigints, cycles) is a tool error
 *   naming the field, since serialization would change it (json-check.ts);
 * - raw (`registerRawTool`): the handler receives the request params untouched and returns
 *   the result as it should go on the wire.
 *
 * Unknown tools are a protocol error (-32602). An {@link McpError} raised by a handler is
 * passed through as a protocol error (for example -32042 URL elicitation required); one the
 * client answered a nested request with becomes a tool error.
 */
import { invalidParams, McpError, toError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { isThenable } from '../jsonrpc/values.js';
import { formatIssues } from '../schema/issues.js';
import { type StandardSchemaV1, toSchemaAdapter } from '../schema/standard-schema.js';
import type { JsonSchemaValidator, SchemaAdapter, ValidationResult } from '../schema/types.js';
import type { CallToolResult, Icon, Meta, Tool, ToolAnnotations } from '../types.js';
import { toolResultForRevision } from './content-compat.js';
import type { ServerRequestContext } from './context.js';
import type { ToolArgs, ToolStructured } from './infer.js';
import { findNonJson } from './json-check.js';
import { type StructuredToolReturn, type ToolReturn, toolReturnProblem } from './tool-return.js';

export type { StructuredToolReturn, ToolContentResult, ToolReturn, ToolStructuredResult } from './tool-return.js';

/**
 * A user schema: a plain JSON Schema object (a literal is typed as written, no `as const`
 * needed) or any Standard Schema (zod 4 and 3, valibot, arktype…).
 */
export type UserSchema = { readonly [key: string]: unknown } | StandardSchemaV1 | { readonly '~standard': unknown };

/**
 * Definition of a typed tool. `I` and `O` are the input and output schemas' own types, from
 * which the handler's argument and result types are inferred (see infer.ts).
 */
export interface ToolConfig<I extends UserSchema | undefined = UserSchema | undefined, O extends UserSchema | undefined = UserSchema | undefined> {
  title?: string;
  description?: string;
  /**
   * Arguments schema; omitted means "no arguments" (`{type: "object"}` on the wire). Must
   * describe an object (`type: "object"`); checked when the tool is registered.
   */
  inputSchema?: I;
  /** Structured output schema (an object schema); when set, results must carry matching `structuredContent`. */
  outputSchema?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** `execution` member of the tool definition (2025-11-25 task support). */
  execution?: JSONObject;
  _meta?: Meta;
}

/**
 * A typed tool handler. `args` are the validated (and, for Standard Schemas, parsed)
 * arguments, typed from the input schema; `structuredContent` is typed from the output schema.
 */
export type ToolHandler<A = Record<string, unknown>, S = Record<string, unknown>> = (
  args: A,
  ctx: ServerRequestContext,
) => ToolReturn<S> | Promise<ToolReturn<S>>;

/**
 * The handler type {@link McpServer.registerTool} expects for a config: with an output
 * schema a {@link StructuredToolHandler}, else a {@link ToolHandler}. The output schema's
 * type comes from the config alone (`NoInfer`): what a handler returns never steers it.
 */
export type ToolHandlerFor<I extends UserSchema | undefined, O extends UserSchema | undefined> = [NoInfer<O>] extends [undefined]
  ? ToolHandler<ToolArgs<I>, ToolStructured<NoInfer<O>>>
  : StructuredToolHandler<ToolArgs<I>, ToolStructured<NoInfer<O>>>;

/**
 * A typed handler of a tool with an output schema: it returns `structuredContent` matching
 * the schema (content optional), or a tool error (`isError: true`) with content.
 */
export type StructuredToolHandler<A = Record<string, unknown>, S = Record<string, unknown>> = (
  args: A,
  ctx: ServerRequestContext,
) => StructuredToolReturn<S> | Promise<StructuredToolReturn<S>>;

/** How the registry calls any handler (the typed ones are checked at their registration). */
type StoredHandler = (args: unknown, ctx: ServerRequestContext) => ToolReturn<unknown> | Promise<ToolReturn<unknown>>;

/** A raw tool handler: params as received, result as sent. */
export type RawToolHandler = (params: JSONObject, ctx: ServerRequestContext) => CallToolResult | Promise<CallToolResult>;

/** A handle on a registered tool. */
export interface RegisteredTool<A = Record<string, unknown>, S = Record<string, unknown>> {
  readonly name: string;
  /**
   * Replaces parts of the definition or the handler; announces `list_changed`. A new schema
   * is checked as at registration (SchemaError); the handler keeps the registered types.
   */
  update(changes: Partial<ToolConfig> & { handler?: ToolHandler<A, S> }): void;
  /** Removes the tool; announces `list_changed`. */
  remove(): void;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

interface Entry {
  definition: Tool;
  input: SchemaAdapter | undefined;
  output: SchemaAdapter | undefined;
  handler: StoredHandler | undefined;
  raw: RawToolHandler | undefined;
  /** Pending while a schema's wire form is being produced (a converter loaded on first use). */
  ready: Promise<void> | undefined;
  /** Where the handler's failures and refused results are reported (`ServerOptions.onError`). */
  report: (error: Error) => void;
}

/**
 * What `ServerOptions.onError` receives when a typed tool failed: its handler threw (the
 * thrown value is the `cause`, and its `stack` is this error's `stack`, so `MCPKIT_DEBUG=1`
 * prints where it was thrown) or returned a result the registry refused (malformed, or not matching
 * the output schema). The client gets a tool error (`isError: true`) with the thrown error's
 * message, or the refusal, either way; this is the developer's copy.
 */
export class ToolHandlerError extends Error {
  /** The tool's name. */
  readonly tool: string;
  constructor(tool: string, thrown: unknown, refusal?: string) {
    const inner = thrown instanceof Error ? thrown : undefined;
    const what = refusal ?? `tool ${tool} threw ${inner ? `${inner.name}: ${inner.message}` : String(thrown)}`;
    super(what, thrown === undefined ? undefined : { cause: thrown });
    this.name = 'ToolHandlerError';
    this.tool = tool;
    // where it was thrown, not where it was caught
    if (inner?.stack !== undefined) this.stack = inner.stack;
  }
}

/** Builds an `isError: true` result carrying `message`. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Registry of tools. */
export class ToolRegistry {
  readonly #tools = new Map<string, Entry>();
  readonly #validator: JsonSchemaValidator | undefined;
  readonly #changed: () => void;
  readonly #failed: (error: Error) => void;
  readonly #pending = new Set<Promise<void>>();
  #list: Tool[] | undefined;

  /**
   * `changed` announces `list_changed`; `failed` reports a tool dropped because its schema's
   * wire form could not be produced (only schemas converted after registration can fail late),
   * and each failure of a typed tool's handler ({@link ToolHandlerError}).
   */
  constructor(changed: () => void, validator?: JsonSchemaValidator, failed: (error: Error) => void = () => {}) {
    this.#changed = changed;
    this.#validator = validator;
    this.#failed = failed;
  }

  /**
   * Resolves once every schema's wire form is ready; rejects with the first {@link SchemaError}
   * of a schema that could not be converted (that tool is then not registered). Immediate
   * when nothing is pending.
   */
  async ready(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  /** True while some schema's wire form is still being produced. */
  get pending(): boolean {
    return this.#pending.size > 0;
  }

  get size(): number {
    return this.#tools.size;
  }

  /**
   * Registers a typed tool. Throws TypeError for a duplicate or malformed name, and
   * SchemaError when a schema cannot be compiled.
   */
  register<A, S>(name: string, config: ToolConfig, handler: ToolHandler<A, S>): RegisteredTool<A, S> {
    this.#checkName(name);
    const stored = handler as unknown as StoredHandler;
    const entry = this.#build(name, config, stored);
    this.#tools.set(name, entry);
    this.#touch();
    return this.#handle(name, config, stored) as RegisteredTool<A, S>;
  }

  /** Registers a raw tool whose definition goes on the wire as given. */
  registerRaw(definition: Tool, handler: RawToolHandler): RegisteredTool {
    this.#checkName(definition.name);
    this.#tools.set(definition.name, {
      definition,
      input: undefined,
      output: undefined,
      handler: undefined,
      raw: handler,
      ready: undefined,
      report: this.#failed,
    });
    this.#touch();
    const name = definition.name;
    return {
      name,
      update: () => {
        throw new TypeError('Raw tools are replaced by removing and registering them again');
      },
      remove: () => this.#remove(name),
    };
  }

  #checkName(name: string): void {
    if (!TOOL_NAME.test(name)) throw new TypeError(`Tool name ${JSON.stringify(name)} must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" and "."`);
    if (this.#tools.has(name)) throw new TypeError(`A tool named ${JSON.stringify(name)} is already registered`);
  }

  #build(name: string, config: ToolConfig, handler: StoredHandler): Entry {
    // Schemas are checked here (object schemas, strict keywords, dialect, local $refs: a
    // SchemaError names the problem); validators compile on first use, keeping cold start low.
    const input =
      config.inputSchema === undefined ? undefined : toSchemaAdapter(config.inputSchema, this.#validator, { requireObject: `inputSchema of tool "${name}"` });
    const output =
      config.outputSchema === undefined
        ? undefined
        : toSchemaAdapter(config.outputSchema, this.#validator, { io: 'output', requireObject: `outputSchema of tool "${name}"` });
    const late = [input?.ready, output?.ready].filter((p): p is Promise<void> => p !== undefined);
    const definition: Tool = { name, inputSchema: input && !input.ready ? input.jsonSchema : { type: 'object' } };
    if (config.title !== undefined) definition.title = config.title;
    if (config.description !== undefined) definition.description = config.description;
    if (output && !output.ready) definition.outputSchema = output.jsonSchema;
    if (config.annotations !== undefined) definition.annotations = config.annotations;
    if (config.icons !== undefined) definition.icons = config.icons;
    if (config.execution !== undefined) definition.execution = config.execution;
    if (config._meta !== undefined) definition._meta = config._meta;
    const entry: Entry = { definition, input, output, handler, raw: undefined, ready: undefined, report: this.#failed };
    if (late.length > 0) entry.ready = this.#whenConverted(name, entry, late);
    return entry;
  }

  /** Completes a definition whose schemas are converted after registration; drops the tool when one cannot be. */
  #whenConverted(name: string, entry: Entry, late: Promise<void>[]): Promise<void> {
    const done = Promise.all(late).then(
      () => {
        if (entry.input) entry.definition.inputSchema = entry.input.jsonSchema;
        if (entry.output) entry.definition.outputSchema = entry.output.jsonSchema;
        entry.ready = undefined;
        this.#list = undefined;
      },
      (error: unknown) => {
        if (this.#tools.get(name) === entry) this.#remove(name);
        const failure = toError(error);
        this.#failed(failure);
        throw failure;
      },
    );
    const tracked = done.finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
    tracked.catch(() => {});
    return done;
  }

  #handle(name: string, config: ToolConfig, handler: StoredHandler): RegisteredTool<unknown, unknown> {
    let current = config;
    let currentHandler = handler;
    return {
      name,
      update: (changes) => {
        if (!this.#tools.has(name)) throw new TypeError(`Tool ${name} was removed`);
        const { handler: h, ...rest } = changes;
        current = { ...current, ...rest };
        if (h) currentHandler = h as StoredHandler;
        this.#tools.set(name, this.#build(name, current, currentHandler));
        this.#touch();
      },
      remove: () => this.#remove(name),
    };
  }

  #remove(name: string): void {
    if (this.#tools.delete(name)) this.#touch();
  }

  #touch(): void {
    this.#list = undefined;
    this.#changed();
  }

  /**
   * Every tool definition, in registration order (cached until the next change). A tool whose
   * schemas are still being converted is left out until they are (await {@link ready}).
   */
  list(): Tool[] {
    return (this.#list ??= Array.from(this.#tools.values())
      .filter((e) => e.ready === undefined)
      .map((e) => e.definition));
  }

  /** The definition of `name`, if registered. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name)?.definition;
  }

  /** Runs `tools/call`. Rejects with -32602 for an unknown tool; other failures become tool errors. */
  async call(params: JSONObject, ctx: ServerRequestContext): Promise<CallToolResult> {
    return this.#call(params, ctx);
  }

  /**
   * @internal The `tools/call` handler of the server's handler table: {@link call}, answering
   * at once when every step did (see `#call`).
   */
  callHandler(): (params: JSONObject | undefined, ctx: ServerRequestContext) => CallToolResult | Promise<CallToolResult> {
    return (params, ctx) => this.#call(params!, ctx);
  }

  /**
   * {@link call} answering at once when every step (the schema checks, the handler) did:
   * returns the result itself, else a promise of it. Throws -32602 for an unknown tool, and
   * a protocol error the handler raised, when they come at once. The `T | Promise<T>`
   * results here and in the helpers below are kept on purpose: a synchronous tool is then
   * answered without a promise or a microtask turn (bench row "instructions: server JSON
   * tools/call"; an async chain costs two promises and a turn per call).
   */
  #call(params: JSONObject, ctx: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
    const name = params.name as string;
    const entry = this.#tools.get(name);
    if (entry === undefined) throw invalidParams(`Unknown tool: ${name}`);
    if (entry.raw) return entry.raw(params, ctx);
    if (entry.ready) return entry.ready.then(() => checkArguments(entry, name, params, ctx));
    return checkArguments(entry, name, params, ctx);
  }
}

/** The arguments checked against the input schema, then the handler run. */
function checkArguments(entry: Entry, name: string, params: JSONObject, ctx: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
  const args: unknown = params.arguments ?? {};
  if (!entry.input) return runHandler(entry, name, args, ctx);
  const checked = entry.input.validate(args);
  if (isThenable(checked)) return Promise.resolve(checked).then((c) => afterArguments(entry, name, c, ctx));
  return afterArguments(entry, name, checked, ctx);
}

function afterArguments(entry: Entry, name: string, checked: ValidationResult<unknown>, ctx: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
  if (!checked.valid) return toolError(`Invalid arguments for tool ${name}: ${formatIssues(checked.errors)}`);
  return runHandler(entry, name, checked.value, ctx);
}

function runHandler(entry: Entry, name: string, args: unknown, ctx: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
  let returned: ToolReturn<unknown> | Promise<ToolReturn<unknown>>;
  try {
    returned = entry.handler!(args, ctx);
  } catch (err) {
    return handlerFailed(entry, name, err, ctx);
  }
  if (isThenable(returned))
    return Promise.resolve(returned).then(
      (r) => shapeResult(entry, name, r, ctx),
      (err: unknown) => handlerFailed(entry, name, err, ctx),
    );
  return shapeResult(entry, name, returned, ctx);
}

/**
 * A handler's failure: a protocol error the handler raised itself passes through (e.g.
 * -32042); anything else, including an error the client answered a nested request with
 * (sampling, elicitation), is the tool's failure: the client gets its message as a tool
 * error, and `onError` gets a {@link ToolHandlerError} (the stack with `MCPKIT_DEBUG=1`).
 * Not reported: a 2026-07-28 request that asked the client for input (it is answered with
 * `InputRequiredResult`, see stateless/mrtr.ts) and a failure after the request was cancelled.
 */
function handlerFailed(entry: Entry, name: string, err: unknown, ctx: ServerRequestContext): CallToolResult {
  if (err instanceof McpError && !err.received) throw err;
  // a 2026-07-28 request waiting for input ends as InputRequiredResult, whatever was thrown
  const awaitsInput = ctx?.era?.stateless?.round?.hasPending === true;
  if (!awaitsInput && ctx?.signal?.aborted !== true) entry.report(new ToolHandlerError(name, err));
  return toolError(err instanceof Error ? err.message : String(err));
}

/** A result refused because the handler got it wrong: a tool error for the client, and `onError` for the developer. */
function refused(entry: Entry, name: string, message: string): CallToolResult {
  entry.report(new ToolHandlerError(name, undefined, message));
  return toolError(message);
}

/** What the handler returned, checked and shaped into the result sent. */
function shapeResult(entry: Entry, name: string, returned: ToolReturn<unknown>, ctx: ServerRequestContext): CallToolResult | Promise<CallToolResult> {
  if (typeof returned === 'string')
    return entry.output
      ? refused(entry, name, `Tool ${name} returned text but declares an output schema; return { structuredContent: {…} }`)
      : { content: [{ type: 'text', text: returned }] };
  const problem = toolReturnProblem(returned);
  if (problem !== undefined) return refused(entry, name, `Tool ${name} returned ${problem}`);
  const result = returned as CallToolResult;
  // Validate what will be serialized: JSON has no Infinity or NaN (they would go out as null).
  const nonJson = result.structuredContent === undefined ? undefined : findNonJson(result.structuredContent);
  if (nonJson !== undefined) return refused(entry, name, `Tool ${name} returned structuredContent that JSON cannot carry: ${nonJson}`);
  if (entry.output && !result.isError) {
    if (result.structuredContent === undefined) return refused(entry, name, `Tool ${name} returned no structuredContent although it declares an output schema`);
    const checked = entry.output.validate(result.structuredContent);
    if (isThenable(checked)) return Promise.resolve(checked).then((c) => afterOutput(entry, name, result, c, ctx));
    return afterOutput(entry, name, result, checked, ctx);
  }
  return finalResult(result, ctx);
}

function afterOutput(entry: Entry, name: string, result: CallToolResult, checked: ValidationResult<unknown>, ctx: ServerRequestContext): CallToolResult {
  if (!checked.valid)
    return refused(entry, name, `Tool ${name} returned structuredContent that does not match its output schema: ${formatIssues(checked.errors)}`);
  return finalResult(result, ctx);
}

function finalResult(result: CallToolResult, ctx: ServerRequestContext): CallToolResult {
  if (result.content === undefined) {
    const text = result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
    return { ...result, content: [{ type: 'text', text }] };
  }
  // Typed results are adapted to the client's revision (raw results go out as returned).
  return toolResultForRevision(result, ctx?.protocolVersion ?? ctx?.connection?.protocolVersion);
}
