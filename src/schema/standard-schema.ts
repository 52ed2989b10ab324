/**
 * User schemas in either form the registries accept: a Standard Schema (zod 4, valibot,
 * arktype, or anything implementing https://standardschema.dev) or a plain JSON Schema.
 *
 * Design note: both become a {@link SchemaAdapter}: the JSON Schema that goes on the wire
 * plus a `validate` function. A plain JSON Schema goes on the wire unchanged (the very
 * object the user passed) and is checked by a {@link JsonSchemaValidator}, compiled on
 * first use (or on `prepare()`), so registering many tools costs nothing until they run.
 * A Standard Schema validates itself (its output, e.g. with defaults applied, is what the
 * handler receives) and describes itself through the Standard JSON Schema interface
 * (`~standard.jsonSchema`), which zod implements from 4.2. We never import a schema
 * library: the interfaces are declared structurally in standard-interfaces.ts.
 */

import { isObject } from '../jsonrpc/values.js';
import { canLoadEngineSync, loadJsonSchemaEngine } from './ajv-engine.js';
import { defaultJsonSchemaValidator } from './ajv-validator.js';
import { ConvertedSchemaAdapter } from './converted-adapter.js';
import { dialectOf, dialectOfUri } from './dialect.js';
import { LIBRARY_CONVERTERS } from './library-converters.js';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from './standard-interfaces.js';
import { validateStandard } from './standard-result.js';
import { checkJsonSchema } from './strict-check.js';
import { type CompiledValidator, type JsonSchemaValidator, type SchemaAdapter, SchemaError, type ValidationResult } from './types.js';

export type { StandardJSONSchemaV1, StandardSchemaV1 } from './standard-interfaces.js';

/** Options of {@link toSchemaAdapter}. */
export interface SchemaAdapterOptions {
  /**
   * Which side of a transforming Standard Schema the wire schema describes: `'input'` (what
   * the schema accepts; right for tool input) or `'output'` (what it produces; right for
   * tool output). Default `'input'`. Ignored for plain JSON Schemas.
   */
  io?: 'input' | 'output';
  /**
   * When set, the schema must describe an object (`type: "object"`), as MCP requires of tool
   * input and output schemas; the text names the schema in the error (e.g. `inputSchema of
   * tool "weather"`). Unset: any schema.
   */
  requireObject?: string;
  /**
   * Check a plain JSON Schema strictly when the adapter is made (unknown keywords, wrong
   * keyword types, dangling `$ref`s; see checkJsonSchema). Default true: right for schemas the
   * user writes. Pass false for schemas that come from a peer (a server's `outputSchema`),
   * where unknown keywords are to be ignored, as JSON Schema says of unknown keywords.
   */
  strict?: boolean;
}

function standardProps(value: unknown): Record<string, unknown> | undefined {
  if ((typeof value !== 'object' || value === null) && typeof value !== 'function') return undefined;
  const props = (value as { '~standard'?: unknown })['~standard'];
  if (typeof props !== 'object' || props === null) return undefined;
  return (props as { version?: unknown }).version === 1 ? (props as Record<string, unknown>) : undefined;
}

/** True when `value` implements Standard Schema v1 (`~standard` with `version: 1` and `validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof standardProps(value)?.['validate'] === 'function';
}

/** True when `value` implements Standard JSON Schema v1 (`~standard.jsonSchema.input` / `.output`). */
export function isStandardJSONSchema(value: unknown): value is StandardJSONSchemaV1 {
  const converter = standardProps(value)?.['jsonSchema'] as { input?: unknown; output?: unknown } | undefined;
  return typeof converter === 'object' && converter !== null && typeof converter.input === 'function' && typeof converter.output === 'function';
}

/**
 * Wraps a user schema for a registry (tool input and output, elicitation forms).
 *
 * - Plain JSON Schema: `jsonSchema` is `schema` itself, unchanged; values are checked with
 *   `validator` (default {@link defaultJsonSchemaValidator}) and a valid value is returned
 *   as is. Throws {@link SchemaError} `unsupported_dialect` at once for a foreign `$schema`;
 *   other compile errors surface from `prepare()` or the first `validate`.
 * - Standard Schema: values are checked by the schema's own `validate`; `jsonSchema` comes
 *   from `~standard.jsonSchema` (draft 2020-12), or for zod 4 versions without it from the
 *   schema's `toJSONSchema`. Throws {@link SchemaError} `no_json_schema` when neither is
 *   available or the library cannot express the schema (e.g. a zod `Date`).
 * - Standard JSON Schema without `validate`: described as above, checked as JSON Schema.
 *
 * A produced wire schema drops a redundant 2020-12 `$schema` (it is the default dialect,
 * and peers that assume draft-07 refuse an explicit 2020-12 declaration) and gets
 * `type: 'object'` when it describes an object without saying so.
 */
export function toSchemaAdapter<S extends StandardSchemaV1>(
  schema: S,
  validator?: JsonSchemaValidator,
  options?: SchemaAdapterOptions,
): SchemaAdapter<StandardSchemaV1.InferOutput<S>>;
export function toSchemaAdapter<T = unknown>(
  schema: StandardJSONSchemaV1 | object,
  validator?: JsonSchemaValidator,
  options?: SchemaAdapterOptions,
): SchemaAdapter<T>;
export function toSchemaAdapter(
  schema: StandardSchemaV1 | StandardJSONSchemaV1 | object,
  validator?: JsonSchemaValidator,
  options: SchemaAdapterOptions = {},
): SchemaAdapter<unknown> {
  const props = standardProps(schema);
  const io = options.io ?? 'input';
  if (props !== undefined) {
    const vendor = typeof props['vendor'] === 'string' ? props['vendor'] : 'unknown';
    const converter = hasOwnDescription(schema, props, vendor) ? undefined : LIBRARY_CONVERTERS.find((c) => c.matches(schema, vendor));
    if (converter !== undefined && typeof props['validate'] === 'function') {
      return new ConvertedSchemaAdapter(
        schema as StandardSchemaV1,
        converter,
        io,
        (produced) => {
          const jsonSchema = normalizeProduced(produced);
          checkProduced(jsonSchema, converter.library, options.requireObject);
          return jsonSchema;
        },
        options.requireObject,
      );
    }
    const jsonSchema = describe(schema, props, io);
    checkProduced(jsonSchema, vendor, options.requireObject);
    if (typeof props['validate'] === 'function') return new StandardSchemaAdapter(schema as StandardSchemaV1, jsonSchema);
    return new JsonSchemaAdapter(jsonSchema, validator);
  }
  if (!isObject(schema)) {
    throw new SchemaError('invalid_schema', 'A schema must be a JSON Schema object or a Standard Schema');
  }
  refuseRawShape(schema);
  const dialect = dialectOf(schema);
  if (options.strict !== false) checkJsonSchema(schema, dialect);
  if (options.requireObject !== undefined) requireObjectSchema(schema as Record<string, unknown>, options.requireObject);
  return new JsonSchemaAdapter(schema as Record<string, unknown>, validator);
}

/**
 * Throws {@link SchemaError} `invalid_schema` unless `jsonSchema` declares `type: "object"`
 * (MCP requires it of tool input and output schemas: arguments and structured results are
 * always JSON objects). `what` names the schema in the message, e.g. `inputSchema of tool "x"`.
 */
export function requireObjectSchema(jsonSchema: Record<string, unknown>, what: string): void {
  if (jsonSchema['type'] === 'object') return;
  const got = jsonSchema['type'] === undefined ? 'declares no "type"' : `has type ${JSON.stringify(jsonSchema['type'])}`;
  throw new SchemaError(
    'invalid_schema',
    `The ${what} must describe an object (type "object"), but it ${got}; arguments and structured results are always JSON objects, so wrap the value in an object schema, e.g. { type: 'object', properties: { value: ... } } or z.object({ value: ... })`,
  );
}

/** A schema library's output: shapes and types checked (libraries add their own metadata keys, so unknown keywords pass). */
function checkProduced(jsonSchema: Record<string, unknown>, vendor: string, requireObject: string | undefined): void {
  try {
    checkJsonSchema(jsonSchema, dialectOf(jsonSchema), { unknownKeywords: false });
  } catch (error) {
    if (error instanceof SchemaError)
      throw new SchemaError(error.code, `The JSON Schema the ${vendor} library produced is not valid: ${error.message}`, { cause: error });
    throw error;
  }
  if (requireObject !== undefined) requireObjectSchema(jsonSchema, requireObject);
}

/**
 * The official SDK v1 accepted a "raw shape", an object of zod schemas (`{ city: z.string() }`).
 * It is not a JSON Schema; mcpkit takes schemas whole, so it is refused with what to write.
 */
function refuseRawShape(schema: object): void {
  const values = Object.entries(schema);
  const member = values.find(([, value]) => standardProps(value) !== undefined);
  if (member === undefined) return;
  throw new SchemaError(
    'invalid_schema',
    `This schema is an object of schemas (a "raw shape": "${member[0]}" is a ${String(standardProps(member[1])?.['vendor'])} schema), not a schema; wrap it in an object schema, e.g. z.object({ ${member[0]}: ... }) or v.object({ ... })`,
  );
}

function hasOwnDescription(schema: unknown, props: Record<string, unknown>, vendor: string): boolean {
  const converter = props['jsonSchema'];
  if (typeof converter === 'object' && converter !== null) return true;
  return vendor === 'zod' && typeof (schema as { toJSONSchema?: unknown }).toJSONSchema === 'function';
}

/**
 * Checks values with a JSON Schema, compiled on first use. With the default validator in a
 * runtime that cannot load Ajv synchronously, the first `validate` answers with a promise
 * (after `loadJsonSchemaEngine()`); every later one answers synchronously.
 */
class JsonSchemaAdapter implements SchemaAdapter<unknown> {
  readonly jsonSchema: Record<string, unknown>;
  #validator: JsonSchemaValidator | undefined;
  #compiled: CompiledValidator | undefined;

  constructor(jsonSchema: Record<string, unknown>, validator: JsonSchemaValidator | undefined) {
    this.jsonSchema = jsonSchema;
    this.#validator = validator;
  }

  prepare(): void {
    this.#compile();
  }

  #compile(): CompiledValidator {
    return (this.#compiled ??= (this.#validator ?? defaultJsonSchemaValidator()).compile(this.jsonSchema));
  }

  validate(value: unknown): ValidationResult<unknown> | Promise<ValidationResult<unknown>> {
    if (this.#compiled === undefined && this.#validator === undefined && !canLoadEngineSync()) {
      return loadJsonSchemaEngine().then(() => this.#check(value));
    }
    return this.#check(value);
  }

  #check(value: unknown): ValidationResult<unknown> {
    const outcome = (this.#compiled ?? this.#compile())(value);
    return outcome.valid ? { valid: true, value } : outcome;
  }
}

/** Checks values with the schema library's own `validate`. */
class StandardSchemaAdapter implements SchemaAdapter<unknown> {
  readonly jsonSchema: Record<string, unknown>;
  #schema: StandardSchemaV1;

  constructor(schema: StandardSchemaV1, jsonSchema: Record<string, unknown>) {
    this.#schema = schema;
    this.jsonSchema = jsonSchema;
  }

  prepare(): void {}

  validate(value: unknown): ValidationResult<unknown> | Promise<ValidationResult<unknown>> {
    return validateStandard(this.#schema, value);
  }
}

function describe(schema: unknown, props: Record<string, unknown>, io: 'input' | 'output'): Record<string, unknown> {
  const vendor = typeof props['vendor'] === 'string' ? props['vendor'] : 'unknown';
  let produce: (() => unknown) | undefined;
  const converter = props['jsonSchema'] as Partial<StandardJSONSchemaV1.Converter> | undefined;
  if (typeof converter === 'object' && converter !== null && typeof converter[io] === 'function') {
    const convert = converter[io];
    produce = () => convert.call(converter, { target: 'draft-2020-12' });
  } else if (vendor === 'zod' && typeof (schema as { toJSONSchema?: unknown }).toJSONSchema === 'function') {
    // zod 4.0 and 4.1 predate Standard JSON Schema but convert themselves.
    const own = schema as { toJSONSchema: (options: object) => unknown };
    produce = () => own.toJSONSchema({ target: 'draft-2020-12', io });
  }
  if (produce === undefined) {
    throw new SchemaError(
      'no_json_schema',
      `This ${vendor} schema cannot describe itself as JSON Schema (it does not implement Standard JSON Schema, "~standard.jsonSchema"); pass a plain JSON Schema instead`,
    );
  }
  let produced: unknown;
  try {
    produced = produce();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SchemaError('no_json_schema', `This ${vendor} schema cannot be expressed as JSON Schema (${reason}); pass a plain JSON Schema instead`, {
      cause: error,
    });
  }
  if (!isObject(produced)) {
    throw new SchemaError('no_json_schema', `The ${vendor} schema library produced no JSON Schema object; pass a plain JSON Schema instead`);
  }
  return normalizeProduced(produced as Record<string, unknown>);
}

function normalizeProduced(produced: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...produced };
  const declared = out['$schema'];
  if (typeof declared === 'string' && dialectOfUri(declared) === 'draft-2020-12') delete out['$schema'];
  if (out['type'] === undefined && describesObject(out)) return { type: 'object', ...out };
  return out;
}

function describesObject(schema: Record<string, unknown>): boolean {
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema || 'patternProperties' in schema) return true;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      return branches.every((b) => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'object');
    }
  }
  return false;
}

export { fromStandardIssue } from './standard-result.js';
