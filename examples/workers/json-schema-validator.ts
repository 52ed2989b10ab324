/**
 * A {@link JsonSchemaValidator} for runtimes that forbid generating code from strings
 * (Cloudflare Workers: no `eval`, no `new Function`), where mcpkit's default validator (Ajv,
 * which compiles each schema to JavaScript source) cannot run. Built on `@cfworker/json-schema`,
 * an interpreter of JSON Schema (drafts 4, 7, 2019-09, 2020-12) made for Workers; it is the
 * application's dependency, not mcpkit's. Pass it as `jsonSchemaValidator` in the server's
 * options. Schemas with `$schema` naming draft-07 are checked as draft 7, everything else as
 * 2020-12 (MCP's default dialect).
 *
 * In an application the import reads `import type { JsonSchemaValidator } from 'mcpkit/schema';`.
 */
import { type Schema, Validator } from '@cfworker/json-schema';
import type { CompiledValidator, JsonSchema, JsonSchemaValidator, ValidationIssue } from '../../src/schema/index.js';

/** The draft `schema` declares (draft-07 or 2020-12). */
function draftOf(schema: JsonSchema): '7' | '2020-12' {
  const uri = typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  return typeof uri === 'string' && uri.includes('draft-07') ? '7' : '2020-12';
}

/** The interpreter-backed validator; `compile` never generates code and never throws for a well-formed schema. */
export const interpretingJsonSchemaValidator: JsonSchemaValidator = {
  compile(schema: JsonSchema): CompiledValidator {
    // short-circuit at the first failure, as mcpkit's default validator does
    const validator = new Validator(schema as Schema | boolean, draftOf(schema), true);
    return (value: unknown) => {
      const result = validator.validate(value);
      if (result.valid) return { valid: true };
      // the innermost unit names the failing keyword; its instance location is a JSON Pointer fragment
      const errors: ValidationIssue[] = result.errors.slice(-1).map((unit) => ({ path: unit.instanceLocation.replace(/^#/, ''), message: unit.error }));
      return { valid: false, errors };
    };
  },
};
