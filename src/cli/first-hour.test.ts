/**
 * The `mcpkit` command in a person's first hour (issue 38), end to end against real servers
 * (the demo over stdio, the official filesystem server, and a stdio fixture server built
 * with mcpkit), without a terminal; the screen-level checks are in first-hour-pty.test.ts.
 *
 * - task-required tools (`execution.taskSupport: "required"`) run as tasks, in 2025-11-25
 *   and in 2026-07-28, with their status shown;
 * - a stdio server's stderr is cleaned (no escape sequence reaches the terminal) and `-q`
 *   hides it;
 * - tool parameters: `list` shows them, `call TARGET TOOL --help` tabulates them, every
 *   missing argument is named, an array of objects is taken whole;
 * - URL elicitation: a -32042 error shows its page; an http:// page is declined with the
 *   reason (spec 2025-11-25, URL elicitation: only HTTPS URLs);
 * - `run`/`dev`: syntax errors keep file:line and the caret; README's self-connecting server
 *   is served; a CommonJS load of an ESM-only import says what to change; `dev --http`
 *   prints no LISTENING while nothing loads; `require('mcpkit')` explains itself;
 * - shell completion scripts, run in bash and fish (zsh: in the PTY file).
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MCPKIT_BIN, runCli, tempDir } from '../../test/helpers/cli/install.js';
import { firstText, startCli } from '../../test/helpers/cli/serve.js';
import { REPO_ROOT } from '../../test/helpers/repo.js';
import { Client } from '../client/index.js';
import { StdioClientTransport } from '../stdio/index.js';

const DEMO = ['--', process.execPath, MCPKIT_BIN, 'demo'];
const FIXTURE = fileURLToPath(new URL('../../test/helpers/cli/first-hour-server.js', import.meta.url));
const FIXTURE_CMD = ['--', process.execPath, FIXTURE];
const FILESYSTEM_SERVER = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

for (const protocol of ['2025-11-25', '2026-07-28']) {
  test(`a task-required tool runs as a task by itself (${protocol}), with its status shown`, async () => {
    const r = await runCli(['call', 'failing_job', '--protocol', protocol, ...DEMO]);
    // the tool always ends with a tool error: exit 1 with its text, not -32601 / -32021
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, 'the job failed (as it always does)\n');
    assert.match(r.stderr, /failing_job runs only as a task \(execution\.taskSupport "required"\), so it runs as one/);
    assert.match(r.stderr, /^task \S+: working$/m);
    // a tool error is a failed task in 2025-11-25, a completed one in 2026-07-28 (failed is for JSON-RPC errors)
    assert.match(r.stderr, protocol === '2025-11-25' ? /^task \S+: failed - the job failed/m : /^task \S+: completed$/m);
    assert.doesNotMatch(r.stderr, /-32601|-32021/);
  });
}

test("a stdio server's stderr is cleaned of escape sequences; -q hides it", async () => {
  const shown = await runCli(['list', 'tools', ...FIXTURE_CMD]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.ok(shown.stderr.includes('\\x1b]0;pwned\\x07first-hour fixture \\x1b[31mstarting\\x1b[0m'), shown.stderr);
  assert.doesNotMatch(shown.stderr, /[\u001b\u0007]/, 'no raw ESC or BEL reaches the terminal');
  const quiet = await runCli(['list', 'tools', '-q', ...FIXTURE_CMD]);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.doesNotMatch(quiet.stderr, /first-hour fixture/);
  assert.match(quiet.stdout, /open_page/);
});

test("list shows each tool's parameters; call TARGET TOOL --help tabulates them", async () => {
  const list = await runCli(['list', 'tools', ...DEMO]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^NAME +PARAMETERS +DESCRIPTION$/m);
  assert.match(list.stdout, /^add +a b +Adds a and b/m);
  assert.match(list.stdout, /^long_running_job +ms\? steps\? confirm\? fail\? +Works for/m);
  const help = await runCli(['call', 'long_running_job', '--help', ...DEMO]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Tool long_running_job - Long-running job$/m);
  assert.match(help.stdout, /^NAME +TYPE +REQUIRED +DEFAULT +DESCRIPTION$/m);
  assert.match(help.stdout, /^ms +integer +no +How long to work, in milliseconds/m);
  assert.match(help.stdout, /^confirm +boolean +no +Ask for confirmation half way/m);
  const add = await runCli(['call', 'add', '--help', ...DEMO]);
  assert.match(add.stdout, /^a +number +yes/m);
  assert.match(add.stdout, /^Call it: mcpkit call add a=1 b=1 -- /m);
  // without a tool, --help is the command's own help (no connection)
  const own = await runCli(['call', '--help']);
  assert.match(own.stdout, /^Usage: mcpkit call TARGET TOOL/m);
});

test('call names every missing argument at once', async () => {
  const r = await runCli(['call', 'add', ...DEMO]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /missing required arguments: a=<number> b=<number> \(mcpkit call TARGET add --help lists the parameters\)/);
});

test('an array of objects is parsed whole (server-filesystem edit_file), with or without brackets', async () => {
  const dir = tempDir('mcpkit-fs-');
  const file = join(dir, 'a.txt');
  writeFileSync(file, 'hello world\nsecond line\n');
  const fs = ['--', process.execPath, FILESYSTEM_SERVER, dir];
  const edits = '[{"oldText":"hello world","newText":"bye, all"},{"oldText":"second line","newText":"2nd, line"}]';
  const r = await runCli(['call', 'edit_file', `path=${file}`, `edits=${edits}`, '-q', ...fs]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(file, 'utf8'), 'bye, all\n2nd, line\n');
  const bare = await runCli([
    'call',
    'edit_file',
    `path=${file}`,
    'edits={"oldText":"bye, all","newText":"a"},{"oldText":"2nd, line","newText":"b"}',
    '-q',
    ...fs,
  ]);
  assert.equal(bare.code, 0, bare.stderr);
  assert.equal(readFileSync(file, 'utf8'), 'a\nb\n');
});

test('URL elicitation: a -32042 error shows its page; an http:// page is declined with the reason', async () => {
  const required = await runCli(['call', 'connect_account', 'mode=error', ...DEMO]);
  assert.equal(required.code, 3);
  assert.match(
    required.stderr,
    /the server asks you to open a page on example\.com:\n {2}Connect your account to continue\n {2}https:\/\/example\.com\/connect\?session=demo/,
  );
  assert.match(required.stderr, /stdin is not a terminal, so nobody can agree to open it; open the page yourself, then run the command again/);
  for (const protocol of ['2025-11-25', '2026-07-28']) {
    const plain = await runCli(['call', 'open_page', 'url=http://example.com/login', '-q', '--protocol', protocol, ...FIXTURE_CMD]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, 'action=decline\n');
    assert.match(plain.stderr, /the server asked you to open http:\/\/example\.com\/login; declined: only https:\/\/ pages are opened/);
  }
  const plainError = await runCli(['call', 'open_page', 'url=http://example.com/login', 'mode=error', '-q', ...FIXTURE_CMD]);
  assert.equal(plainError.code, 3);
  assert.match(plainError.stderr, /declined: only https:\/\/ pages are opened/);
  assert.doesNotMatch(plainError.stderr, /open the page yourself/);
});

/** A project folder (no "type": "module") where `mcpkit` resolves to this checkout. */
function project(): string {
  const dir = tempDir('mcpkit-first-hour-');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO_ROOT, join(dir, 'node_modules', 'mcpkit'));
  symlinkSync(join(REPO_ROOT, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "weather", "version": "1.0.0" }\n');
  return dir;
}

/** README.md's "A server in ten lines", as it stands. */
function readmeServer(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /## A server in ten lines\n\n```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'README.md has the server in ten lines');
  assert.match(block[1]!, /await server\.connect\(new StdioServerTransport\(\)\);/);
  return block[1]!;
}

test('syntax errors in run keep the file:line and the caret (JavaScript, an imported file, TypeScript)', async () => {
  const dir = project();
  writeFileSync(join(dir, 'bad.mjs'), 'export default 1;\nconst x = ;\n');
  writeFileSync(join(dir, 'main.mjs'), "import './bad.mjs';\nexport default 1;\n");
  writeFileSync(join(dir, 'bad.mts'), 'const x: number = ;\nexport default x;\n');
  for (const [file, where, line] of [
    ['bad.mjs', 'bad.mjs:2', 'const x = ;'],
    ['main.mjs', 'bad.mjs:2', 'const x = ;'],
    ['bad.mts', 'bad.mts:1:18', 'const x: number = ;'],
  ] as const) {
    const r = await runCli(['run', file], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stderr.includes(where), `${file}: the location ${where} in ${r.stderr}`);
    const lines = r.stderr.split('\n');
    const at = lines.findIndex((l) => l.trim() === line);
    assert.ok(at > 0, `${file}: the source line in ${r.stderr}`);
    const caret = lines[at + 1]!;
    assert.match(caret, /^ *\^$/, `${file}: a caret under the line`);
    assert.equal(caret.indexOf('^'), lines[at]!.indexOf(line) + line.indexOf(';'), `${file}: the caret points at the unexpected ";"`);
  }
  // dev reports the same while it waits for a fix
  const dev = startCli(['dev', 'main.mjs', '--http', '--port', '0'], dir);
  try {
    await dev.waitForStderr(/no working code yet; waiting for a change/);
    assert.match(dev.stderr(), /bad\.mjs:2\nconst x = ;\n {10}\^/);
    assert.equal(dev.stdout(), '', 'no LISTENING while no code loads');
  } finally {
    await dev.stop();
  }
});

test("README's server (it connects itself) is served by run and dev over stdio; --http says what to change", async () => {
  const dir = project();
  writeFileSync(join(dir, 'server.mts'), readmeServer());
  for (const command of ['run', 'dev']) {
    const client = new Client({ name: 'first-hour', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCPKIT_BIN, command, 'server.mts'], cwd: dir }));
    try {
      assert.equal(firstText(await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } })), 'Sunny in Oslo');
    } finally {
      await client.close();
    }
  }
  const http = await runCli(['run', 'server.mts', '--http', '--port', '0'], { cwd: dir });
  assert.equal(http.code, 1);
  assert.equal(http.stdout, '');
  assert.match(http.stderr, /server\.mts connects its server to stdio itself while it loads .* Replace that line with "export default server;"/);
  const dev = startCli(['dev', 'server.mts', '--http', '--port', '0'], dir);
  try {
    await dev.waitForStderr(/no working code yet; waiting for a change/);
    assert.match(dev.stderr(), /Replace that line with "export default server;"/);
    assert.equal(dev.stdout(), '', 'no LISTENING while no code loads');
    // once the file exports its server, dev loads it and only then prints LISTENING
    writeFileSync(join(dir, 'server.mts'), readmeServer().replace('await server.connect(new StdioServerTransport());', 'export default server;'));
    await dev.waitForStdout(/^LISTENING http:\/\/127\.0\.0\.1:\d+\/mcp\n/);
  } finally {
    await dev.stop();
  }
});

test('a .ts server in a package without "type": "module" says what to change; require("mcpkit") explains itself', async () => {
  const dir = project();
  writeFileSync(join(dir, 'server.ts'), readmeServer());
  const r = await runCli(['run', 'server.ts'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /server\.ts was loaded as CommonJS because .*package\.json has no "type": "module", and mcpkit is ESM-only .* Add "type": "module" to .*package\.json, or name the file .*server\.mts/,
  );
  writeFileSync(join(dir, 'exported.ts'), readmeServer().replace('await server.connect(new StdioServerTransport());', 'export default server;'));
  const exported = await runCli(['run', 'exported.ts'], { cwd: dir });
  assert.equal(exported.code, 1);
  assert.match(exported.stderr, /mcpkit is an ES module package: load it with import, not require\(\)/);
  assert.match(exported.stderr, /Add "type": "module" to/);
  // the advice works: with "type": "module" the same file is served
  writeFileSync(join(dir, 'package.json'), '{ "name": "weather", "version": "1.0.0", "type": "module" }\n');
  const client = new Client({ name: 'first-hour', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCPKIT_BIN, 'run', 'exported.ts'], cwd: dir }));
  try {
    assert.equal(firstText(await client.callTool({ name: 'forecast', arguments: { city: 'Rome' } })), 'Sunny in Rome');
  } finally {
    await client.close();
  }
  // plain CommonJS
  writeFileSync(join(dir, 'req.cjs'), "require('mcpkit/server');\n");
  const req = spawnSync(process.execPath, ['req.cjs'], { cwd: dir, encoding: 'utf8' });
  assert.notEqual(req.status, 0);
  assert.match(req.stderr, /mcpkit is an ES module package: load it with import, not require\(\)\. .*await import\('mcpkit\/server'\)/);
  assert.match(req.stderr, /ERR_MCPKIT_ESM_ONLY/);
});

/** A folder on PATH with an `mcpkit` that runs this checkout's CLI, and a project with a .mcp.json. */
function completionWorld(): { bin: string; cwd: string; env: NodeJS.ProcessEnv } {
  const bin = tempDir('mcpkit-bin-');
  writeFileSync(join(bin, 'mcpkit'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(MCPKIT_BIN)} "$@"\n`);
  chmodSync(join(bin, 'mcpkit'), 0o755);
  const cwd = tempDir('mcpkit-completion-');
  writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { weather: { command: 'x' }, files: { url: 'https://example.com/mcp' } } }));
  writeFileSync(join(cwd, 'other.json'), JSON.stringify({ mcpServers: { elsewhere: { command: 'y' } } }));
  return { bin, cwd, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } };
}

const hasShell = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

test('completion bash: the script runs in bash and completes commands, options, values and config names', {
  skip: hasShell('bash') ? false : 'bash is not installed',
}, async () => {
  const { cwd, env } = completionWorld();
  const script = (await runCli(['completion', 'bash'])).stdout;
  const file = join(cwd, 'mcpkit.bash');
  writeFileSync(file, script);
  const probe = `source ${JSON.stringify(file)}
t() { COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _mcpkit; echo "\${COMPREPLY[*]}"; }
t mcpkit ca
t mcpkit call ''
t mcpkit call weather --proto
t mcpkit call weather --protocol 2026
t mcpkit list ''
t mcpkit call --log-level w
t mcpkit completion ''
t mcpkit call --config other.json ''
t mcpkit call weather ''
complete -p mcpkit
`;
  const r = spawnSync('bash', ['--norc', '-c', probe], { cwd, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trimEnd().split('\n'), [
    'call',
    'weather files',
    '--protocol',
    '2026-07-28',
    'tools resources templates prompts weather files',
    'warning',
    'bash zsh fish',
    'elsewhere',
    '',
    'complete -o default -F _mcpkit mcpkit',
  ]);
});

test('completion fish: the script loads in fish and completes commands, options, values and config names', {
  skip: hasShell('fish') ? false : 'fish is not installed',
}, async () => {
  const { cwd, env } = completionWorld();
  const file = join(cwd, 'mcpkit.fish');
  writeFileSync(file, (await runCli(['completion', 'fish'])).stdout);
  const run = (line: string) => {
    const r = spawnSync('fish', ['--no-config', '-c', `source ${JSON.stringify(file)}; complete -C ${JSON.stringify(line)}`], { cwd, env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t')[0]);
  };
  assert.deepEqual(run('mcpkit comp'), ['complete', 'completion']);
  assert.deepEqual(run('mcpkit call ').sort(), ['files', 'weather']);
  assert.deepEqual(run('mcpkit call --protocol 2025-1'), ['2025-11-25']);
  assert.deepEqual(run('mcpkit list t').sort(), ['templates', 'tools']);
  assert.ok(run('mcpkit call --lo').includes('--log-level'));
  assert.deepEqual(run('mcpkit call --config other.json '), ['elsewhere']);
});

test('completion zsh: the script passes zsh -n; completion without a shell name is a usage error', async () => {
  const script = (await runCli(['completion', 'zsh'])).stdout;
  assert.match(script, /^#compdef mcpkit/);
  if (hasShell('zsh')) {
    const r = spawnSync('zsh', ['-n'], { input: script, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  const bad = await runCli(['completion', 'tcsh']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /name the shell: bash, zsh or fish, not "tcsh"/);
});
