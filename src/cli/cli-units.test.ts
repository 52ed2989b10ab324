/**
 * Unit tests of the CLI's pure pieces: tool argument conversion by schema, the target and
 * option parsing, the terminal escaping, the field-by-field form (with a scripted asker),
 * the progress display without a terminal, and the error → exit code mapping.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import type { Asker } from './ask.js';
import { askForm } from './elicit-form.js';
import { exitCodeFor } from './errors.js';
import { parseCommandLine } from './options.js';
import { ProgressView } from './progress.js';
import { resolveTarget } from './target.js';
import { clean, table } from './terminal.js';
import { buildPromptArguments, buildToolArguments, convertValue } from './tool-args.js';
import { UsageError } from './usage-error.js';

const schema = {
  type: 'object',
  properties: {
    n: { type: 'integer' },
    x: { type: 'number' },
    flag: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'integer' } },
    obj: { type: 'object' },
    s: { type: 'string' },
    any: {},
    maybe: { type: ['integer', 'null'] },
  },
  required: ['n'],
};

test('key=value pairs are converted by the property types', async () => {
  const args = await buildToolArguments(
    schema,
    ['n=3', 'x=-1.5e2', 'flag=false', 'tags=1,2', 'tags=[3]', 'obj={"a":1}', 's=007', 'any=[1]', 'maybe=null'],
    undefined,
  );
  assert.deepEqual(args, { n: 3, x: -150, flag: false, tags: [1, 2, 3], obj: { a: 1 }, s: '007', any: [1], maybe: null });
  assert.deepEqual(
    await buildToolArguments(schema, ['n=1', 's=a=b'], '{"s":"old","x":2}'),
    { s: 'a=b', x: 2, n: 1 },
    'pairs override --args; only the first = splits',
  );
  assert.equal(convertValue('k', 'not json', {}), 'not json');
});

test('an array of objects is taken whole, with or without its brackets; scalar arrays split at commas', () => {
  const edits = { type: 'array', items: { type: 'object', properties: { oldText: { type: 'string' } } } };
  const value = [
    { oldText: 'a, b', newText: 'c' },
    { oldText: 'd', newText: 'e, f' },
  ];
  assert.deepEqual(convertValue('edits', JSON.stringify(value), edits), value);
  assert.deepEqual(convertValue('edits', JSON.stringify(value).slice(1, -1), edits), value);
  assert.deepEqual(convertValue('edits', ' [{"x":1}]', { type: 'array' }), [{ x: 1 }]);
  assert.deepEqual(convertValue('names', 'a,b', { type: 'array', items: { type: 'string' } }), ['a', 'b']);
  assert.throws(() => convertValue('edits', '{"oldText":', edits), /argument edits: not valid JSON/);
});

test('wrong arguments are usage errors naming the argument', async () => {
  await assert.rejects(
    buildToolArguments(schema, ['n=1.5'], undefined),
    (e: Error) => e instanceof UsageError && /argument n: "1.5" is not an integer/.test(e.message),
  );
  await assert.rejects(buildToolArguments(schema, ['flag=yes', 'n=1'], undefined), /argument flag: "yes" is not a boolean/);
  await assert.rejects(
    buildToolArguments(schema, ['x=1'], undefined),
    /missing required argument: n=<integer> \(mcpkit call TARGET TOOL --help lists the parameters\)/,
  );
  await assert.rejects(
    buildToolArguments({ ...schema, required: ['n', 'x', 's'] }, ['x=1'], undefined, 'calc'),
    /missing required arguments: n=<integer> s=<string> \(mcpkit call TARGET calc --help/,
  );
  await assert.rejects(
    buildToolArguments({ ...schema, properties: { ...schema.properties, n: { type: 'integer', minimum: 5 } } }, ['n=1'], undefined),
    /input schema/,
  );
  await assert.rejects(buildToolArguments(schema, ['novalue'], undefined), /key=value/);
  await assert.rejects(buildToolArguments(schema, ['n=1', 'n=2'], undefined), /given twice/);
  await assert.rejects(buildToolArguments(schema, [], '[1]'), /must be a JSON object/);
  await assert.rejects(buildToolArguments(schema, [], '{'), /not valid JSON/);
  await assert.rejects(buildToolArguments(schema, [], 'x'.repeat(1024 * 1024 + 1)), /longer than/);
});

test('__proto__ is an ordinary argument name', async () => {
  const args = await buildToolArguments({ type: 'object' }, ['__proto__=1'], undefined);
  assert.equal(Object.getPrototypeOf(args), Object.prototype);
  assert.deepEqual(Object.keys(args), ['__proto__']);
  assert.deepEqual(Object.keys(buildPromptArguments(undefined, ['__proto__=x'])), ['__proto__']);
});

test('targets: URL, -- command, config names; everything after -- is untouched', async () => {
  const url = resolveTarget(parseCommandLine(['https://example.com/mcp', 'tool', 'a=1', '--header', 'X-Key: v']));
  assert.deepEqual(url.target, {
    kind: 'http',
    url: 'https://example.com/mcp',
    headers: { 'X-Key': 'v' },
    transport: 'auto',
    label: 'https://example.com/mcp',
  });
  assert.deepEqual(url.operands, ['tool', 'a=1']);
  const stdio = resolveTarget(parseCommandLine(['tool', '--env', 'A=1', '--', 'srv', '--json', '$(rm -rf /)', '--']));
  assert.deepEqual(stdio.target, { kind: 'stdio', command: 'srv', args: ['--json', '$(rm -rf /)', '--'], env: { A: '1' }, label: 'srv' });
  assert.deepEqual(stdio.operands, ['tool']);
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-target-'));
  try {
    const file = join(dir, 'c.json');
    await writeFile(
      file,
      JSON.stringify({ servers: { a: { command: 'x', args: ['y'], env: { K: 'v' } }, b: { url: 'http://127.0.0.1:1/mcp', type: 'sse' }, bad: { args: [] } } }),
    );
    assert.deepEqual(resolveTarget(parseCommandLine(['a', '--config', file, '--env', 'L=w'])).target, {
      kind: 'stdio',
      command: 'x',
      args: ['y'],
      env: { K: 'v', L: 'w' },
      label: 'a',
    });
    assert.equal((resolveTarget(parseCommandLine(['b', '--config', file])).target as { transport: string }).transport, 'sse');
    assert.throws(() => resolveTarget(parseCommandLine(['bad', '--config', file])), /neither a "command" nor a "url"/);
    assert.throws(() => resolveTarget(parseCommandLine(['toString', '--config', file])), /no server named "toString"/);
    await writeFile(file, '{');
    assert.throws(() => resolveTarget(parseCommandLine(['a', '--config', file])), /not valid JSON/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.throws(() => resolveTarget(parseCommandLine([])), UsageError);
  assert.throws(() => resolveTarget(parseCommandLine(['--'])), /nothing after --/);
  assert.throws(() => parseCommandLine(['--bogus']), UsageError);
  assert.throws(() => resolveTarget(parseCommandLine(['https://x/mcp', '--header', 'no colon'])), /Name: value/);
});

test('clean shows control characters instead of sending them to the terminal', () => {
  assert.equal(clean('a\u001b[31mb\rc\u0007\u009bd\te\nf'), 'a\\x1b[31mb\\x0dc\\x07\\x9bd\te\nf');
  assert.equal(clean('a\tb\nc', true), 'a b c');
  assert.equal(table(['A', 'B'], [['x', 'long description here']], 12), 'A  B\nx  long des…\n');
});

/** An asker that answers from a script and records what was shown. */
function scripted(answers: string[]): Asker & { shown: string[] } {
  const shown: string[] = [];
  return {
    shown,
    ask: async (q) => {
      shown.push(q);
      const a = answers.shift();
      if (a === undefined) throw new Error(`no scripted answer for ${q}`);
      return a;
    },
    say: (t) => void shown.push(t),
    close: () => {},
  };
}

test('a form is asked field by field: defaults kept on Enter, choices by number, bad answers re-asked', async () => {
  const asker = scripted(['', 'x', '7', '2', '1,3', 'no', '']);
  const result = await askForm(
    {
      message: 'Tell us',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'Ada' },
          age: { type: 'integer', minimum: 0 },
          color: {
            type: 'string',
            oneOf: [
              { const: 'r', title: 'Red' },
              { const: 'g', title: 'Green' },
            ],
          },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
          ok: { type: 'boolean', default: true },
        },
        required: ['age'],
      } as never,
    },
    asker,
  );
  assert.deepEqual(result, { action: 'accept', content: { age: 7, color: 'g', tags: ['a', 'c'], ok: false } });
  assert.ok(asker.shown.includes('name (string) [Ada]: '));
  assert.ok(asker.shown.includes('  give a whole number'));
  assert.ok(asker.shown.includes('  2) Green (g)'));
  assert.deepEqual(
    await askForm({ message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } as never }, scripted(['!decline'])),
    { action: 'decline' },
  );
  assert.deepEqual(
    await askForm({ message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } as never }, scripted(['x', 'n'])),
    { action: 'decline' },
    '"n" at the end declines',
  );
  const stubborn = scripted(Array.from({ length: 20 }, () => 'x'));
  assert.deepEqual(
    await askForm({ message: 'm', requestedSchema: { type: 'object', properties: { n: { type: 'number' } } } as never }, stubborn),
    { action: 'cancel' },
    'bounded re-asking',
  );
});

test('progress without a terminal: one plain line per change', () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString('utf8')));
  const view = new ProgressView(out, false);
  view.progress(1, 4, 'one');
  view.progress(1, 4, 'one');
  view.progress(2.5, undefined, undefined);
  view.status('task t: working');
  view.status('task t: working');
  assert.equal(text, 'progress 1/4 one\nprogress 2.50\ntask t: working\n');
});

test('errors map to the documented exit codes', () => {
  assert.equal(exitCodeFor(new UsageError('x')), 2);
  assert.equal(exitCodeFor(new McpError(-32602, 'bad')), 3);
  assert.equal(exitCodeFor(new LocalError('invalid_result', 'x')), 3);
  assert.equal(exitCodeFor(new LocalError('connection_closed', 'x')), 4);
  assert.equal(exitCodeFor(new LocalError('timeout', 'x')), 4);
  assert.equal(exitCodeFor(new LocalError('cancelled', 'x')), 130);
  assert.equal(exitCodeFor(new TypeError('fetch failed')), 4);
});
