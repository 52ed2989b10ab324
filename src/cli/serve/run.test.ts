// `mcpkit run FILE`: a module exporting an McpServer (default, `server`, `createServer`, a
// factory), served over stdio and over Streamable HTTP, driven by the real mcpkit client.
// Expected results per the MCP spec's tools/call (2025-06-18 "Tools": a CallToolResult with
// content blocks) and lifecycle (initialize first).

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MCPKIT_BIN, runCli, tempDir } from '../../../test/helpers/cli/install.js';
import { firstText, SERVER_IMPORT, serverProject, startCli } from '../../../test/helpers/cli/serve.js';
import { Client } from '../../client/index.js';
import { StreamableHttpClientTransport } from '../../http/index.js';
import { StdioClientTransport } from '../../stdio/index.js';

const info = { name: 'run-test', version: '1.0.0' };

test('run FILE.ts over stdio: TypeScript with a ./x.js import of a .ts file, no build step', async () => {
  const { dir, server } = serverProject('hello from ts');
  const client = new Client(info);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCPKIT_BIN, 'run', server], cwd: dir }));
  try {
    assert.equal(firstText(await client.callTool({ name: 'hello' })), 'hello from ts');
  } finally {
    await client.close();
  }
});

test('run FILE --http --port 0: prints LISTENING <url> first on stdout; a client calls the tool', async () => {
  const { dir, server } = serverProject('hello over http');
  const cli = startCli(['run', server, '--http', '--port', '0'], dir);
  try {
    const [, url] = await cli.waitForStdout(/^LISTENING (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/);
    const client = new Client(info);
    await client.connect(new StreamableHttpClientTransport({ url: url! }));
    assert.equal(firstText(await client.callTool({ name: 'hello' })), 'hello over http');
    await client.close();
  } finally {
    assert.equal(await cli.stop(), 0);
  }
});

/** A .mjs module (no TypeScript) whose body is `body`. */
function jsModule(body: string): { dir: string; file: string } {
  const dir = tempDir('mcpkit-run-');
  const file = join(dir, 'mod.mjs');
  writeFileSync(
    file,
    `import { McpServer } from ${JSON.stringify(SERVER_IMPORT)};\nconst make = (text) => { const s = new McpServer({ name: 'm', version: '1' }); s.registerTool('hello', { inputSchema: { type: 'object' } }, async () => ({ content: [{ type: 'text', text }] })); return s; };\n${body}\n`,
  );
  return { dir, file };
}

for (const [label, body, extra, expected] of [
  ['export const server', `export const server = make('named server');`, [], 'named server'],
  ['export function createServer (async factory)', `export async function createServer() { return make('from factory'); }`, [], 'from factory'],
  ['default factory', `export default () => make('default factory');`, [], 'default factory'],
  ['default wins over server', `export default make('default'); export const server = make('server');`, [], 'default'],
  ['--export NAME', `export default make('default'); export const weather = make('weather');`, ['--export', 'weather'], 'weather'],
] as const) {
  test(`export lookup: ${label}`, async () => {
    const { dir, file } = jsModule(body);
    const client = new Client(info);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCPKIT_BIN, 'run', file, ...extra], cwd: dir }));
    try {
      assert.equal(firstText(await client.callTool({ name: 'hello' })), expected);
    } finally {
      await client.close();
    }
  });
}

test('a module that cannot be served: a clear error, exit 1; wrong arguments exit 2', async () => {
  const cases: [string, RegExp][] = [
    ['export const nothing = 1;', /exports no server: export an McpServer .* as the default export, or as "server" or "createServer"/],
    ['export default { connect() {} };', /the export "default" of .* is not an McpServer/],
    ['export default () => 42;', /the function returned something else/],
    ['export default () => { throw new Error("factory boom"); };', /the factory "default" of .* failed: Error: factory boom/],
    ['throw new Error("top-level boom");', /cannot load .*: Error: top-level boom/],
    ['export default (', /cannot load [\s\S]*mod\.mjs:\d+\n[\s\S]*SyntaxError/],
  ];
  for (const [body, pattern] of cases) {
    const { dir, file } = jsModule(body);
    const result = await runCli(['run', file], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, pattern);
    assert.equal(result.stdout, '', 'nothing on the protocol stream');
    assert.doesNotMatch(result.stderr, /node_modules|node:internal|bin\/mcpkit\.js/, "only frames of the user's own files");
  }
  const sdk = jsModule(
    `import { McpServer as Sdk } from ${JSON.stringify(import.meta.resolve('@modelcontextprotocol/sdk/server/mcp.js'))};\nexport default new Sdk({ name: 'sdk', version: '1' });`,
  );
  const sdkRun = await runCli(['run', sdk.file], { cwd: sdk.dir });
  assert.equal(sdkRun.code, 1);
  assert.match(sdkRun.stderr, /is a server of the official SDK/);
  const { dir, file } = jsModule('export const server = make("x");');
  assert.match((await runCli(['run', file, '--export', 'nope'], { cwd: dir })).stderr, /has no export named "nope"/);
  for (const args of [[], [file, file], [file, '--port', '80'], [file, '--http', '--port', '70000'], [file, '--bogus']]) {
    const result = await runCli(['run', ...args], { cwd: dir });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
  }
  const help = await runCli(['run', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Examples:\n {2}mcpkit run/);
});

test('without tsx (and without Node\'s own type stripping) a .ts file gets "install tsx to run .ts files"', {
  skip: (process.features as unknown as Record<string, unknown>).typescript ? 'this Node strips types itself' : false,
}, async () => {
  const { dir, server } = serverProject('x');
  // A resolve hook that makes the tsx package unfindable, as when it is not installed.
  const hook =
    'export async function resolve(s, c, next) { if (s === "tsx" || s.startsWith("tsx/")) { const e = new Error("Cannot find package tsx"); e.code = "ERR_MODULE_NOT_FOUND"; throw e; } return next(s, c); }';
  const preload = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const { spawnSync } = await import('node:child_process');
  const result = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, MCPKIT_BIN, 'run', server], {
    cwd: dir,
    encoding: 'utf8',
    input: '',
  });
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, /install tsx to run \.ts files \(npm install --save-dev tsx\)/);
  assert.equal(result.stdout, '');
});

test('dev --help has examples', async () => {
  const help = await runCli(['dev', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Examples:\n {2}mcpkit dev/);
  assert.equal((await runCli(['dev', '/nonexistent/file.ts'])).code, 1);
});
