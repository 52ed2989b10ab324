/**
 * JSON Schema converters for schema libraries that cannot describe themselves.
 *
 * zod 4 and arktype implement Standard JSON Schema (`~standard.jsonSchema`); valibot 1.x and
 * zod 3 implement only Standard Schema, and their JSON Schema comes from the converter each
 * project maintains: `@valibot/to-json-schema` and `zod-to-json-schema`. Both are optional
 * peer dependencies, loaded with a dynamic `import()` the first time a schema of that library
 * is registered, so a server that never uses them never loads them. Loading is asynchronous,
 * so these schemas get their wire form a moment after registration; see
 * {@link SchemaAdapter.ready}.
 */
import { SchemaError } from './types.js';

/** One library whose schemas are converted by a separate package. */
export interface LibraryConverter {
  /** The library's name in messages. */
  readonly library: string;
  /** The npm package that converts its schemas. */
  readonly module: string;
  /** True for a schema of this library that does not describe itself. */
  matches(schema: object, vendor: string): boolean;
  /** Whether the schema describes an object, read from the library's own structure; `undefined` when it cannot tell. */
  describesObject(schema: object): boolean | undefined;
  /** Calls the loaded converter module. May throw (a type the converter cannot express). */
  convert(module: unknown, schema: object, io: 'input' | 'output'): unknown;
}

const VALIBOT_OBJECTS = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest']);

const valibot: LibraryConverter = {
  library: 'valibot',
  module: '@valibot/to-json-schema',
  matches: (_schema, vendor) => vendor === 'valibot',
  describesObject: (schema) => {
    const type = (schema as { type?: unknown }).type;
    return typeof type === 'string' ? VALIBOT_OBJECTS.has(type) : undefined;
  },
  convert: (module, schema, io) => {
    const { toJsonSchema } = module as { toJsonSchema: (schema: object, config: object) => unknown };
    return toJsonSchema(schema, { target: 'draft-2020-12', typeMode: io, errorMode: 'throw' });
  },
};

const zod3: LibraryConverter = {
  library: 'zod 3',
  module: 'zod-to-json-schema',
  // zod 4 schemas carry `_zod` and convert themselves; a zod schema with only `_def` is zod 3.
  matches: (schema, vendor) => vendor === 'zod' && !('_zod' in schema) && typeof (schema as { _def?: unknown })._def === 'object',
  describesObject: (schema) => {
    let def = (schema as { _def?: { typeName?: unknown; schema?: { _def?: unknown } } })._def;
    // refinements and transforms wrap the schema they refine
    for (let depth = 0; def?.typeName === 'ZodEffects' && depth < 16; depth++) def = def.schema?._def as typeof def;
    return typeof def?.typeName === 'string' ? def.typeName === 'ZodObject' : undefined;
  },
  convert: (module, schema, io) => {
    const { zodToJsonSchema } = module as { zodToJsonSchema: (schema: object, options: object) => unknown };
    return zodToJsonSchema(schema, {
      target: 'jsonSchema2019-09',
      definitionPath: '$defs',
      effectStrategy: io === 'input' ? 'input' : 'any',
      pipeStrategy: io,
    });
  },
};

/** The converters tried, in order, for a Standard Schema without `~standard.jsonSchema`. */
export const LIBRARY_CONVERTERS: readonly LibraryConverter[] = [valibot, zod3];

const loads = new Map<string, Promise<unknown>>();

/**
 * Loads a converter's package once per process. Rejects with {@link SchemaError}
 * `no_json_schema` saying which package to install when it is missing.
 */
export function loadConverter(converter: LibraryConverter): Promise<unknown> {
  let load = loads.get(converter.module);
  if (load === undefined) {
    const specifier = converter.module;
    load = import(specifier).catch((error: unknown) => {
      loads.delete(specifier);
      throw new SchemaError(
        'no_json_schema',
        `${converter.library} schemas need the package "${specifier}" to be described as JSON Schema; install it (npm install ${specifier}) or pass a plain JSON Schema`,
        { cause: error },
      );
    });
    loads.set(converter.module, load);
  }
  return load;
}
