/**
 * Validation against JSON Schemas a peer sent (a server's tool `outputSchema`): untrusted
 * input, unlike the schemas an application registers itself.
 *
 * Design note:
 * - Regular expressions (`pattern`, `patternProperties`) run on RE2 (the `re2js` package, a
 *   pure-JavaScript port), whose matching time is linear in the input: `^(a+)+$` against a
 *   long string costs microseconds instead of doubling per character. A pattern RE2 cannot
 *   compile (backreferences, lookaround) makes the schema refused with {@link SchemaError}
 *   `invalid_schema` naming the pattern, never silently accepted.
 * - The `format` checks are ajv-formats' fixed expressions, which run in linear time, except
 *   `url` (not a JSON Schema format: quadratic on long input); for peer schemas `url` is an
 *   annotation only, as JSON Schema allows for any format.
 * - `uniqueItems` is checked in linear time (each item reduced to a canonical text, looked up
 *   in a set) instead of Ajv's comparison of every pair, quadratic in a peer-chosen array.
 * - Before compiling, the schema's work per value is bounded (schema-work.ts): `$ref` chains
 *   under `anyOf` and friends cannot make a check take exponential time.
 * - re2js and Ajv are loaded by {@link loadPeerSchemaEngine} (a dynamic `import()`), only
 *   when a peer schema is first compiled; a separate pair of Ajv instances holds the RE2
 *   configuration, so an application's own schemas keep the native engine.
 */
import type { Options } from 'ajv';
import { isObject } from '../jsonrpc/values.js';
import { loadJsonSchemaEngine } from './ajv-engine.js';
import { type AjvInstance, AjvPair, compileWithAjv } from './ajv-validator.js';
import { checkSchemaWork, DEFAULT_MAX_SCHEMA_WORK } from './schema-work.js';
import { toSchemaAdapter } from './standard-schema.js';
import { type CompiledValidator, type JsonSchema, type JsonSchemaValidator, type SchemaAdapter, SchemaError } from './types.js';

/** The parts of re2js used here. */
interface Re2Module {
  RE2JS: {
    compile(pattern: string, flags?: number): { matcher(input: string): { find(): boolean } };
    readonly CASE_INSENSITIVE: number;
    readonly DOTALL: number;
    readonly MULTILINE: number;
  };
}

let re2: Re2Module['RE2JS'] | undefined;
let loading: Promise<void> | undefined;
let pair: AjvPair | undefined;

/**
 * Loads what peer schemas need (Ajv, ajv-formats and re2js). Idempotent; concurrent calls
 * share one load. Rejects with {@link SchemaError} `engine_not_loaded` when a package cannot
 * be imported (a later call tries again).
 */
export function loadPeerSchemaEngine(): Promise<void> {
  if (re2 !== undefined) return Promise.resolve();
  loading ??= Promise.all([loadJsonSchemaEngine(), import('re2js')]).then(
    ([, module]) => {
      re2 = ((module as { RE2JS?: unknown }).RE2JS ?? (module as { default?: Re2Module }).default?.RE2JS) as Re2Module['RE2JS'];
    },
    (error: unknown) => {
      loading = undefined;
      if (error instanceof SchemaError) throw error;
      throw new SchemaError('engine_not_loaded', 'The linear-time regular expression engine (the "re2js" package) could not be loaded', { cause: error });
    },
  );
  return loading;
}

/** Ajv's regular expression hook, backed by RE2. Throws {@link SchemaError} for a pattern RE2 cannot compile. */
function re2RegExp(source: string, flags: string): { test(input: string): boolean; toString(): string } {
  const engine = re2!;
  let bits = 0;
  if (flags.includes('i')) bits |= engine.CASE_INSENSITIVE;
  if (flags.includes('s')) bits |= engine.DOTALL;
  if (flags.includes('m')) bits |= engine.MULTILINE;
  let compiled: ReturnType<Re2Module['RE2JS']['compile']>;
  try {
    compiled = engine.compile(source, bits);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SchemaError(
      'invalid_schema',
      `The pattern ${JSON.stringify(source)} is refused: schemas from a peer run their patterns on a linear-time engine (RE2), which has no backreferences or lookaround (${why})`,
      { cause: error },
    );
  }
  const text = `re2:/${source}/${flags}`;
  return { test: (input) => compiled.matcher(input).find(), toString: () => text };
}
(re2RegExp as unknown as { code: string }).code = 'mcpkitRe2RegExp';

function peerSetUp(ajv: AjvInstance): void {
  ajv.addFormat('url', true);
  // Ajv compares every pair of items (quadratic: 8 000 objects take a second, a 4 MB array
  // hours); here each item is reduced once to a canonical text and looked up in a Set
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
}

/** The `uniqueItems` keyword in time linear in the array's size (plus sorting each object's keys). */
function uniqueItems(this: unknown, unique: boolean, data: unknown[]): boolean {
  const self = uniqueItems as unknown as { errors?: unknown[] | null };
  self.errors = null;
  if (!unique) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = canonical(data[i]);
    const j = seen.get(key);
    if (j !== undefined) {
      self.errors = [{ keyword: 'uniqueItems', params: { i, j }, message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)` }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
}

/** One text per JSON value, equal exactly when the values are equal as JSON Schema compares them (object key order ignored). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The Ajv instances of peer schemas (made once the engine is loaded). */
function peerPair(): AjvPair {
  return (pair ??= new AjvPair({ code: { regExp: re2RegExp as unknown as NonNullable<NonNullable<Options['code']>['regExp']> } }, peerSetUp));
}

/** Options of {@link PeerSchemaValidator}. */
export interface PeerSchemaValidatorOptions {
  /** Most subschemas one place of a value may be checked against (see schema-work.ts). Default 10,000. */
  maxSchemaWork?: number;
}

/**
 * A {@link JsonSchemaValidator} for schemas from a peer (see the design note). `compile`
 * throws {@link SchemaError} `engine_not_loaded` until {@link loadPeerSchemaEngine} has
 * resolved, and `invalid_schema` / `unresolved_ref` for a schema it refuses.
 */
export class PeerSchemaValidator implements JsonSchemaValidator {
  readonly #maxWork: number;

  constructor(options: PeerSchemaValidatorOptions = {}) {
    const max = options.maxSchemaWork ?? DEFAULT_MAX_SCHEMA_WORK;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`maxSchemaWork must be a positive integer, got ${max}`);
    this.#maxWork = max;
  }

  compile(schema: JsonSchema): CompiledValidator {
    if (typeof schema === 'boolean')
      return () => (schema ? { valid: true } : { valid: false, errors: [{ path: '', message: 'value is not allowed (the schema is false)' }] });
    if (!isObject(schema)) throw new SchemaError('invalid_schema', 'A JSON Schema must be an object or a boolean');
    if (re2 === undefined) throw new SchemaError('engine_not_loaded', 'Call `await loadPeerSchemaEngine()` before compiling a schema from a peer');
    checkSchemaWork(schema, this.#maxWork);
    return compileWithAjv(schema, peerPair());
  }
}

/**
 * The adapter that checks values against `schema`, a schema a peer sent: loads the engine,
 * then compiles with a {@link PeerSchemaValidator} (unknown keywords ignored, as JSON Schema
 * says of unknown keywords). Rejects with {@link SchemaError} for a schema it refuses.
 */
export async function peerSchemaAdapter(schema: Record<string, unknown>, options: PeerSchemaValidatorOptions = {}): Promise<SchemaAdapter> {
  await loadPeerSchemaEngine();
  const adapter = toSchemaAdapter(schema, new PeerSchemaValidator(options), { strict: false });
  adapter.prepare();
  return adapter;
}
