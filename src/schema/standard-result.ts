/**
 * Turning a Standard Schema library's verdict into the schema layer's {@link ValidationResult}:
 * issues get JSON Pointer paths and messages that name the field.
 */

import { isThenable } from '../jsonrpc/values.js';
import { fieldLabel, pointerFromSegments } from './issues.js';
import type { StandardSchemaV1 } from './standard-interfaces.js';
import type { ValidationIssue, ValidationResult } from './types.js';

/**
 * Validates `value` with the library's own `~standard.validate`: synchronously when the
 * library answers synchronously, else with a promise (async refinements). Exceptions thrown
 * by the library's code propagate unchanged.
 */
export function validateStandard(schema: StandardSchemaV1, value: unknown): ValidationResult<unknown> | Promise<ValidationResult<unknown>> {
  const result = schema['~standard'].validate(value);
  return isThenable(result) ? Promise.resolve(result).then(fromStandardResult) : fromStandardResult(result);
}

function fromStandardResult(result: StandardSchemaV1.Result<unknown>): ValidationResult<unknown> {
  if (!result.issues) return { valid: true, value: (result as StandardSchemaV1.SuccessResult<unknown>).value };
  const errors = result.issues.map(fromStandardIssue);
  if (errors.length === 0) errors.push({ path: '', message: `${fieldLabel('')} is invalid` });
  return { valid: false, errors };
}

/** Converts one Standard Schema issue: JSON Pointer path, message prefixed with the field name. */
export function fromStandardIssue(issue: StandardSchemaV1.Issue): ValidationIssue {
  const segments = issue.path ?? [];
  const keys = segments.map((s) => (typeof s === 'object' && s !== null ? (s as StandardSchemaV1.PathSegment).key : s));
  const path = pointerFromSegments(keys);
  const message = typeof issue.message === 'string' && issue.message !== '' ? issue.message : 'is invalid';
  return { path, message: path === '' ? message : `${fieldLabel(path)}: ${message}` };
}
