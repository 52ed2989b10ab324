/**
 * Types shared by the schema layer: validation results, the pluggable JSON Schema
 * validator contract, the adapter that the registries hold for every user schema, and
 * the schema layer's own error.
 */

/**
 * One reason a value was rejected.
 *
 * `path` is a JSON Pointer into the validated value (`''` for the value itself,
 * `/address/zip` for a nested field, `/tags/0` for an array item). `message` is a short
 * sentence for people and language models that already names the field, so callers can
 * show messages on their own (see {@link formatIssues}).
 */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** What a {@link CompiledValidator} returns. The success object is shared: never mutate it. */
export type ValidationOutcome = { readonly valid: true } | { readonly valid: false; readonly errors: ValidationIssue[] };

/**
 * What a {@link SchemaAdapter} returns: on success the parsed value (for a Standard Schema
 * the library's output, e.g. with zod defaults applied; for a plain JSON Schema the input
 * itself), on failure the issues.
 */
export type ValidationResult<T = unknown> = { readonly valid: true; readonly value: T } | { readonly valid: false; readonly errors: ValidationIssue[] };

/**
 * A compiled schema. Synchronous, never throws for any input value, safe to call
 * concurrently from any number of sessions.
 */
export type CompiledValidator = (value: unknown) => ValidationOutcome;

/** A JSON Schema as user code hands it over: an object, or `true` / `false`. */
export type JsonSchema = object | boolean;

/**
 * Compiles JSON Schemas into validators. The default is {@link AjvJsonSchemaValidator};
 * runtimes where code generation is forbidden can supply another implementation.
 *
 * Contract for implementations: a schema without `$schema` is JSON Schema 2020-12; a
 * declared dialect the implementation does not support, an unresolvable `$ref` or an
 * invalid schema makes `compile` throw a {@link SchemaError}; remote references are never
 * fetched; the schema object is never modified; compiling the same schema again is cheap.
 */
export interface JsonSchemaValidator {
  compile(schema: JsonSchema): CompiledValidator;
}

/**
 * A user schema ready for a registry: what goes on the wire and how to check a value.
 * Made by {@link toSchemaAdapter}.
 */
export interface SchemaAdapter<T = unknown> {
  /** The JSON Schema sent to peers (`inputSchema`, `outputSchema`, `requestedSchema`). */
  readonly jsonSchema: Record<string, unknown>;
  /**
   * Checks `value`. Plain JSON Schemas answer synchronously (except, in a runtime that cannot
   * load Ajv synchronously, a first call made before `loadJsonSchemaEngine()` resolved);
   * Standard Schemas may answer
   * with a promise (async refinements). Throws {@link SchemaError} when the schema cannot
   * be compiled (on the first call, unless {@link SchemaAdapter.prepare} ran first);
   * exceptions thrown by a Standard Schema library's own code propagate unchanged.
   */
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>;
  /**
   * Compiles now instead of on the first `validate`, so a broken schema fails at
   * registration. Throws {@link SchemaError}. Idempotent; a no-op for Standard Schemas.
   */
  prepare(): void;
  /**
   * Present when the wire form is produced asynchronously (a schema library whose JSON Schema
   * converter is loaded on first use): `jsonSchema` may be read once it resolves. Rejects with
   * {@link SchemaError} when the schema cannot be described. Absent: `jsonSchema` is ready.
   */
  readonly ready?: Promise<void>;
}

/** Stable codes of {@link SchemaError}; compare these, never messages. */
export type SchemaErrorCode =
  /** `$schema` names a dialect other than 2020-12 or draft-07. */
  | 'unsupported_dialect'
  /** A `$ref` points outside the schema (remote references are never fetched). */
  | 'unresolved_ref'
  /** The schema breaks the rules of its dialect, or is not JSON data. */
  | 'invalid_schema'
  /** A Standard Schema that cannot describe itself as JSON Schema. */
  | 'no_json_schema'
  /**
   * The JSON Schema engine (Ajv) is not loaded: the packages are missing, or the runtime has
   * no synchronous module loader and `loadJsonSchemaEngine()` has not resolved yet.
   */
  | 'engine_not_loaded'
  /**
   * The runtime forbids generating code from strings (Cloudflare Workers, pages under a
   * Content-Security-Policy without `unsafe-eval`), which Ajv needs: pass a
   * `JsonSchemaValidator` that interprets schemas instead (docs/deploying.md, Cloudflare Workers).
   */
  | 'code_generation_forbidden';

/**
 * A problem with a schema itself (never with a validated value). Thrown by
 * {@link JsonSchemaValidator.compile}, {@link toSchemaAdapter} and adapters; it is a
 * programming error of whoever wrote the schema, so registries let it surface at
 * registration rather than turning it into a tool result.
 */
export class SchemaError extends Error {
  readonly code: SchemaErrorCode;
  constructor(code: SchemaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SchemaError';
    this.code = code;
  }
}
