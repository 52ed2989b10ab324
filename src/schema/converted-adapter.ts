/**
 * The adapter of a Standard Schema whose JSON Schema comes from a separate converter package
 * (valibot, zod 3; see library-converters.ts).
 */

import { isObject } from '../jsonrpc/values.js';
import { type LibraryConverter, loadConverter } from './library-converters.js';
import type { StandardSchemaV1 } from './standard-interfaces.js';
import { validateStandard } from './standard-result.js';
import { type SchemaAdapter, SchemaError, type ValidationResult } from './types.js';

/**
 * Values are checked by the library at once; the wire form is there once {@link ready}
 * resolves. Reading `jsonSchema` before that throws {@link SchemaError} `no_json_schema`
 * (and after a failed conversion, the conversion's error). The constructor throws
 * `invalid_schema` at once when an object schema is required and the library's own structure
 * shows it is not one.
 */
export class ConvertedSchemaAdapter implements SchemaAdapter<unknown> {
  /** Resolves when the wire form is ready; rejects with {@link SchemaError} when it cannot be produced. */
  readonly ready: Promise<void>;
  readonly #schema: StandardSchemaV1;
  #jsonSchema: Record<string, unknown> | undefined;
  #error: unknown;

  /**
   * `finish` normalizes and checks what the converter produced (without its `$schema`: the
   * converters emit 2020-12 or 2019-09, which read the same for what they emit) and throws
   * {@link SchemaError} when it is not acceptable.
   */
  constructor(
    schema: StandardSchemaV1,
    converter: LibraryConverter,
    io: 'input' | 'output',
    finish: (produced: Record<string, unknown>) => Record<string, unknown>,
    requireObject: string | undefined,
  ) {
    this.#schema = schema;
    if (requireObject !== undefined && converter.describesObject(schema) === false) {
      throw new SchemaError(
        'invalid_schema',
        `The ${requireObject} must describe an object: this ${converter.library} schema is not an object schema; wrap it, e.g. v.object({ value: ... }) or z.object({ value: ... })`,
      );
    }
    this.ready = loadConverter(converter).then((module) => {
      let produced: unknown;
      try {
        produced = converter.convert(module, schema, io);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new SchemaError(
          'no_json_schema',
          `This ${converter.library} schema cannot be expressed as JSON Schema (${reason}); pass a plain JSON Schema instead`,
          { cause: error },
        );
      }
      if (!isObject(produced)) {
        throw new SchemaError('no_json_schema', `${converter.module} produced no JSON Schema object; pass a plain JSON Schema instead`);
      }
      const { $schema: _dialect, ...rest } = produced as Record<string, unknown>;
      this.#jsonSchema = finish(rest);
    });
    // remembered for `jsonSchema`; also keeps an unawaited failure from being an unhandled rejection
    this.ready.catch((error: unknown) => {
      this.#error = error;
    });
  }

  get jsonSchema(): Record<string, unknown> {
    if (this.#jsonSchema !== undefined) return this.#jsonSchema;
    if (this.#error !== undefined) throw this.#error;
    throw new SchemaError('no_json_schema', "This schema is still being converted to JSON Schema; await the adapter's ready promise first");
  }

  prepare(): void {}

  validate(value: unknown): ValidationResult<unknown> | Promise<ValidationResult<unknown>> {
    return validateStandard(this.#schema, value);
  }
}
