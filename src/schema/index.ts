/**
 * `mcpkit/schema`: user schemas (Standard Schema or plain JSON Schema), the pluggable JSON
 * Schema validator (2020-12 by default, draft-07 when declared), and the form elicitation
 * helpers. Runtime-neutral: no `node:` modules.
 */

export { loadJsonSchemaEngine } from './ajv-engine.js';
export { AjvJsonSchemaValidator, type AjvJsonSchemaValidatorOptions, defaultJsonSchemaValidator } from './ajv-validator.js';
export { DIALECT_URI, dialectOf, dialectOfUri, type JsonSchemaDialect } from './dialect.js';
export {
  applyElicitationDefaults,
  ELICITATION_FORMATS,
  type ElicitationContent,
  type ElicitationValue,
  isValidRequestedSchema,
  matchesFormat,
  validateElicitationContent,
} from './elicitation.js';
export { fieldLabel, formatIssues, pointerFromSegments } from './issues.js';
export {
  isStandardJSONSchema,
  isStandardSchema,
  requireObjectSchema,
  type SchemaAdapterOptions,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
  toSchemaAdapter,
} from './standard-schema.js';
export { checkJsonSchema, EXTRA_ANNOTATIONS, type StrictCheckOptions } from './strict-check.js';
export {
  type CompiledValidator,
  type JsonSchema,
  type JsonSchemaValidator,
  type SchemaAdapter,
  SchemaError,
  type SchemaErrorCode,
  type ValidationIssue,
  type ValidationOutcome,
  type ValidationResult,
} from './types.js';
