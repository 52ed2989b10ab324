/**
 * Which JSON Schema dialect a schema is written in.
 *
 * MCP embeds JSON Schemas in tool and elicitation definitions; a schema without `$schema`
 * is draft 2020-12 (SEP-1613), and a declared dialect must be honoured or refused. We
 * support 2020-12 and draft-07 (the one older peers and generators still emit).
 * See https://modelcontextprotocol.io/specification/2025-11-25/basic#json-schema-usage
 */
import { SchemaError } from './types.js';

/** A dialect this project validates. */
export type JsonSchemaDialect = 'draft-2020-12' | 'draft-07';

/** The canonical `$schema` URI of each supported dialect. */
export const DIALECT_URI: Readonly<Record<JsonSchemaDialect, string>> = {
  'draft-2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema#',
};

/**
 * The dialect named by a `$schema` value, or `undefined` when it is not one we support.
 * Accepts `http` and `https` and an optional empty fragment (`#`), as these spellings are
 * all in circulation for the same meta-schemas.
 */
export function dialectOfUri(uri: string): JsonSchemaDialect | undefined {
  let rest: string;
  if (uri.startsWith('https://')) rest = uri.slice(8);
  else if (uri.startsWith('http://')) rest = uri.slice(7);
  else return undefined;
  if (rest.endsWith('#')) rest = rest.slice(0, -1);
  if (rest === 'json-schema.org/draft/2020-12/schema') return 'draft-2020-12';
  if (rest === 'json-schema.org/draft-07/schema') return 'draft-07';
  return undefined;
}

/**
 * The dialect of `schema`: its `$schema` when present, else 2020-12. Boolean schemas and
 * non-objects are 2020-12.
 *
 * Throws {@link SchemaError} `unsupported_dialect` when `$schema` is present but names
 * another dialect or is not a string.
 */
export function dialectOf(schema: unknown): JsonSchemaDialect {
  if (typeof schema !== 'object' || schema === null) return 'draft-2020-12';
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared === undefined) return 'draft-2020-12';
  if (typeof declared !== 'string') {
    throw new SchemaError('unsupported_dialect', 'JSON Schema "$schema" must be a string naming the dialect');
  }
  const dialect = dialectOfUri(declared);
  if (dialect === undefined) {
    throw new SchemaError(
      'unsupported_dialect',
      `Unsupported JSON Schema dialect "${declared}": only draft 2020-12 (the default when "$schema" is absent) and draft-07 are supported`,
    );
  }
  return dialect;
}
