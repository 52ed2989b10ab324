/**
 * `mcpkit types`: generated against live servers (the demo over stdio, server-everything
 * over stdio, the demo over HTTP) and against hostile tool definitions, then compiled by tsc
 * under strict consumer settings (`strict`, `exactOptionalPropertyTypes`,
 * `noUncheckedIndexedAccess`, no `skipLibCheck`) together with consumers that call tools
 * correctly and, under `// @ts-expect-error`, wrongly: the compile passes only if each wrong
 * call is rejected. The hostile file must compile too, and declare nothing a schema tried to
 * inject.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, type HttpChild, runCli, startHttpChild } from '../../../test/helpers/cli/cli-run.js';
import { REPO_ROOT } from '../../../test/helpers/repo.js';
import type { Tool } from '../../types.js';
import { generateTypes, propertyKey, typeBaseName } from '../typegen/generate.js';
import { commentText, SchemaRefusedError, sanitizeSchema } from '../typegen/sanitize-schema.js';

const EVERYTHING = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-types-'));
const children: HttpChild[] = [];
after(async () => {
  for (const child of children) await child.stop();
  if (process.env.MCPKIT_KEEP_TEST_DIR === undefined) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
});

/** Runs tsc on the consumer project in `dir`; resolves with its output ('' when it compiled). */
function tsc(): string {
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 300_000,
  });
  return `${run.stdout}${run.stderr}`.trim() + (run.status === 0 ? '' : `\n(tsc exit ${String(run.status)})`);
}

/** Tools with definitions a server could send to break the generated file. */
function hostileTools(): Tool[] {
  const inject = '*/ export const pwned = 1; /*';
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 10_000; i++) deep = { type: 'object', properties: { d: deep } };
  return [
    {
      name: 'comment_injection',
      description: `closes the comment ${inject}`,
      inputSchema: {
        type: 'object',
        description: inject,
        properties: {
          [`key${inject}`]: { type: 'string', description: inject, enum: [inject, 'b'] },
          ['__proto__']: { type: 'number' },
          constructor: { type: 'boolean' },
          'has space': { type: 'string' },
        },
        required: ['__proto__'],
        $defs: { [`def${inject}`]: { type: 'object', properties: { v: { type: 'string' } }, description: inject } },
        additionalProperties: false,
      },
    } as unknown as Tool,
    {
      name: 'raw_typescript',
      inputSchema: {
        type: 'object',
        properties: { x: { tsType: 'string; export const injected = 1; type Z =', type: 'string' } },
        tsType: '{}; export const injected2 = 1',
      },
    } as unknown as Tool,
    {
      name: 'external_refs',
      inputSchema: {
        type: 'object',
        properties: { a: { $ref: 'file:///etc/passwd' }, b: { $ref: 'http://127.0.0.1:9/schema.json' }, c: { $ref: '#/nowhere' } },
      },
    },
    {
      name: 'ref_loops',
      inputSchema: {
        type: 'object',
        properties: { loop: { $ref: '#/$defs/a' }, tree: { $ref: '#/$defs/node' } },
        $defs: {
          a: { $ref: '#/$defs/b' },
          b: { $ref: '#/$defs/a' },
          node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['children'] },
        },
        required: ['tree'],
      },
    },
    { name: 'too_deep', inputSchema: deep },
    {
      name: 'too_big',
      description: 'x'.repeat(10),
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string', description: 'padding' }])),
      },
    },
    { name: 'not a */ name', inputSchema: { type: 'object', properties: { ok: { type: 'string' } }, required: ['ok'] } },
    { name: '__proto__', inputSchema: { type: 'object', properties: { p: { type: 'integer' } }, required: ['p'] } },
    { name: 'get-sum', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } },
    { name: 'get_sum', inputSchema: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] } },
    { name: '9lives', inputSchema: {} as Tool['inputSchema'] },
  ];
}

describe('mcpkit types', () => {
  let demoStdio = '';
  let warnings: string[] = [];

  before(async () => {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(REPO_ROOT, join(dir, 'node_modules', 'mcpkit'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
      noEmit: true,
      lib: ['ES2023'],
      types: ['node'],
      typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));

    const demo = await runCli(['types', '-o', join(dir, 'demo-tools.ts'), '--', process.execPath, BIN, 'demo'], { timeoutMs: 60_000 });
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stderr, /wrote \d+ tools to .*demo-tools\.ts/);
    demoStdio = readFileSync(join(dir, 'demo-tools.ts'), 'utf8');

    const everything = await runCli(['types', '-o', join(dir, 'everything-tools.ts'), '--', process.execPath, EVERYTHING, 'stdio'], { timeoutMs: 60_000 });
    assert.equal(everything.code, 0, everything.stderr);

    const http = await startHttpChild([BIN, 'demo', '--http', '--port', '0']);
    children.push(http);
    const overHttp = await runCli(['types', http.url, '--output', join(dir, 'demo-http-tools.ts')], { timeoutMs: 60_000 });
    assert.equal(overHttp.code, 0, overHttp.stderr);

    warnings = [];
    writeFileSync(
      join(dir, 'hostile-tools.ts'),
      await generateTypes(hostileTools(), { server: { name: 'evil */ export const pwnedHeader = 1; /*' }, warn: (m) => warnings.push(m) }),
    );

    writeFileSync(
      join(dir, 'consumer.ts'),
      `import type { Client } from 'mcpkit/client';
import { typedTools as demoTools, type AddOutput } from './demo-tools.js';
import { typedTools as httpDemoTools } from './demo-http-tools.js';
import { typedTools as everythingTools } from './everything-tools.js';
import { typedTools as hostileTools, type RefLoopsInput } from './hostile-tools.js';

declare const client: Client;
const demo = demoTools(client);
const everything = everythingTools(client);
const hostile = hostileTools(client);

export async function correct(): Promise<number> {
  await demo.echo({ message: 'hello' });
  await httpDemoTools(client).echo({ message: 'over http' });
  const sum = await demo.add({ a: 1, b: 2 });
  const out: AddOutput | undefined = sum.structuredContent;
  await everything.echo({ message: 'hi' });
  await everything['get-sum']({ a: 1, b: 2 });
  await hostile['not a */ name']({ ok: 'yes' });
  await hostile['__proto__']({ p: 1 });
  await hostile['get-sum']({ a: 1 });
  await hostile.get_sum({ b: 'x' });
  await hostile['9lives']({});
  const tree: RefLoopsInput = { tree: { children: [{ children: [] }] } };
  await hostile.ref_loops(tree);
  await hostile.too_deep({ anything: 1 });
  await hostile.comment_injection({ ["__proto__"]: 1, constructor: true });
  return out?.sum ?? 0;
}

export async function wrong(): Promise<void> {
  // @ts-expect-error: message must be a string
  await demo.echo({ message: 42 });
  // @ts-expect-error: message is required
  await demo.echo({});
  // @ts-expect-error: a misspelt argument
  await demo.echo({ message: 'x', mesage: 'typo' });
  // @ts-expect-error: no such tool
  await demo.no_such_tool({});
  // @ts-expect-error: a is a number
  await everything['get-sum']({ a: 'one', b: 2 });
  // @ts-expect-error: structuredContent of add has no field named nope
  (await demo.add({ a: 1, b: 2 })).structuredContent?.nope;
  // @ts-expect-error: get-sum and get_sum keep their own types
  await hostile.get_sum({ a: 1 });
  // @ts-expect-error: the recursive type is checked all the way down
  await hostile.ref_loops({ tree: { children: [{ children: [1] }] } });
}
`,
    );
    writeFileSync(
      join(dir, 'injected.ts'),
      `// every one of these must fail to import: the generated file declares nothing a schema wrote
// @ts-expect-error
import { pwned } from './hostile-tools.js';
// @ts-expect-error
import { injected } from './hostile-tools.js';
// @ts-expect-error
import { injected2 } from './hostile-tools.js';
// @ts-expect-error
import { pwnedHeader } from './hostile-tools.js';
export const all = [pwned, injected, injected2, pwnedHeader];
`,
    );
  });

  it('writes an input type per tool, result types from output schemas, and the typed factory', () => {
    assert.match(demoStdio, /^export interface EchoInput \{\n {2}message: string;\n\}/m);
    assert.match(demoStdio, /export interface AddOutput \{/);
    assert.match(demoStdio, /add: \(args: AddInput, options\?: RequestOptions\): Promise<ToolResult<AddOutput>>/);
    assert.match(demoStdio, /echo: \(args: EchoInput, options\?: RequestOptions\): Promise<CallToolResult>/);
    assert.match(demoStdio, /import type \{ Client \} from "mcpkit\/client";/);
    assert.match(demoStdio, /Server: mcpkit-demo /);
  });

  it('the generated files compile under strict settings, and every wrong call is rejected', () => {
    assert.equal(tsc(), '');
  });

  it('the typed wrapper calls the live server: compiled to JavaScript and run against the demo', () => {
    writeFileSync(
      join(dir, 'run-demo.ts'),
      `import { Client } from 'mcpkit/client';
import { StdioClientTransport } from 'mcpkit/stdio';
import { typedTools } from './demo-tools.js';

const client = new Client({ name: 'typed', version: '1' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(BIN)}, 'demo'] }));
const tools = typedTools(client);
const sum = await tools.add({ a: 2, b: 3 });
const echo = await tools.echo({ message: 'typed hello' });
console.log(JSON.stringify({ sum: sum.structuredContent?.sum, echo: echo.content }));
await client.close();
`,
    );
    writeFileSync(
      join(dir, 'tsconfig.run.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { noEmit: false, outDir: 'out', rootDir: '.' },
        include: ['run-demo.ts', 'demo-tools.ts'],
      }),
    );
    const build = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.run.json')], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 300_000,
    });
    assert.equal(build.status, 0, `${build.stdout}${build.stderr}`);
    const run = spawnSync(process.execPath, [join(dir, 'out', 'run-demo.js')], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const printed = JSON.parse(run.stdout.trim().split('\n').pop()!) as { sum: number; echo: Array<{ type: string; text?: string }> };
    assert.equal(printed.sum, 5);
    assert.match(printed.echo[0]?.text ?? '', /typed hello/);
  });

  it('the hostile definitions gave open types and warnings, never a fetch or raw schema text in code', () => {
    const text = readFileSync(join(dir, 'hostile-tools.ts'), 'utf8');
    assert.doesNotMatch(text, /tsType|injected = 1;\s*type Z|root:x:0:0/);
    // outside string literals, every */ a peer wrote is neutralised: only the generator's own comments close
    const code = text.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
    assert.equal(code.includes('*/ export const'), false);
    assert.match(text, /\*\\\/ export const pwned = 1; \/\*/, 'the description is kept, escaped');
    const joined = warnings.join('\n');
    assert.match(joined, /tool "too_deep", input: the schema nests deeper than 32 levels; typed as an open object/);
    assert.match(joined, /tool "too_big", input: the schema is \d+ characters of JSON; the most is 262144; typed as an open object/);
    assert.match(joined, /a \$ref to "file:\/\/\/etc\/passwd" was not followed/);
    assert.match(joined, /a \$ref to "http:\/\/127\.0\.0\.1:9\/schema\.json" was not followed/);
    assert.match(joined, /the \$ref "#\/nowhere" points at nothing/);
    assert.match(joined, /is a loop of bare references/);
  });

  it('refuses a server with more tools than --max-tools, and an unknown operand, with exit code 2', async () => {
    const many = await runCli(['types', '--max-tools', '3', '--', process.execPath, BIN, 'demo'], { timeoutMs: 60_000 });
    assert.equal(many.code, 2, many.stderr);
    assert.match(many.stderr, /the server lists \d+ tools; the most written is 3 \(raise --max-tools\)/);
    const extra = await runCli(['types', 'http://127.0.0.1:9/mcp', 'extra'], { timeoutMs: 30_000 });
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /unexpected argument "extra"/);
  });

  it('prints to stdout without -o, and shows its help', async () => {
    const out = await runCli(['types', '--', process.execPath, BIN, 'demo'], { timeoutMs: 60_000 });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /export function typedTools\(client: Client\)/);
    const help = await runCli(['types', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: mcpkit types TARGET \[-o FILE\]/);
    const top = await runCli(['--help']);
    assert.match(top.stdout, /\n {2}types {6}write TypeScript types/);
    // completion knows the command, its options, and that -o takes a file
    const bash = (await runCli(['completion', 'bash'])).stdout;
    const arm = bash.slice(bash.indexOf('\n    types)'), bash.indexOf(';;', bash.indexOf('\n    types)')));
    assert.match(arm, /\|--output\|-o\) COMPREPLY=\( \$\(compgen -f/, 'after -o or --output, files complete');
    assert.match(arm, /valued='[^']*--output -o /, '-o takes the next word');
    assert.match(arm, /--client-module/);
  });
});

describe('the type generator pieces', () => {
  it('commentText cannot close a comment and drops control and separator characters', () => {
    assert.equal(commentText('a */ b', 100), 'a *\\/ b');
    assert.equal(commentText('a**/', 100), 'a**\\/');
    assert.equal(commentText('x\u2028y\u0007z\r\nw', 100), 'x y z\nw');
    assert.equal(commentText('abcdef', 3), 'abc…');
    // cutting cannot create a closer either: the cut happens before the escape
    assert.equal(commentText('ab*/', 3).includes('*/'), false);
  });

  it('names: PascalCase type bases and quoted keys for non-identifiers and __proto__', () => {
    assert.equal(typeBaseName('create_issue'), 'CreateIssue');
    assert.equal(typeBaseName('API-post-search'), 'APIPostSearch');
    assert.equal(typeBaseName('9lives'), 'T9Lives');
    assert.equal(typeBaseName('get2things'), 'Get2Things');
    assert.equal(typeBaseName('*/'), 'Tool');
    assert.equal(propertyKey('echo'), 'echo');
    assert.equal(propertyKey('get-sum'), '["get-sum"]');
    assert.equal(propertyKey('__proto__'), '["__proto__"]');
    assert.equal(propertyKey('a"]; evil(); ["'), '["a\\"]; evil(); [\\""]');
  });

  it('sanitizeSchema keeps the type keywords, drops the generator keywords, renames definitions', () => {
    const { schema, notes } = sanitizeSchema({
      type: 'object',
      title: 'Named',
      $id: 'x',
      tsType: 'any',
      properties: { a: { type: 'string', format: 'email', default: '*/' }, b: { const: 3 }, c: { prefixItems: [{ type: 'string' }], items: false } },
      $defs: { 'evil */ key': { type: 'string' } },
      patternProperties: { '^x*/': { type: 'number' } },
      required: ['a', 7, 'a'],
    });
    assert.deepEqual(schema, {
      type: 'object',
      properties: { a: { type: 'string' }, b: { enum: [3] }, c: { items: [{ type: 'string' }], additionalItems: false } },
      required: ['a'],
      additionalProperties: { type: 'number' },
      $defs: { Def0: { type: 'string' } },
    });
    assert.deepEqual(notes, []);
    assert.throws(() => sanitizeSchema('nope'), SchemaRefusedError);
    assert.throws(() => sanitizeSchema({ anyOf: Array.from({ length: 6000 }, () => ({})) }), /more than 5000 subschemas/);
  });
});
