/**
 * Turns Ajv's error objects into short issues that name the field.
 *
 * Design note: validators run with `allErrors: false`, so Ajv stops at the first failing
 * keyword. The last error in its list is that keyword; anything before it was collected
 * while trying the alternatives of a composite keyword (`anyOf`, `oneOf`, `if`/`then`,
 * `propertyNames`). We therefore report one issue: the decisive error, explained with the
 * help of its alternatives where that reads better ("must be one of: …" for enum-like
 * `oneOf` lists, "must be a string or a number" for type unions, the deepest alternative's
 * own problem otherwise).
 */
import type { ErrorObject } from 'ajv';
import { appendPointer, fieldLabel, showChoices, showValue } from './issues.js';
import type { ValidationIssue } from './types.js';

/** Converts the error list of one failed Ajv validation. Never returns an empty list. */
export function issuesFromAjv(errors: ReadonlyArray<ErrorObject> | null | undefined): ValidationIssue[] {
  if (!errors || errors.length === 0) return [{ path: '', message: `${fieldLabel('')} is invalid` }];
  return [decisive(errors, errors.length)];
}

function decisive(errors: ReadonlyArray<ErrorObject>, end: number): ValidationIssue {
  const error = errors[end - 1]!;
  switch (error.keyword) {
    case 'if':
      // The preceding errors come from the failed `then` / `else` branch: report those.
      return end > 1 ? decisive(errors, end - 1) : basic(error);
    case 'anyOf':
    case 'oneOf':
      return composite(errors, end - 1, error);
    default:
      return basic(error);
  }
}

function composite(errors: ReadonlyArray<ErrorObject>, subEnd: number, error: ErrorObject): ValidationIssue {
  const path = error.instancePath;
  const label = fieldLabel(path);
  const params = error.params as { passingSchemas?: unknown };
  if (error.keyword === 'oneOf' && Array.isArray(params.passingSchemas)) {
    return { path, message: `${label} matches more than one of the allowed alternatives; it must match exactly one` };
  }
  const prefix = path + '/';
  let allChoices = subEnd > 0;
  let allTypes = subEnd > 0;
  const choices: unknown[] = [];
  const types: string[] = [];
  let deepest: ValidationIssue | undefined;
  let deepestDepth = depth(path);
  for (let i = 0; i < subEnd; i++) {
    const sub = errors[i]!;
    if (sub.instancePath !== path && !sub.instancePath.startsWith(prefix)) continue;
    const same = sub.instancePath === path;
    if (same && sub.keyword === 'const') choices.push((sub.params as { allowedValue?: unknown }).allowedValue);
    else if (same && sub.keyword === 'enum') {
      const allowed = (sub.params as { allowedValues?: unknown }).allowedValues;
      if (Array.isArray(allowed)) choices.push(...allowed);
      else allChoices = false;
    } else allChoices = false;
    if (same && sub.keyword === 'type') {
      for (const t of typeNames((sub.params as { type?: unknown }).type)) if (!types.includes(t)) types.push(t);
    } else allTypes = false;
    const issue = basic(sub);
    const d = depth(issue.path);
    if (d > deepestDepth) {
      deepest = issue;
      deepestDepth = d;
    }
  }
  if (allChoices && choices.length > 0) {
    return { path, message: choices.length === 1 ? `${label} must be ${showValue(choices[0])}` : `${label} must be one of: ${showChoices(choices)}` };
  }
  if (allTypes && types.length > 0) return { path, message: `${label} must be ${describeTypes(types)}` };
  if (deepest) return deepest;
  return { path, message: `${label} does not match any of the allowed alternatives` };
}

function showPattern(pattern: string): string {
  return pattern.length > 80 ? `/${pattern.slice(0, 79)}…/` : `/${pattern}/`;
}

function depth(pointer: string): number {
  let n = 0;
  for (let i = 0; i < pointer.length; i++) if (pointer.charCodeAt(i) === 47 /* / */) n++;
  return n;
}

function plural(n: unknown, word: string, pluralWord = `${word}s`): string {
  return `${String(n)} ${n === 1 ? word : pluralWord}`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function typeNames(type: unknown): string[] {
  if (Array.isArray(type)) return type.map(String);
  if (typeof type === 'string') return type.split(',');
  return [];
}

function describeTypes(types: ReadonlyArray<string>): string {
  const words = types.map((t) => TYPE_WORDS[t] ?? t);
  if (words.length <= 1) return words[0] ?? 'of another type';
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

const FORMAT_WORDS: Record<string, string> = {
  email: 'a valid email address',
  'idn-email': 'a valid email address',
  uri: 'a valid URI',
  'uri-reference': 'a valid URI reference',
  iri: 'a valid IRI',
  url: 'a valid URL',
  date: 'a valid date (YYYY-MM-DD)',
  time: 'a valid time (hh:mm:ss with a time zone)',
  'date-time': 'a valid date-time (RFC 3339, e.g. 2025-01-31T12:00:00Z)',
  duration: 'a valid ISO 8601 duration',
  uuid: 'a valid UUID',
  ipv4: 'a valid IPv4 address',
  ipv6: 'a valid IPv6 address',
  hostname: 'a valid hostname',
  regex: 'a valid regular expression',
};

const COMPARISON_WORDS: Record<string, string> = {
  '>=': 'at least',
  '<=': 'at most',
  '>': 'greater than',
  '<': 'less than',
};

function basic(error: ErrorObject): ValidationIssue {
  const path = error.instancePath;
  const label = fieldLabel(path);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = appendPointer(path, String(p['missingProperty']));
      return { path: missing, message: `${fieldLabel(missing)} is required` };
    }
    case 'dependentRequired':
    case 'dependencies': {
      const missing = appendPointer(path, String(p['missingProperty']));
      const present = appendPointer(path, String(p['property']));
      return { path: missing, message: `${fieldLabel(missing)} is required when ${fieldLabel(present)} is present` };
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const extra = appendPointer(path, String(p['additionalProperty'] ?? p['unevaluatedProperty']));
      return { path: extra, message: `${fieldLabel(extra)} is not an allowed property` };
    }
    case 'type':
      return { path, message: `${label} must be ${describeTypes(typeNames(p['type']))}` };
    case 'enum': {
      const allowed = Array.isArray(p['allowedValues']) ? (p['allowedValues'] as unknown[]) : [];
      return {
        path,
        message: allowed.length === 1 ? `${label} must be ${showValue(allowed[0])}` : `${label} must be one of: ${showChoices(allowed)}`,
      };
    }
    case 'const':
      return { path, message: `${label} must be ${showValue(p['allowedValue'])}` };
    case 'minLength':
      return { path, message: `${label} must be at least ${plural(p['limit'], 'character')} long` };
    case 'maxLength':
      return { path, message: `${label} must be at most ${plural(p['limit'], 'character')} long` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const words = COMPARISON_WORDS[String(p['comparison'])] ?? String(p['comparison']);
      return { path, message: `${label} must be ${words} ${String(p['limit'])}` };
    }
    case 'multipleOf':
      return { path, message: `${label} must be a multiple of ${String(p['multipleOf'])}` };
    case 'pattern':
      return { path, message: `${label} must match the pattern ${showPattern(String(p['pattern']))}` };
    case 'format': {
      const format = String(p['format']);
      return { path, message: `${label} must be ${FORMAT_WORDS[format] ?? `in the format "${format}"`}` };
    }
    case 'minItems':
      return { path, message: `${label} must have at least ${plural(p['limit'], 'item')}` };
    case 'maxItems':
    case 'additionalItems':
    case 'items':
      return { path, message: `${label} must have at most ${plural(p['limit'], 'item')}` };
    case 'unevaluatedItems':
      return { path, message: `${label} must have at most ${plural(p['len'], 'item')}` };
    case 'uniqueItems':
      return { path, message: `${label} must not contain duplicates (items ${String(p['j'])} and ${String(p['i'])} are equal)` };
    case 'minProperties':
      return { path, message: `${label} must have at least ${plural(p['limit'], 'property', 'properties')}` };
    case 'maxProperties':
      return { path, message: `${label} must have at most ${plural(p['limit'], 'property', 'properties')}` };
    case 'contains': {
      const min = p['minContains'] ?? 1;
      const max = p['maxContains'];
      return {
        path,
        message:
          max === undefined
            ? `${label} must contain at least ${plural(min, 'matching item')}`
            : `${label} must contain between ${String(min)} and ${String(max)} matching items`,
      };
    }
    case 'propertyNames':
      return { path, message: `${label} has a property name that is not allowed: ${showValue(p['propertyName'])}` };
    case 'not':
      return { path, message: `${label} matches a schema it must not match` };
    case 'false schema':
      return { path, message: `${label} is not allowed` };
    case 'anyOf':
    case 'oneOf':
      return { path, message: `${label} does not match any of the allowed alternatives` };
    case 'if':
      return { path, message: `${label} must match the "${String(p['failingKeyword'])}" schema` };
    default:
      return { path, message: `${label} ${error.message ?? 'is invalid'}` };
  }
}
