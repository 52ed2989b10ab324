/**
 * The JSON Schema engine (Ajv) loads on the first compile, not when an entry point is
 * imported: a server's or client's first `initialize` needs no schema compilation, so its
 * cold start must not pay for Ajv's modules. Checked in fresh child processes, since a
 * module loaded once stays loaded.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

const ENTRY = (path: string): string => new URL(path, import.meta.url).href;

/** Runs `body` as an ES module in a fresh Node process; resolves with its stdout lines. */
function inChild(body: string): string[] {
  const prelude = `import { createRequire } from 'node:module';
const require = createRequire(${JSON.stringify(import.meta.url)});
const ajvLoaded = () => Object.keys(require.cache).some((file) => /[\\\\/]node_modules[\\\\/]ajv(-formats)?[\\\\/]/.test(file));
`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', prelude + body], { encoding: 'utf8', timeout: 30_000 });
  return out.trim().split('\n');
}

describe('lazy JSON Schema engine', () => {
  for (const entry of ['./index.js', '../client/index.js', '../server/index.js']) {
    it(`importing ${entry} does not load ajv`, () => {
      const [line] = inChild(`await import(${JSON.stringify(ENTRY(entry))});\nconsole.log(String(ajvLoaded()));`);
      assert.equal(line, 'false');
    });
  }

  it('the first validation loads ajv and validates; later compiles are synchronous', () => {
    const lines = inChild(`const schema = await import(${JSON.stringify(ENTRY('./index.js'))});
console.log(String(ajvLoaded()));
const adapter = schema.toSchemaAdapter({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
const bad = await adapter.validate({ n: 'x' });
console.log(String(ajvLoaded()), String(bad.valid), bad.errors[0].path);
const ok = schema.defaultJsonSchemaValidator().compile({ type: 'string', format: 'email' });
console.log(JSON.stringify(ok('a@b.example')), JSON.stringify(ok('nope').valid));`);
    assert.deepEqual(lines, ['false', 'true false /n', '{"valid":true} false']);
  });

  it('loadJsonSchemaEngine() loads it ahead of time and is idempotent', () => {
    const lines = inChild(`const schema = await import(${JSON.stringify(ENTRY('./index.js'))});
await Promise.all([schema.loadJsonSchemaEngine(), schema.loadJsonSchemaEngine()]);
console.log(String(ajvLoaded()));
console.log(JSON.stringify(schema.defaultJsonSchemaValidator().compile({ type: 'integer' })(1.5).valid));`);
    assert.deepEqual(lines, ['true', 'false']);
  });

  it('without a synchronous loader: compile() says to load first, the first validate awaits the load', () => {
    const lines = inChild(`delete process.getBuiltinModule;
const schema = await import(${JSON.stringify(ENTRY('./index.js'))});
try { schema.defaultJsonSchemaValidator().compile({ type: 'integer' }); console.log('compiled'); } catch (e) { console.log(e.code); }
const adapter = schema.toSchemaAdapter({ type: 'integer' });
const first = adapter.validate('x');
console.log(String(first instanceof Promise), String((await first).valid));
console.log(String(adapter.validate(3) instanceof Promise), String(schema.defaultJsonSchemaValidator().compile({ type: 'integer' })(3).valid));`);
    assert.deepEqual(lines, ['engine_not_loaded', 'true false', 'false true']);
  });

  it('a createRequire that refuses the module URL (a bundled Worker on workerd) counts as no synchronous loader, not a crash', () => {
    const lines = inChild(`const real = process.getBuiltinModule.bind(process);
process.getBuiltinModule = (id) => id === 'module' ? { createRequire: () => { throw new TypeError('The argument must be a file URL object'); } } : real(id);
const schema = await import(${JSON.stringify(ENTRY('./index.js'))});
try { schema.defaultJsonSchemaValidator().compile({ type: 'integer' }); console.log('compiled'); } catch (e) { console.log(e.code); }
const adapter = schema.toSchemaAdapter({ type: 'integer' });
const first = adapter.validate('x');
console.log(String(first instanceof Promise), String((await first).valid));`);
    assert.deepEqual(lines, ['engine_not_loaded', 'true false']);
  });

  it('a runtime that forbids code generation (Workers) gets code_generation_forbidden naming the way out, not "invalid schema"', () => {
    const lines = inChild(`globalThis.Function = function () { throw new EvalError('Code generation from strings disallowed for this context'); };
const schema = await import(${JSON.stringify(ENTRY('./index.js'))});
try { schema.defaultJsonSchemaValidator().compile({ type: 'integer' }); console.log('compiled'); } catch (e) { console.log(e.code); console.log(String(/jsonSchemaValidator that interprets schemas/.test(e.message))); }`);
    assert.deepEqual(lines, ['code_generation_forbidden', 'true']);
  });
});
