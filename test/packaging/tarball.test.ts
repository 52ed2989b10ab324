/**
 * The package as users get it: `npm pack`, installed into a clean folder with only its runtime
 * dependencies (plus the optional peers an entry point names, and the consumer's own zod and
 * type packages), then:
 * - the file list holds the library, the CLI, declarations, the official schemas and the
 *   LICENSE, and nothing test-only (tests, fixtures, harnesses, benchmarks, build info, maps);
 * - what ships under dist/ is the whole library build, file for file (so the build emits
 *   nothing test-only and package.json needs no exclusions), with no source map and no
 *   reference to one;
 * - installing it runs no build (no install-time or `prepare` script);
 * - every entry point imports, and `mcpkit demo` answers `initialize` from the installed copy;
 * - a strict consumer project (`strict`, `exactOptionalPropertyTypes`,
 *   `noUncheckedIndexedAccess`, no `skipLibCheck`) compiles against every entry point on
 *   TypeScript 5.x and on the newest major, and the web-standard entry points compile without
 *   @types/node; in it, what tool handlers return is typed exactly (wrong shapes do not compile).
 * Installs come from the npm cache that `npm ci` filled (`--prefer-offline`).
 */

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DIST, REPO_ROOT } from '../helpers/repo.js';

const ROOT = REPO_ROOT;
// scripts/ is not compiled: load the rule from the checkout (typed from its .d.mts)
const { TEST_ONLY } = (await import(pathToFileURL(join(ROOT, 'scripts', 'package-rules.mjs')).href)) as typeof import('../../scripts/package-rules.mjs');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, { import: string; types: string }>;
  devDependencies: Record<string, string>;
};
const NPM_CLI = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

/** Everyday API use that strict settings used to reject (exact optional properties, interface-typed arguments, literal results of async handlers). */
const USAGE = `import { McpServer } from 'mcpkit/server';
import { Client } from 'mcpkit/client';
import { StreamableHttpClientTransport, createStreamableHttpHandler } from 'mcpkit/http';
import { StdioClientTransport } from 'mcpkit/stdio';
import { serveNode } from 'mcpkit/node';
import * as z from 'zod';

export async function usage(): Promise<void> {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool('forecast', { description: 'Forecast', inputSchema: z.object({ city: z.string() }) }, async ({ city }) => ({ content: [{ type: 'text', text: 'Sunny in ' + city }] }));
  const listening = await serveNode(createStreamableHttpHandler({ server }), { port: 0 });
  interface Args { city: string }
  const args: Args = { city: 'Oslo' };
  const client = new Client({ name: 'app', version: '1.0.0' }, { elicitation: { url: async () => 'accept', form: async () => ({ action: 'accept', content: {} }) } });
  await client.connect(new StreamableHttpClientTransport({ url: new URL('http://127.0.0.1:1/mcp') }));
  await client.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
  const result = await client.callTool({ name: 'forecast', arguments: args });
  console.log(result.content, listening);
}
`;

/**
 * What tool handlers return, typed exactly (each wrong shape is a compile error, so an unused
 * `@ts-expect-error` fails the build as much as a right shape refused).
 */
const RETURNS = `import { McpServer, toolError, type ToolReturn } from 'mcpkit/server';
import type { CallToolResult } from 'mcpkit';
import * as z from 'zod';

export function returns(server: McpServer, full: CallToolResult): void {
  server.registerTool('text', {}, () => 'hi');
  server.registerTool('content', {}, async () => ({ content: [{ type: 'text', text: 'hi' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }));
  server.registerTool('full', {}, () => full);
  server.registerTool('error', {}, () => toolError('failed'));
  server.registerTool('structured-only', {}, () => ({ structuredContent: { any: 1 } }));
  server.registerTool('zod-out', { outputSchema: z.object({ temp: z.number() }) }, async () => ({ structuredContent: { temp: 21 } }));
  server.registerTool('zod-out-error', { outputSchema: z.object({ temp: z.number() }) }, () => ({ content: [{ type: 'text', text: 'no sensor' }], isError: true }));
  server.registerTool('json-out', { outputSchema: { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] } }, () => ({ structuredContent: { temp: 3 } }));
  const value: ToolReturn = 'text';

  // @ts-expect-error a result needs "content" or "structuredContent"
  server.registerTool('bad-text', {}, () => ({ text: 'hi' }));
  // @ts-expect-error content is an array of content blocks
  server.registerTool('bad-content', {}, () => ({ content: 'hello' }));
  // @ts-expect-error "contents" is not a member of a tool result
  server.registerTool('bad-contents', {}, () => ({ contents: [{ type: 'text', text: 'x' }] }));
  // @ts-expect-error nor is "result"
  server.registerTool('bad-result', {}, async () => ({ result: 42 }));
  // @ts-expect-error a content block has a known type
  server.registerTool('bad-block', {}, () => ({ content: [{ type: 'txt', text: 'x' }] }));
  // @ts-expect-error structuredContent is typed from the zod output schema
  server.registerTool('bad-zod-out', { outputSchema: z.object({ temp: z.number() }) }, () => ({ structuredContent: { temp: 'warm' } }));
  // @ts-expect-error structuredContent is typed from the JSON Schema literal
  server.registerTool('bad-json-out', { outputSchema: { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'] } }, () => ({ structuredContent: {} }));
  // @ts-expect-error a tool with an output schema returns structuredContent, not text
  server.registerTool('bad-out-text', { outputSchema: z.object({ temp: z.number() }) }, () => 'warm');
  // @ts-expect-error nor content without isError: true
  server.registerTool('bad-out-content', { outputSchema: z.object({ temp: z.number() }) }, async () => ({ content: [{ type: 'text', text: 'warm' }] }));
  console.log(value);
}
`;

let work: string;
let consumer: string;
let files: string[];

function npm(args: string[], cwd: string): string {
  const run = spawnSync(process.execPath, [NPM_CLI, ...args], { cwd, encoding: 'utf8', timeout: 180_000 });
  assert.equal(run.status, 0, `npm ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

function dev(name: string): string {
  const version = manifest.devDependencies[name];
  assert.ok(version, `${name} is a dev dependency`);
  return `${name}@${version}`;
}

/** Every file under `dir`, as `/`-separated paths relative to `base`. */
function listFiles(dir: string, base: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path, base));
    else out.push(relative(base, path).split(sep).join('/'));
  }
  return out.sort();
}

/** npm lifecycle scripts that run when the package is installed (`prepare` for git and folder installs). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

function tsc(compiler: string, project: string): string {
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules', compiler, 'bin', 'tsc'), '-p', project], {
    cwd: consumer,
    encoding: 'utf8',
    timeout: 180_000,
  });
  return run.status === 0 ? '' : `${run.stdout}${run.stderr}` || `exit ${run.status}`;
}

describe('the packed package', { timeout: 600_000 }, () => {
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'mcpkit-pack-'));
    const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    files = packed[0]!.files.map((f) => f.path);
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const tarball = join(work, packed[0]!.filename);
    npm(
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        tarball,
        dev('zod'),
        dev('@types/node'),
        dev('jose'),
        dev('oauth4webapi'),
        dev('@types/better-sqlite3'),
      ],
      consumer,
    );
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('holds the library, the CLI, declarations, the schemas and the LICENSE, and nothing test-only', () => {
    const bad = files.filter((f) => TEST_ONLY.test(f));
    assert.deepEqual(bad, [], 'test-only files in the package');
    for (const required of [
      'LICENSE',
      'README.md',
      'CHANGELOG.md',
      'SECURITY.md',
      'package.json',
      'bin/mcpkit.js',
      'dist/cli/main.js',
      'spec/schema/2025-11-25/schema.json',
    ]) {
      assert.ok(files.includes(required), `${required} is missing`);
    }
    for (const [entry, target] of Object.entries(manifest.exports)) {
      for (const file of [target.import, target.types]) assert.ok(files.includes(file.replace(/^\.\//, '')), `${entry}: ${file} is missing`);
    }
  });

  it('ships the whole library build under dist/ and nothing else from it, with no source maps', () => {
    // the library build is the package: nothing in dist/ is left out, nothing added
    assert.deepEqual(files.filter((f) => f.startsWith('dist/')).sort(), listFiles(DIST, REPO_ROOT));
    const installed = join(consumer, 'node_modules', 'mcpkit');
    const maps = listFiles(join(installed, 'dist'), installed).filter(
      (f) => /\.(js|d\.ts)$/.test(f) && readFileSync(join(installed, f), 'utf8').includes('sourceMappingURL='),
    );
    assert.deepEqual(maps, [], 'shipped files that point at a source map the package does not hold');
  });

  it('runs no build when installed', () => {
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', 'mcpkit', 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    const scripts = INSTALL_SCRIPTS.filter((name) => installed.scripts?.[name] !== undefined);
    assert.deepEqual(scripts, [], 'lifecycle scripts that run on a consumer install (a consumer has no compiler)');
  });

  it('imports every entry point from the installed copy', () => {
    const script = Object.keys(manifest.exports)
      .filter((entry) => entry !== './tasks/sqlite' && entry !== './redis' && entry !== './otel')
      .map((entry) => `await import(${JSON.stringify(entry === '.' ? 'mcpkit' : `mcpkit/${entry.slice(2)}`)});`)
      .join('\n');
    writeFileSync(join(consumer, 'imports.mjs'), `${script}\nconsole.log('ok');\n`);
    const run = spawnSync(process.execPath, ['imports.mjs'], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.stdout.trim(), 'ok', run.stderr);
    // the SQLite store needs its optional peer; without it the import names the package
    const sqlite = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('mcpkit/tasks/sqlite')"], {
      cwd: consumer,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.notEqual(sqlite.status, 0);
    assert.match(sqlite.stderr, /better-sqlite3/);
    // the same for the Redis stores and ioredis
    const redis = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('mcpkit/redis')"], {
      cwd: consumer,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.notEqual(redis.status, 0);
    assert.match(redis.stderr, /ioredis/);
    // and for the OpenTelemetry instrumentation and @opentelemetry/api
    const otel = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('mcpkit/otel')"], {
      cwd: consumer,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.notEqual(otel.status, 0);
    assert.match(otel.stderr, /@opentelemetry\/api/);
  });

  it('runs `mcpkit demo` from the installed copy', async () => {
    const child = spawn(process.execPath, [join(consumer, 'node_modules', 'mcpkit', 'bin', 'mcpkit.js'), 'demo'], {
      cwd: consumer,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
      );
      const line = await new Promise<string>((resolveLine, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const end = out.indexOf('\n');
          if (end >= 0) resolveLine(out.slice(0, end));
        });
        child.once('exit', (code) => reject(new Error(`mcpkit demo exited (${code}) before answering`)));
      });
      const answer = JSON.parse(line) as { id: number; result: { protocolVersion: string; serverInfo: { name: string } } };
      assert.equal(answer.id, 1);
      assert.equal(answer.result.protocolVersion, '2025-11-25');
    } finally {
      child.kill('SIGTERM');
    }
  });

  describe('a strict consumer project', () => {
    before(() => {
      // mcpkit/redis ships no types of its own for ioredis: a consumer using it installs the peer
      npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', dev('ioredis')], consumer);
      // the same for mcpkit/otel and @opentelemetry/api
      npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', dev('@opentelemetry/api')], consumer);
      const entries = Object.keys(manifest.exports).map((entry) => (entry === '.' ? 'mcpkit' : `mcpkit/${entry.slice(2)}`));
      const compilerOptions = {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        noEmit: true,
      };
      mkdirSync(join(consumer, 'all'));
      mkdirSync(join(consumer, 'web'));
      writeFileSync(
        join(consumer, 'all', 'index.ts'),
        `${entries.map((e, i) => `import * as m${i} from '${e}';`).join('\n')}\nexport const all = [${entries.map((_, i) => `m${i}`).join(', ')}];\n`,
      );
      writeFileSync(join(consumer, 'all', 'usage.ts'), USAGE);
      writeFileSync(join(consumer, 'all', 'returns.ts'), RETURNS);
      writeFileSync(
        join(consumer, 'tsconfig.all.json'),
        JSON.stringify({ compilerOptions: { ...compilerOptions, lib: ['ES2023'], types: ['node'] }, include: ['all'] }),
      );
      const web = ['mcpkit', 'mcpkit/server', 'mcpkit/client', 'mcpkit/schema', 'mcpkit/http', 'mcpkit/http/server', 'mcpkit/http/client'];
      writeFileSync(
        join(consumer, 'web', 'index.ts'),
        `${web.map((e, i) => `import * as m${i} from '${e}';`).join('\n')}\nexport const web = [${web.map((_, i) => `m${i}`).join(', ')}];\n`,
      );
      writeFileSync(
        join(consumer, 'tsconfig.web.json'),
        JSON.stringify({ compilerOptions: { ...compilerOptions, lib: ['ES2023', 'DOM'], types: [] }, include: ['web'] }),
      );
    });

    for (const compiler of ['typescript', 'typescript-7']) {
      it(`compiles every entry point without skipLibCheck (${compiler})`, () => {
        assert.equal(tsc(compiler, 'tsconfig.all.json'), '');
      });
      it(`compiles the web-standard entry points without @types/node (${compiler})`, () => {
        assert.equal(tsc(compiler, 'tsconfig.web.json'), '');
      });
    }
  });
});
