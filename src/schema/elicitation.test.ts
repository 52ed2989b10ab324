import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { specSchemaRoot } from '../testing/wire-schema.js';
import { AjvJsonSchemaValidator } from './ajv-validator.js';
import { applyElicitationDefaults, isValidRequestedSchema, matchesFormat, validateElicitationContent } from './elicitation.js';

/** One field of every kind the 2025-11-25 schema allows, each with a default. */
const form = () => ({
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 5, default: 'Ada' },
    email: { type: 'string', format: 'email', default: 'ada@example.com' },
    site: { type: 'string', format: 'uri' },
    birthday: { type: 'string', format: 'date', default: '1815-12-10' },
    meeting: { type: 'string', format: 'date-time' },
    age: { type: 'integer', minimum: 0, maximum: 150, default: 36 },
    score: { type: 'number', minimum: 0.5, maximum: 1.5, default: 1 },
    subscribe: { type: 'boolean', default: false },
    color: { type: 'string', enum: ['red', 'green'], default: 'red' },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
      default: 'l',
    },
    legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['Option A', 'Option B'], default: 'b' },
    toppings: { type: 'array', items: { type: 'string', enum: ['ham', 'egg', 'cheese'] }, minItems: 1, maxItems: 2, default: ['egg'] },
    days: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'mon', title: 'Monday' },
          { const: 'tue', title: 'Tuesday' },
        ],
      },
      maxItems: 1,
      default: ['tue'],
    },
  },
  required: ['name', 'age', 'color'],
});

const valid = () => ({
  name: 'Ada',
  email: 'ada@example.com',
  site: 'https://example.com/path?q=1#frag',
  birthday: '2024-02-29',
  meeting: '2025-11-25T09:30:00.5+01:00',
  age: 36,
  score: 0.75,
  subscribe: true,
  color: 'green',
  size: 's',
  legacy: 'a',
  toppings: ['ham', 'cheese'],
  days: ['mon'],
});

describe('isValidRequestedSchema', () => {
  it('accepts every field kind of the restricted subset', () => {
    assert.equal(isValidRequestedSchema(form()), undefined);
    assert.equal(isValidRequestedSchema({ type: 'object', properties: {} }), undefined);
    assert.equal(isValidRequestedSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} }), undefined);
  });

  it('the sample form is valid against the 2025-11-25 wire schema too', () => {
    const spec = JSON.parse(readFileSync(join(specSchemaRoot(), '2025-11-25', 'schema.json'), 'utf8')) as { $defs: Record<string, unknown> };
    const requested = (spec.$defs['ElicitRequestFormParams'] as { properties: { requestedSchema: object } }).properties.requestedSchema;
    const validate = new AjvJsonSchemaValidator().compile({ ...requested, $defs: spec.$defs });
    assert.deepEqual(validate(form()), { valid: true });
  });

  it('names the first problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /must be an object/],
      [{ type: 'array', properties: {} }, /type must be "object"/],
      [{ type: 'object' }, /properties must be an object/],
      [{ type: 'object', properties: {}, $schema: 'http://json-schema.org/draft-04/schema#' }, /Unsupported JSON Schema dialect/],
      [{ type: 'object', properties: {}, required: 'a' }, /required must be an array of strings/],
      [{ type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }, /names "b", which is not a property/],
      [{ type: 'object', properties: { a: 'string' } }, /property "a": must be a schema object/],
      [{ type: 'object', properties: { a: { type: 'object', properties: {} } } }, /property "a": nested objects are not allowed/],
      [{ type: 'object', properties: { a: { type: 'null' } } }, /property "a": type must be/],
      [{ type: 'object', properties: { a: { type: 'string', format: 'hostname' } } }, /format must be one of email, uri, date, date-time/],
      [{ type: 'object', properties: { a: { type: 'string', minLength: -1 } } }, /minLength must be a non-negative integer/],
      [{ type: 'object', properties: { a: { type: 'string', minLength: 3, maxLength: 2 } } }, /minLength must not exceed maxLength/],
      [{ type: 'object', properties: { a: { type: 'string', default: 1 } } }, /default must be a string/],
      [{ type: 'object', properties: { a: { type: 'string', title: 3 } } }, /title must be a string/],
      [{ type: 'object', properties: { a: { type: 'number', minimum: 'x' } } }, /minimum must be a number/],
      [{ type: 'object', properties: { a: { type: 'number', minimum: 2, maximum: 1 } } }, /minimum must not exceed maximum/],
      [{ type: 'object', properties: { a: { type: 'integer', default: 1.5 } } }, /default must be an integer/],
      [{ type: 'object', properties: { a: { type: 'boolean', default: 'yes' } } }, /default must be true or false/],
      [{ type: 'object', properties: { a: { type: 'string', enum: [] } } }, /enum must be a non-empty array of strings/],
      [{ type: 'object', properties: { a: { type: 'string', enum: ['x'], enumNames: ['X', 'Y'] } } }, /enumNames/],
      [{ type: 'object', properties: { a: { type: 'string', enum: ['x'], default: 'y' } } }, /default must be one of the enum values/],
      [{ type: 'object', properties: { a: { type: 'string', oneOf: [{ const: 'x' }] } } }, /string "const" and a string "title"/],
      [
        { type: 'object', properties: { a: { type: 'string', oneOf: [{ const: 'x', title: 'X' }], default: 'y' } } },
        /default must be one of the option values/,
      ],
      [{ type: 'object', properties: { a: { type: 'array' } } }, /items must be an object/],
      [{ type: 'object', properties: { a: { type: 'array', items: { type: 'object', properties: {} } } } }, /nested structures are not allowed/],
      [{ type: 'object', properties: { a: { type: 'array', items: { type: 'number', enum: ['1'] } } } }, /items.type must be "string"/],
      [{ type: 'object', properties: { a: { type: 'array', items: { anyOf: [] } } } }, /items.anyOf must be a non-empty array/],
      [{ type: 'object', properties: { a: { type: 'array', items: { enum: ['x'] }, minItems: 2, maxItems: 1 } } }, /minItems must not exceed maxItems/],
      [{ type: 'object', properties: { a: { type: 'array', items: { enum: ['x'] }, default: 'x' } } }, /default must be an array of option values/],
      [{ type: 'object', properties: { a: { type: 'array', items: { enum: ['x'] }, default: ['y'] } } }, /default must be an array of option values/],
    ];
    for (const [schema, expected] of cases) {
      const problem = isValidRequestedSchema(schema);
      assert.ok(problem !== undefined, `expected a problem for ${JSON.stringify(schema)}`);
      assert.match(problem, expected);
    }
  });
});

describe('validateElicitationContent', () => {
  it('accepts a valid answer for every field kind', () => {
    assert.deepEqual(validateElicitationContent(form(), valid()), []);
    assert.deepEqual(validateElicitationContent(form(), { name: 'Bo', age: 0, color: 'red' }), []);
  });

  it('rejects a bad value for every field kind with a field-named message', () => {
    const cases: Array<[string, unknown, string, string?]> = [
      ['name', 'A', 'name must be at least 2 characters long'],
      ['name', 'Adaline', 'name must be at most 5 characters long'],
      ['name', 7, 'name must be a string'],
      ['email', 'ada@', 'email must be a valid email address'],
      ['email', 'ada example.com', 'email must be a valid email address'],
      ['site', 'not a uri', 'site must be a valid URI'],
      ['site', '/relative/path', 'site must be a valid URI'],
      ['birthday', '2023-02-29', 'birthday must be a valid date (YYYY-MM-DD)'],
      ['birthday', '2024-13-01', 'birthday must be a valid date (YYYY-MM-DD)'],
      ['meeting', '2025-11-25 09:30', 'meeting must be a valid date-time (RFC 3339, e.g. 2025-01-31T12:00:00Z)'],
      ['meeting', '2025-11-25T24:00:00Z', 'meeting must be a valid date-time (RFC 3339, e.g. 2025-01-31T12:00:00Z)'],
      ['age', 36.5, 'age must be an integer'],
      ['age', -1, 'age must be at least 0'],
      ['age', 151, 'age must be at most 150'],
      ['age', '36', 'age must be a number'],
      ['score', 2, 'score must be at most 1.5'],
      ['score', 0.25, 'score must be at least 0.5'],
      ['subscribe', 'yes', 'subscribe must be true or false'],
      ['color', 'blue', 'color must be one of: "red", "green"'],
      ['size', 'Small', 'size must be one of: "s", "l"'],
      ['legacy', 'Option A', 'legacy must be one of: "a", "b"'],
      ['toppings', 'ham', 'toppings must be an array of strings'],
      ['toppings', [], 'toppings must have at least 1 selection'],
      ['toppings', ['ham', 'egg', 'cheese'], 'toppings must have at most 2 selections'],
      ['toppings', ['ham', 'bacon'], 'toppings[1] must be one of: "ham", "egg", "cheese"', '/toppings/1'],
      ['toppings', ['ham', 3], 'toppings[1] must be a string', '/toppings/1'],
      ['days', ['wed'], 'days[0] must be one of: "mon", "tue"', '/days/0'],
      ['days', ['mon', 'tue'], 'days must have at most 1 selection'],
    ];
    for (const [field, value, message, path = `/${field}`] of cases) {
      const content: Record<string, unknown> = { ...valid(), [field]: value };
      assert.deepEqual(validateElicitationContent(form(), content), [{ path, message }], `${field} = ${JSON.stringify(value)}`);
    }
  });

  it('requires required fields, in schema order', () => {
    assert.deepEqual(validateElicitationContent(form(), { name: 'Ada' }), [
      { path: '/age', message: 'age is required' },
      { path: '/color', message: 'color is required' },
    ]);
  });

  it('reports several problems at once and refuses non-objects', () => {
    assert.equal(validateElicitationContent(form(), { name: 1, age: 'x', color: 'blue' }).length, 3);
    assert.deepEqual(validateElicitationContent(form(), ['Ada']), [{ path: '', message: 'content must be an object' }]);
    assert.deepEqual(validateElicitationContent(form(), undefined), [{ path: '', message: 'content must be an object' }]);
  });

  it('accepts extra fields unless additionalProperties is false', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    assert.deepEqual(validateElicitationContent(schema, { a: 'x', b: 1 }), []);
    assert.deepEqual(validateElicitationContent({ ...schema, additionalProperties: false }, { a: 'x', b: 1 }), [
      { path: '/b', message: 'b is not a requested field' },
    ]);
  });

  it('honours uniqueItems on multi-select fields', () => {
    const schema = { type: 'object', properties: { t: { type: 'array', items: { enum: ['x', 'y'] }, uniqueItems: true } } };
    assert.deepEqual(validateElicitationContent(schema, { t: ['x', 'x'] }), [{ path: '/t', message: 't must not select the same option twice' }]);
  });

  it('counts characters as code points and treats __proto__ as an ordinary field', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","maxLength":2}},"required":["__proto__"]}') as object;
    assert.deepEqual(validateElicitationContent(schema, JSON.parse('{"__proto__":"😀😀"}')), []);
    assert.deepEqual(validateElicitationContent(schema, JSON.parse('{"__proto__":"😀😀😀"}')), [
      { path: '/__proto__', message: '__proto__ must be at most 2 characters long' },
    ]);
    assert.deepEqual(validateElicitationContent(schema, {}), [{ path: '/__proto__', message: '__proto__ is required' }]);
  });
});

describe('applyElicitationDefaults', () => {
  it('fills every absent field that has a default, for every field kind', () => {
    const filled = applyElicitationDefaults(form(), {});
    assert.deepEqual(filled, {
      name: 'Ada',
      email: 'ada@example.com',
      birthday: '1815-12-10',
      age: 36,
      score: 1,
      subscribe: false,
      color: 'red',
      size: 'l',
      legacy: 'b',
      toppings: ['egg'],
      days: ['tue'],
    });
    assert.deepEqual(validateElicitationContent(form(), filled), []);
  });

  it('keeps present values, even falsy ones, and adds nothing without a default', () => {
    const filled = applyElicitationDefaults(form(), { name: '', subscribe: false, age: 0, toppings: [] });
    assert.equal(filled['name'], '');
    assert.equal(filled['age'], 0);
    assert.deepEqual(filled['toppings'], []);
    assert.equal('site' in filled, false);
    assert.equal('meeting' in filled, false);
  });

  it('copies instead of sharing or modifying', () => {
    const schema = form();
    const before = structuredClone(schema);
    const content = { name: 'Bo' };
    const filled = applyElicitationDefaults(schema, content);
    assert.notEqual(filled, content);
    assert.deepEqual(content, { name: 'Bo' });
    assert.notEqual(filled['toppings'], schema.properties.toppings.default);
    (filled['toppings'] as string[]).push('ham');
    assert.deepEqual(schema, before);
  });

  it('works without content and with __proto__ fields', () => {
    assert.deepEqual(applyElicitationDefaults({ type: 'object', properties: { a: { type: 'boolean', default: true } } }), { a: true });
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","default":"x"}}}') as object;
    const filled = applyElicitationDefaults(schema, {});
    assert.equal(Object.getPrototypeOf(filled), Object.prototype);
    assert.deepEqual(Object.keys(filled), ['__proto__']);
    assert.equal(Object.getOwnPropertyDescriptor(filled, '__proto__')?.value, 'x');
  });
});

describe('matchesFormat', () => {
  it('checks the four elicitation formats', () => {
    const ok: Array<[string, string]> = [
      ['email', 'first.last+tag@sub.example.co'],
      ['email', 'user@bücher.example'],
      ['uri', 'mailto:ada@example.com'],
      ['uri', 'urn:isbn:0451450523'],
      ['uri', 'https://example.com/a%20b'],
      ['date', '2000-02-29'],
      ['date-time', '2025-11-25T09:30:00Z'],
      ['date-time', '2016-12-31t23:59:60z'],
      ['date-time', '2025-11-25T09:30:00-05:00'],
      ['anything-else', 'whatever'],
    ];
    for (const [format, value] of ok) assert.equal(matchesFormat(format, value), true, `${format}: ${value}`);
    const bad: Array<[string, string]> = [
      ['email', '@example.com'],
      ['email', 'a@b'],
      ['email', 'a..b@example.com'],
      ['email', 'a@-example.com'],
      ['uri', 'https://example.com/a b'],
      ['uri', 'https://example.com/%zz'],
      ['uri', '1http://x'],
      ['date', '1900-02-29'],
      ['date', '2025-1-01'],
      ['date-time', '2025-11-25T09:30Z'],
      ['date-time', '2025-11-25T09:30:00'],
      ['date-time', '2025-11-25T09:30:00+24:00'],
    ];
    for (const [format, value] of bad) assert.equal(matchesFormat(format, value), false, `${format}: ${value}`);
  });

  it('stays fast on adversarial input', () => {
    // 200k characters each: linear checks take milliseconds, a backtracking pattern
    // (~10^10 steps and more) far longer than the bound, even on a heavily loaded machine.
    const long = 'a'.repeat(200_000);
    const started = performance.now();
    matchesFormat('email', `${long}@`);
    matchesFormat('email', `a@${'a-'.repeat(100_000)}`);
    matchesFormat('uri', `a:${'%'.repeat(200_000)}`);
    matchesFormat('date-time', `2025-01-01T00:00:00.${'1'.repeat(200_000)}`);
    assert.ok(performance.now() - started < 20_000);
  });
});
