/**
 * `mcpkit/schema`: user schemas (Standard Schema or plain JSON Schema), the pluggable JSON
 * Schema validator (2020-12 by default, draft-07 when declared), and the form elicitation
 * helpers. Runtime-neutral: no `node:` modules.
 */
export {
  SchemaError,
  type CompiledValidator,
  type JsonSchema,
  type JsonSchemaValidator,
  type SchemaAdapter,
  type SchemaErrorCode,
  type ValidationIssue,
  type ValidationOutcome,
  type ValidationResult,
} from './types.js';
export { DIALECT_URI, dialectOf, dialectOfUri, type JsonSchemaDialect } from './dialect.js';
export { AjvJsonSchemaValidator, defaultJsonSchemaValidator, type AjvJsonSchemaValidatorOptions } from './ajv-validator.js';
export { loadJsonSchemaEngine } from './ajv-engine.js';
export { fieldLabel, formatIssues, pointerFromSegments } from './issues.js';
export { EXTRA_ANNOTATIONS, checkJsonSchema, type StrictCheckOptions } from './strict-check.js';
export {
  isStandardJSONSchema,
  isStandardSchema,
  requireObjectSchema,
  toSchemaAdapter,
  type SchemaAdapterOptions,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
} from './standard-schema.js';
export {
  ELICITATION_FORMATS,
  applyElicitationDefaults,
  isValidRequestedSchema,
  matchesFormat,
  validateElicitationContent,
  type ElicitationContent,
  type ElicitationValue,
} from './elicitation.js';
