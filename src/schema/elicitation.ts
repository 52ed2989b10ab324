/**
 * Form elicitation schemas (`elicitation/create`, `requestedSchema`): a flat object whose
 * properties are primitive fields. Used by servers (check a request before sending it, and
 * the user's answer against it) and by clients (pre-fill defaults, check the answer before
 * returning it).
 *
 * Design note: the restricted subset is small and fixed, so it is checked by hand instead
 * of through a JSON Schema engine: no compilation, messages written for people, and no
 * dependency on code generation. Field kinds, per the 2025-11-25 schema
 * (`PrimitiveSchemaDefinition`), with SEP-1034 defaults on every kind:
 *
 * | kind | shape |
 * |---|---|
 * | text | `{type: 'string', minLength?, maxLength?, format?: email \| uri \| date \| date-time}` |
 * | number | `{type: 'number' \| 'integer', minimum?, maximum?}` |
 * | boolean | `{type: 'boolean'}` |
 * | single choice | `{type: 'string', enum}` (legacy titles in `enumNames`) or `{type: 'string', oneOf: [{const, title}]}` |
 * | multiple choice | `{type: 'array', items: {type: 'string', enum} \| {anyOf: [{const, title}]}, minItems?, maxItems?}` |
 *
 * Older revisions (2025-06-18) know only text, number, boolean and `enum`/`enumNames`;
 * the checks accept all of them regardless of revision.
 * See https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 */

import { isObject } from '../jsonrpc/values.js';
import { dialectOf } from './dialect.js';
import { appendPointer, fieldLabel, showChoices } from './issues.js';
import { SchemaError, type ValidationIssue } from './types.js';

/** A value in an elicitation answer (`ElicitResult.content`). */
export type ElicitationValue = string | number | boolean | string[];

/** The `content` of an accepted form elicitation. */
export type ElicitationContent = { [name: string]: ElicitationValue };

/** Formats a text field may declare. */
export const ELICITATION_FORMATS: ReadonlyArray<string> = ['email', 'uri', 'date', 'date-time'];

type Field =
  | { kind: 'text'; schema: Record<string, unknown> }
  | { kind: 'number'; integer: boolean; schema: Record<string, unknown> }
  | { kind: 'boolean' }
  | { kind: 'single'; choices: string[] }
  | { kind: 'multiple'; choices: string[] | undefined; schema: Record<string, unknown> }
  | { kind: 'other' };

const hasOwn = (object: object, key: string): boolean => Object.hasOwn(object, key);

/** Defines `key` as an own data property (so `__proto__` stays an ordinary key). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function constValues(options: unknown): string[] | undefined {
  if (!Array.isArray(options)) return undefined;
  const out: string[] = [];
  for (const option of options) {
    if (isObject(option) && typeof option['const'] === 'string') out.push(option['const']);
  }
  return out;
}

function stringList(list: unknown): string[] | undefined {
  return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : undefined;
}

function classify(schema: unknown): Field {
  if (!isObject(schema)) return { kind: 'other' };
  switch (schema['type']) {
    case 'string': {
      const choices = stringList(schema['enum']) ?? constValues(schema['oneOf']) ?? constValues(schema['anyOf']);
      return choices !== undefined ? { kind: 'single', choices } : { kind: 'text', schema };
    }
    case 'number':
    case 'integer':
      return { kind: 'number', integer: schema['type'] === 'integer', schema };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array': {
      const items = schema['items'];
      const choices = isObject(items) ? (stringList(items['enum']) ?? constValues(items['anyOf']) ?? constValues(items['oneOf'])) : undefined;
      return { kind: 'multiple', choices, schema };
    }
    default:
      return { kind: 'other' };
  }
}

function propertiesOf(requestedSchema: unknown): Record<string, unknown> {
  const properties = isObject(requestedSchema) ? requestedSchema['properties'] : undefined;
  return isObject(properties) ? properties : {};
}

/**
 * Checks an elicitation answer (`content`) against the `requestedSchema` it answers.
 * Returns the issues (empty when the answer is valid), in the order of the schema's
 * properties. Required fields must be present; extra fields are accepted unless the
 * schema says `additionalProperties: false`; fields of a kind outside the restricted
 * subset are not checked. Never throws.
 */
export function validateElicitationContent(requestedSchema: unknown, content: unknown): ValidationIssue[] {
  if (!isObject(content)) return [{ path: '', message: 'content must be an object' }];
  const issues: ValidationIssue[] = [];
  const properties = propertiesOf(requestedSchema);
  const required = isObject(requestedSchema) ? (stringList(requestedSchema['required']) ?? []) : [];
  for (const name of Object.keys(properties)) {
    const path = appendPointer('', name);
    if (!hasOwn(content, name)) {
      if (required.includes(name)) issues.push({ path, message: `${fieldLabel(path)} is required` });
      continue;
    }
    const issue = checkField(classify(properties[name]), content[name], path);
    if (issue !== undefined) issues.push(issue);
  }
  for (const name of required) {
    if (!hasOwn(properties, name) && !hasOwn(content, name)) {
      const path = appendPointer('', name);
      issues.push({ path, message: `${fieldLabel(path)} is required` });
    }
  }
  if (isObject(requestedSchema) && requestedSchema['additionalProperties'] === false) {
    for (const name of Object.keys(content)) {
      if (!hasOwn(properties, name)) {
        const path = appendPointer('', name);
        issues.push({ path, message: `${fieldLabel(path)} is not a requested field` });
      }
    }
  }
  return issues;
}

function checkField(field: Field, value: unknown, path: string): ValidationIssue | undefined {
  const label = fieldLabel(path);
  switch (field.kind) {
    case 'text': {
      if (typeof value !== 'string') return { path, message: `${label} must be a string` };
      const { schema } = field;
      const minLength = schema['minLength'];
      const maxLength = schema['maxLength'];
      if (typeof minLength === 'number' || typeof maxLength === 'number') {
        const length = codePointLength(value);
        if (typeof minLength === 'number' && length < minLength) {
          return { path, message: `${label} must be at least ${count(minLength, 'character')} long` };
        }
        if (typeof maxLength === 'number' && length > maxLength) {
          return { path, message: `${label} must be at most ${count(maxLength, 'character')} long` };
        }
      }
      const format = schema['format'];
      if (typeof format === 'string' && !matchesFormat(format, value)) {
        return { path, message: `${label} must be ${FORMAT_WORDS[format] ?? `in the format "${format}"`}` };
      }
      return undefined;
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return { path, message: `${label} must be a number` };
      if (field.integer && !Number.isInteger(value)) return { path, message: `${label} must be an integer` };
      const minimum = field.schema['minimum'];
      const maximum = field.schema['maximum'];
      if (typeof minimum === 'number' && value < minimum) return { path, message: `${label} must be at least ${minimum}` };
      if (typeof maximum === 'number' && value > maximum) return { path, message: `${label} must be at most ${maximum}` };
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : { path, message: `${label} must be true or false` };
    case 'single':
      if (typeof value === 'string' && field.choices.includes(value)) return undefined;
      return { path, message: `${label} must be one of: ${showChoices(field.choices)}` };
    case 'multiple': {
      if (!Array.isArray(value)) return { path, message: `${label} must be an array of strings` };
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const itemPath = appendPointer(path, i);
        if (typeof item !== 'string') return { path: itemPath, message: `${fieldLabel(itemPath)} must be a string` };
        if (field.choices !== undefined && !field.choices.includes(item)) {
          return { path: itemPath, message: `${fieldLabel(itemPath)} must be one of: ${showChoices(field.choices)}` };
        }
      }
      const { schema } = field;
      const minItems = schema['minItems'];
      const maxItems = schema['maxItems'];
      if (typeof minItems === 'number' && value.length < minItems) {
        return { path, message: `${label} must have at least ${count(minItems, 'selection')}` };
      }
      if (typeof maxItems === 'number' && value.length > maxItems) {
        return { path, message: `${label} must have at most ${count(maxItems, 'selection')}` };
      }
      if (schema['uniqueItems'] === true && new Set(value).size !== value.length) {
        return { path, message: `${label} must not select the same option twice` };
      }
      return undefined;
    }
    case 'other':
      return undefined;
  }
}

function count(n: number, word: string): string {
  return `${n} ${n === 1 ? word : `${word}s`}`;
}

function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low surrogate is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

const FORMAT_WORDS: Record<string, string> = {
  email: 'a valid email address',
  uri: 'a valid URI',
  date: 'a valid date (YYYY-MM-DD)',
  'date-time': 'a valid date-time (RFC 3339, e.g. 2025-01-31T12:00:00Z)',
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})*$/;
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/**
 * Whether `value` has the elicitation `format` (`email`, `uri`, `date`, `date-time`).
 * Unknown formats always match. The checks are linear-time (no backtracking blow-ups).
 */
export function matchesFormat(format: string, value: string): boolean {
  switch (format) {
    case 'date': {
      const m = DATE.exec(value);
      return m !== null && validDate(+m[1]!, +m[2]!, +m[3]!);
    }
    case 'date-time': {
      const m = DATE_TIME.exec(value);
      if (m === null || !validDate(+m[1]!, +m[2]!, +m[3]!)) return false;
      if (+m[4]! > 23 || +m[5]! > 59 || +m[6]! > 60) return false;
      return m[7] === undefined || (+m[7] <= 23 && +m[8]! <= 59);
    }
    case 'uri':
      return value.length <= 65536 && URI.test(value);
    case 'email': {
      if (value.length > 320) return false;
      const at = value.lastIndexOf('@');
      if (at <= 0 || at > 64 || at === value.length - 1) return false;
      if (!EMAIL_LOCAL.test(value.slice(0, at))) return false;
      const labels = value.slice(at + 1).split('.');
      return labels.length >= 2 && labels.every((label) => DOMAIN_LABEL.test(label));
    }
    default:
      return true;
  }
}

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days;
}

/**
 * A copy of `content` (or of `{}` when absent) with every field of `requestedSchema` that
 * the answer leaves out but that declares a `default` filled with that default (SEP-1034;
 * a multiple-choice default is a string array, copied). Fields already present, even with
 * a falsy value, are kept. Neither argument is modified. Never throws.
 *
 * Clients call it to pre-fill a form or to complete an answer; servers may call it to
 * read an answer with the defaults they offered.
 */
export function applyElicitationDefaults(requestedSchema: unknown, content?: Readonly<Record<string, unknown>>): ElicitationContent {
  const out: Record<string, unknown> = {};
  if (isObject(content)) for (const key of Object.keys(content)) setOwn(out, key, content[key]);
  const properties = propertiesOf(requestedSchema);
  for (const name of Object.keys(properties)) {
    const field = properties[name];
    if (hasOwn(out, name) || !isObject(field) || !hasOwn(field, 'default')) continue;
    const value = field['default'];
    if (value === undefined) continue;
    setOwn(out, name, Array.isArray(value) ? value.slice() : value);
  }
  return out as ElicitationContent;
}

/**
 * Checks that `schema` is a valid form `requestedSchema`: `type: 'object'`, a
 * `properties` object whose members are all primitive field schemas of the restricted
 * subset (no nesting), `required` naming declared properties, and defaults that fit their
 * fields. Returns a message describing the first problem, or `undefined` when the schema
 * is valid. Servers call it before sending `elicitation/create`; clients may call it on
 * what they receive. Never throws.
 */
export function isValidRequestedSchema(schema: unknown): string | undefined {
  if (!isObject(schema)) return 'requestedSchema must be an object';
  if (schema['type'] !== 'object') return 'requestedSchema.type must be "object"';
  if (schema['$schema'] !== undefined) {
    try {
      dialectOf(schema);
    } catch (error) {
      return `requestedSchema: ${error instanceof SchemaError ? error.message : String(error)}`;
    }
  }
  const properties = schema['properties'];
  if (!isObject(properties)) return 'requestedSchema.properties must be an object';
  const required = schema['required'];
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
      return 'requestedSchema.required must be an array of strings';
    }
    for (const name of required as string[]) {
      if (!hasOwn(properties, name)) return `requestedSchema.required names ${JSON.stringify(name)}, which is not a property`;
    }
  }
  for (const name of Object.keys(properties)) {
    const problem = fieldProblem(properties[name]);
    if (problem !== undefined) return `requestedSchema property ${JSON.stringify(name)}: ${problem}`;
  }
  return undefined;
}

const isNonNegativeInteger = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isFiniteNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

function titledOptionsProblem(options: unknown, where: string): string | undefined {
  if (!Array.isArray(options) || options.length === 0) return `${where} must be a non-empty array of {const, title} options`;
  for (const option of options) {
    if (!isObject(option) || typeof option['const'] !== 'string' || typeof option['title'] !== 'string') {
      return `every option in ${where} must have a string "const" and a string "title"`;
    }
  }
  return undefined;
}

function fieldProblem(field: unknown): string | undefined {
  if (!isObject(field)) return 'must be a schema object';
  for (const key of ['title', 'description'] as const) {
    if (field[key] !== undefined && typeof field[key] !== 'string') return `${key} must be a string`;
  }
  const type = field['type'];
  const fallback = field['default'];
  switch (type) {
    case 'string': {
      if (field['enum'] !== undefined) {
        const values = field['enum'];
        if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string')) {
          return 'enum must be a non-empty array of strings';
        }
        const names = field['enumNames'];
        if (names !== undefined && (!Array.isArray(names) || names.length !== values.length || !names.every((v) => typeof v === 'string'))) {
          return 'enumNames must be an array of strings, one per enum value';
        }
        if (fallback !== undefined && !(values as unknown[]).includes(fallback)) return 'default must be one of the enum values';
        return undefined;
      }
      if (field['oneOf'] !== undefined) {
        const problem = titledOptionsProblem(field['oneOf'], 'oneOf');
        if (problem !== undefined) return problem;
        if (fallback !== undefined && !constValues(field['oneOf'])!.includes(fallback as string)) {
          return 'default must be one of the option values';
        }
        return undefined;
      }
      for (const key of ['minLength', 'maxLength'] as const) {
        if (field[key] !== undefined && !isNonNegativeInteger(field[key])) return `${key} must be a non-negative integer`;
      }
      if (typeof field['minLength'] === 'number' && typeof field['maxLength'] === 'number' && field['minLength'] > field['maxLength']) {
        return 'minLength must not exceed maxLength';
      }
      const format = field['format'];
      if (format !== undefined && (typeof format !== 'string' || !ELICITATION_FORMATS.includes(format))) {
        return `format must be one of ${ELICITATION_FORMATS.join(', ')}`;
      }
      if (fallback !== undefined && typeof fallback !== 'string') return 'default must be a string';
      return undefined;
    }
    case 'number':
    case 'integer': {
      for (const key of ['minimum', 'maximum'] as const) {
        if (field[key] !== undefined && !isFiniteNumber(field[key])) return `${key} must be a number`;
      }
      if (typeof field['minimum'] === 'number' && typeof field['maximum'] === 'number' && field['minimum'] > field['maximum']) {
        return 'minimum must not exceed maximum';
      }
      if (fallback !== undefined) {
        if (!isFiniteNumber(fallback)) return 'default must be a number';
        if (type === 'integer' && !Number.isInteger(fallback)) return 'default must be an integer';
      }
      return undefined;
    }
    case 'boolean':
      return fallback !== undefined && typeof fallback !== 'boolean' ? 'default must be true or false' : undefined;
    case 'array': {
      const items = field['items'];
      if (!isObject(items)) return 'items must be an object listing the options (enum or anyOf)';
      let choices: string[];
      if (items['enum'] !== undefined) {
        if (items['type'] !== undefined && items['type'] !== 'string') return 'items.type must be "string"';
        const values = items['enum'];
        if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string')) {
          return 'items.enum must be a non-empty array of strings';
        }
        choices = values as string[];
      } else if (items['anyOf'] !== undefined) {
        const problem = titledOptionsProblem(items['anyOf'], 'items.anyOf');
        if (problem !== undefined) return problem;
        choices = constValues(items['anyOf'])!;
      } else {
        return 'items must list the options in "enum" or "anyOf" (nested structures are not allowed)';
      }
      for (const key of ['minItems', 'maxItems'] as const) {
        if (field[key] !== undefined && !isNonNegativeInteger(field[key])) return `${key} must be a non-negative integer`;
      }
      if (typeof field['minItems'] === 'number' && typeof field['maxItems'] === 'number' && field['minItems'] > field['maxItems']) {
        return 'minItems must not exceed maxItems';
      }
      if (fallback !== undefined) {
        if (!Array.isArray(fallback) || !fallback.every((v) => typeof v === 'string' && choices.includes(v))) {
          return 'default must be an array of option values';
        }
      }
      return undefined;
    }
    case 'object':
      return 'nested objects are not allowed (only string, number, integer, boolean and multiple-choice array fields)';
    default:
      return 'type must be "string", "number", "integer", "boolean" or "array"';
  }
}
