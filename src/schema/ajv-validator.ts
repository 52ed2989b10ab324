/**
 * The default {@link JsonSchemaValidator}, built on Ajv.
 *
 * Design note:
 * - One Ajv instance per dialect for the whole process (draft 2020-12 and draft-07),
 *   created on first use. Instances hold the meta-schemas and formats; user schemas are
 *   removed from them again right after compiling, so an instance does not grow with the
 *   number of schemas seen and a schema's `$id` never clashes with a later one.
 * - Each {@link AjvJsonSchemaValidator} keeps two caches of compiled validators: by schema
 *   object (a `WeakMap`, the common case of a registry holding the same object) and by
 *   canonical JSON text (a bounded LRU map), so equal schemas built anew per request or per
 *   session are compiled once. Schemas are therefore treated as immutable once compiled.
 * - `strict: false` lets unknown keywords (`x-…`, vendor annotations) and unknown formats
 *   pass; `allErrors: false` stops at the first failure; `ownProperties: true` makes
 *   `required` and friends look at own keys only (`{}` has no `constructor` property).
 * - Nothing is ever fetched: there is no `loadSchema`, so a `$ref` that does not resolve
 *   inside the schema fails the compilation.
 * - Ajv itself is loaded on the first compile (`ajv-engine.ts`), not when this module is
 *   imported, so importing the schema layer costs nothing until a schema is used.
 * - Ajv generates code with `new Function`; runtimes that forbid that need another
 *   {@link JsonSchemaValidator}.
 * - Known Ajv limitation: a property literally named `__proto__` under `properties` is
 *   skipped by Ajv (so it counts as an additional property); `required`,
 *   `additionalProperties` and `patternProperties` do see an own `__proto__` key.
 */
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { isObject } from '../jsonrpc/values.js';
import { ajvEngine } from './ajv-engine.js';
import { issuesFromAjv } from './ajv-issues.js';
import { DIALECT_URI, dialectOf } from './dialect.js';
import { type CompiledValidator, type JsonSchema, type JsonSchemaValidator, SchemaError, type ValidationOutcome } from './types.js';

const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: false,
  logger: false,
  ownProperties: true,
  addUsedSchema: false,
  validateFormats: true,
};

/** An Ajv instance of either dialect. */
export type AjvInstance = Ajv | Ajv2020;

/**
 * The two Ajv instances (draft 2020-12 and draft-07) of one configuration, made on first use:
 * one pair for the application's own schemas, another (peer-schema.ts) for schemas a peer
 * sent, whose regular expressions run on a linear-time engine.
 */
export class AjvPair {
  #draft2020: Ajv2020 | undefined;
  #draft07: Ajv | undefined;
  readonly #options: Options;
  readonly #setUp: ((ajv: AjvInstance) => void) | undefined;

  /** `options` are added to the shared ones; `setUp` runs on each instance after the formats are added. */
  constructor(options: Options = {}, setUp?: (ajv: AjvInstance) => void) {
    this.#options = { ...AJV_OPTIONS, ...options };
    this.#setUp = setUp;
  }

  /** The instance for `schema`'s dialect. */
  forSchema(schema: object): AjvInstance {
    return dialectOf(schema) === 'draft-07' ? this.#draft07Instance() : this.#draft2020Instance();
  }

  #draft2020Instance(): Ajv2020 {
    if (this.#draft2020 === undefined) {
      const engine = ajvEngine();
      const ajv = new engine.Ajv2020(this.#options);
      engine.addFormats(ajv);
      this.#setUp?.(ajv);
      alias(ajv, 'http://json-schema.org/draft/2020-12/schema', DIALECT_URI['draft-2020-12']);
      this.#draft2020 = ajv;
    }
    return this.#draft2020;
  }

  #draft07Instance(): Ajv {
    if (this.#draft07 === undefined) {
      const engine = ajvEngine();
      const ajv = new engine.Ajv(this.#options);
      engine.addFormats(ajv);
      this.#setUp?.(ajv);
      alias(ajv, 'https://json-schema.org/draft-07/schema', 'http://json-schema.org/draft-07/schema');
      this.#draft07 = ajv;
    }
    return this.#draft07;
  }
}

const OWN = new AjvPair();

/** Registers `alias` as another name of the already known schema `target`. */
function alias(ajv: AjvInstance, aliasUri: string, target: string): void {
  (ajv.refs as Record<string, unknown>)[aliasUri] = target;
}

const VALID: ValidationOutcome = Object.freeze({ valid: true as const });
const ACCEPT_ALL: CompiledValidator = () => VALID;
const REJECT_ALL: CompiledValidator = () => ({ valid: false, errors: [{ path: '', message: 'value is not allowed (the schema is false)' }] });

/** Options of {@link AjvJsonSchemaValidator}. */
export interface AjvJsonSchemaValidatorOptions {
  /** How many compiled validators to keep by canonical schema text (least recently used go first). Default 500. */
  cacheSize?: number;
}

/**
 * Validates with Ajv: draft 2020-12 by default, draft-07 when the schema declares it in
 * `$schema` (`http` or `https`, with or without the trailing `#`); any other declared
 * dialect is refused. Formats from `ajv-formats` are checked.
 *
 * Use {@link defaultJsonSchemaValidator} unless you need separate caches. Instances are
 * cheap; they share the process-wide Ajv engines.
 */
export class AjvJsonSchemaValidator implements JsonSchemaValidator {
  #byObject = new WeakMap<object, CompiledValidator>();
  #byText = new Map<string, CompiledValidator>();
  #cacheSize: number;
  #compiled = 0;

  constructor(options: AjvJsonSchemaValidatorOptions = {}) {
    const size = options.cacheSize ?? 500;
    if (!Number.isInteger(size) || size < 0) throw new RangeError('cacheSize must be a non-negative integer');
    this.#cacheSize = size;
  }

  /** How many schemas this instance has actually compiled (cache misses). For tests and diagnostics. */
  get compiledCount(): number {
    return this.#compiled;
  }

  /**
   * Compiles `schema` (or returns the cached validator for it or an equal schema).
   * Never modifies `schema`.
   *
   * Loads Ajv on the first call (see `ajv-engine.ts`). Throws {@link SchemaError}:
   * `engine_not_loaded` in a runtime that cannot load it synchronously before
   * `loadJsonSchemaEngine()` resolved, `unsupported_dialect` for a `$schema` other than 2020-12 or
   * draft-07, `unresolved_ref` for a `$ref` outside the schema, `invalid_schema` for a
   * schema that breaks its dialect's meta-schema, is not JSON data, or is asynchronous
   * (`$async`).
   */
  compile(schema: JsonSchema): CompiledValidator {
    if (schema === true) return ACCEPT_ALL;
    if (schema === false) return REJECT_ALL;
    if (!isObject(schema)) {
      throw new SchemaError('invalid_schema', 'A JSON Schema must be an object or a boolean');
    }
    const known = this.#byObject.get(schema);
    if (known !== undefined) return known;
    const text = canonicalJson(schema);
    let validator = this.#byText.get(text);
    if (validator !== undefined) {
      // Refresh its position: Map iteration order is insertion order, oldest first.
      this.#byText.delete(text);
      this.#byText.set(text, validator);
    } else {
      validator = compileWithAjv(schema);
      this.#compiled++;
      if (this.#cacheSize > 0) {
        this.#byText.set(text, validator);
        if (this.#byText.size > this.#cacheSize) this.#byText.delete(this.#byText.keys().next().value!);
      }
    }
    this.#byObject.set(schema, validator);
    return validator;
  }
}

let sharedValidator: AjvJsonSchemaValidator | undefined;

/**
 * The process-wide {@link AjvJsonSchemaValidator}, used wherever no validator is passed.
 * Sharing it means a schema used by many sessions is compiled once.
 */
export function defaultJsonSchemaValidator(): AjvJsonSchemaValidator {
  return (sharedValidator ??= new AjvJsonSchemaValidator());
}

/**
 * Compiles `schema` on the instance of `pair` for its dialect, leaving the instance's
 * registries as they were. Throws {@link SchemaError} (see {@link AjvJsonSchemaValidator.compile}).
 */
export function compileWithAjv(schema: object, pair: AjvPair = OWN): CompiledValidator {
  const ajv = pair.forSchema(schema);
  const refsBefore = { ...ajv.refs };
  const schemasBefore = { ...ajv.schemas };
  let fn: ValidateFunction;
  try {
    if (!ajv.validateSchema(schema)) throw metaSchemaError(ajv.errors);
    fn = ajv.compile(schema);
  } catch (error) {
    throw translateCompileError(error);
  } finally {
    forget(ajv, schema, refsBefore, schemasBefore);
  }
  if ((fn as { $async?: unknown }).$async) {
    throw new SchemaError('invalid_schema', 'Asynchronous JSON Schemas ("$async") are not supported');
  }
  return (value: unknown): ValidationOutcome => (fn(value) ? VALID : { valid: false, errors: issuesFromAjv(fn.errors as ErrorObject[] | null | undefined) });
}

/**
 * Puts the shared Ajv instance's registries back as they were before a compilation: drops
 * the schema from Ajv's cache and every name it registered, and restores any name it
 * displaced (a user schema may reuse the `$id` of a meta-schema).
 */
function forget(ajv: AjvInstance, schema: object, refsBefore: Record<string, unknown>, schemasBefore: Record<string, unknown>): void {
  ajv.removeSchema(schema);
  restore(ajv.refs as Record<string, unknown>, refsBefore);
  restore(ajv.schemas as Record<string, unknown>, schemasBefore);
}

function restore(current: Record<string, unknown>, before: Record<string, unknown>): void {
  for (const key of Object.keys(current)) if (!Object.hasOwn(before, key)) delete current[key];
  for (const key of Object.keys(before)) if (current[key] !== before[key]) current[key] = before[key];
}

/** Describes the first way a schema breaks its dialect's meta-schema. */
function metaSchemaError(errors: ReadonlyArray<ErrorObject> | null | undefined): SchemaError {
  const first = errors?.[0];
  if (first === undefined) return new SchemaError('invalid_schema', 'Invalid JSON Schema');
  const where = first.instancePath === '' ? 'the schema root' : first.instancePath;
  return new SchemaError('invalid_schema', `Invalid JSON Schema at ${where}: ${first.message ?? 'invalid'}`);
}

function translateCompileError(error: unknown): SchemaError {
  if (error instanceof SchemaError) return error;
  if (error instanceof ajvEngine().MissingRefError) {
    return new SchemaError(
      'unresolved_ref',
      `JSON Schema $ref "${error.missingRef}" cannot be resolved: references must point inside the schema (remote schemas are never fetched)`,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof EvalError) {
    return new SchemaError(
      'code_generation_forbidden',
      `This runtime forbids generating code from strings (${message}), which the default JSON Schema validator (Ajv) needs: pass a jsonSchemaValidator that interprets schemas (e.g. one on @cfworker/json-schema; see docs/deploying.md, Cloudflare Workers)`,
      { cause: error },
    );
  }
  return new SchemaError('invalid_schema', `Invalid JSON Schema: ${message}`, { cause: error });
}

/**
 * The schema as JSON text with object keys sorted, so equal schemas get equal keys.
 * Throws {@link SchemaError} `invalid_schema` for values JSON cannot hold (cycles, bigints).
 */
export function canonicalJson(value: unknown): string {
  try {
    return canonical(value, 0);
  } catch (error) {
    if (error instanceof SchemaError) throw error;
    throw new SchemaError('invalid_schema', 'A JSON Schema must be JSON data', { cause: error });
  }
}

const MAX_DEPTH = 256;

function canonical(value: unknown, depth: number): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (depth > MAX_DEPTH) throw new SchemaError('invalid_schema', `A JSON Schema must be JSON data nested at most ${MAX_DEPTH} levels deep (is it cyclic?)`);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as unknown;
      out += (i === 0 ? '' : ',') + (item === undefined || typeof item === 'function' ? 'null' : canonical(item, depth + 1));
    }
    return out + ']';
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + canonical(item, depth + 1);
    first = false;
  }
  return out + '}';
}
