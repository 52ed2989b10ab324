// `mcpkit install` / `uninstall` / `installed` driven as a child process with no terminal.
// The consent rules are SEP-1024 (MCP Client Security Requirements for Local Server
// Installation): the exact command, untruncated, all arguments, a warning, and explicit
// consent before anything is configured — so without a terminal only --yes installs.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { runCli, tempDir } from '../../../test/helpers/cli/install.js';
import { quote } from './display.js';

const ENTRY = { command: 'npx', args: ['-y', 'some-pkg', 'a b'], env: { API_KEY: 'sk-secret-1', DEBUG: '1' } };

const FORMS: Record<string, string[]> = {
  args: ['--name', 'demo', '-e', 'API_KEY=sk-secret-1', '-e', 'DEBUG=1', '--', 'npx', '-y', 'some-pkg', 'a b'],
  snippet: ['--json', JSON.stringify({ name: 'demo', ...ENTRY })],
  'cursor link': [`cursor://anysphere.cursor-deeplink/mcp/install?name=demo&config=${Buffer.from(JSON.stringify(ENTRY)).toString('base64')}`],
  'cursor link, wrapped config': [
    `cursor://anysphere.cursor-deeplink/mcp/install?name=demo&config=${Buffer.from(JSON.stringify({ demo: ENTRY })).toString('base64')}`,
  ],
  'vscode link': [`vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: 'demo', ...ENTRY }))}`],
};

/** The entry each client's documented format holds for ENTRY. */
const EXPECTED: Record<string, { key: string; value: Record<string, unknown> }> = {
  'claude-desktop': { key: 'mcpServers', value: ENTRY },
  'claude-code': { key: 'mcpServers', value: { type: 'stdio', ...ENTRY } },
  cursor: { key: 'mcpServers', value: ENTRY },
  vscode: { key: 'servers', value: { type: 'stdio', ...ENTRY } },
  windsurf: { key: 'mcpServers', value: ENTRY },
  gemini: { key: 'mcpServers', value: ENTRY },
  'mcp-servers': { key: 'mcpServers', value: ENTRY },
};

/** A config with other keys before and after the servers map, four-space indented, mode 0640. */
function seed(dir: string, key: string): { path: string; before: Buffer; data: Record<string, unknown> } {
  const data = { theme: 'dark', [key]: { keep: { command: 'keep-me', args: ['x'] } }, zzz: [1, 2, { deep: true }] };
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify(data, null, 4) + '\n');
  chmodSync(path, 0o640);
  return { path, before: readFileSync(path), data };
}

for (const [client, expected] of Object.entries(EXPECTED)) {
  for (const [form, args] of Object.entries(FORMS)) {
    test(`install into a ${client} config from ${form}: the entry in its format, everything else kept, backup, mode kept`, async () => {
      const dir = tempDir();
      const { path, before, data } = seed(dir, expected.key);
      const clientArgs = client === 'mcp-servers' ? [] : ['--client', client];
      const result = await runCli(['install', ...clientArgs, '--config', path, '--yes', ...args]);
      assert.equal(result.code, 0, result.stderr);
      const servers = data[expected.key] as Record<string, unknown>;
      servers.demo = expected.value;
      assert.equal(readFileSync(path, 'utf8'), JSON.stringify(data, null, 4) + '\n');
      assert.deepEqual(readFileSync(`${path}.bak`), before);
      assert.equal(statSync(path).mode & 0o777, 0o640);
      assert.equal(statSync(`${path}.bak`).mode & 0o777, 0o640);
      assert.match(result.stderr, /npx -y some-pkg 'a b'/);
      assert.match(result.stderr, /WARNING: this will run code on this machine/);
      assert.ok(!result.stderr.includes('sk-secret-1'), 'secret values are masked');
      assert.match(result.stderr, /API_KEY=\*+ \(secret, 11 characters/);
      assert.match(result.stderr, /DEBUG=1/);
    });
  }
}

test("each client's default file (HOME and the current folder), created with mode 0600 when missing", async () => {
  const home = tempDir();
  const project = tempDir();
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };
  const paths: Record<string, string> = {
    'claude-desktop': join(home, '.config', 'Claude', 'claude_desktop_config.json'),
    'claude-code': join(project, '.mcp.json'),
    cursor: join(home, '.cursor', 'mcp.json'),
    vscode: join(project, '.vscode', 'mcp.json'),
    windsurf: join(home, '.codeium', 'windsurf', 'mcp_config.json'),
    gemini: join(home, '.gemini', 'settings.json'),
  };
  for (const [client, path] of Object.entries(paths)) {
    const result = await runCli(['install', '--client', client, '--yes', ...FORMS.args!], { cwd: project, env });
    assert.equal(result.code, 0, `${client}: ${result.stderr}`);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    assert.deepEqual(written, { [EXPECTED[client]!.key]: { demo: EXPECTED[client]!.value } });
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(existsSync(`${path}.bak`), false, 'no backup of a file that did not exist');
  }
  const listed = await runCli(['installed', '--json'], { cwd: project, env });
  assert.equal(listed.code, 0, listed.stderr);
  const { configs } = JSON.parse(listed.stdout) as { configs: { client: string; path: string }[] };
  assert.deepEqual(configs.map((c) => [c.client, c.path]).sort(), Object.entries(paths).sort());
});

test('no terminal and no --yes: refused with exit 3, the file byte-identical, the command still shown', async () => {
  const dir = tempDir();
  const { path, before } = seed(dir, 'mcpServers');
  const result = await runCli(['install', '--client', 'cursor', '--config', path, ...FORMS.args!], { input: 'yes\n' });
  assert.equal(result.code, 3);
  assert.match(result.stderr, /refusing: there is no terminal/);
  assert.match(result.stderr, /npx -y some-pkg 'a b'/);
  assert.deepEqual(readFileSync(path), before);
  assert.equal(existsSync(`${path}.bak`), false);
});

test('a hostile link is shown exactly, quoted, untruncated, and never executed', async () => {
  const dir = tempDir();
  const marker = join(dir, 'pwned');
  const hostileArg = `; rm -rf ~ $(touch ${marker})`;
  const longArg = 'A'.repeat(5000) + '`touch ' + marker + '`' + 'B'.repeat(5000);
  const config = { command: 'sh', args: ['-c', hostileArg, longArg, "it's", 'tab\there', 'rtl\u202Eexe.txt'], env: { NODE_OPTIONS: `--require ${marker}` } };
  const links = [
    `cursor://anysphere.cursor-deeplink/mcp/install?name=innocent&config=${Buffer.from(JSON.stringify(config)).toString('base64')}`,
    `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: 'innocent', ...config }))}`,
  ];
  for (const link of links) {
    const { path, before } = seed(dir, 'mcpServers');
    const refused = await runCli(['install', '--config', path, link]);
    assert.equal(refused.code, 3, refused.stderr);
    const expectedLine = `sh -c ${quote(hostileArg)} ${longArg.includes("'") ? '' : `'${longArg}'`} ${quote("it's")} $'tab\\there' $'rtl\\u202eexe.txt'`;
    assert.ok(refused.stderr.includes(`    ${expectedLine}\n`), `the whole command line is shown: ${refused.stderr.slice(0, 400)}`);
    assert.ok(refused.stderr.includes(`'; rm -rf ~ $(touch ${marker})'`));
    assert.ok(refused.stderr.includes(longArg), 'the 10k argument is not truncated');
    assert.match(refused.stderr, /6 arguments/);
    assert.match(refused.stderr, /NODE_OPTIONS=.*changes which code runs/);
    assert.match(refused.stderr, /invisible or control characters/);
    assert.deepEqual(readFileSync(path), before);
    const accepted = await runCli(['install', '--config', path, '--yes', link]);
    assert.equal(accepted.code, 0, accepted.stderr);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    assert.deepEqual(written.mcpServers.innocent, config, 'written exactly as given');
    assert.equal(existsSync(marker), false, 'the command never ran');
  }
});

test('bad input is a usage error (exit 2) and leaves the file byte-identical', async () => {
  const dir = tempDir();
  const { path, before } = seed(dir, 'mcpServers');
  const cases: [string[], RegExp][] = [
    [['--name', 'keep', '--', 'x'], /already has a server named "keep"; use --force/],
    [['--name', '__proto__', '--', 'x'], /is not allowed/],
    [['--name', 'a b', '--', 'x'], /is not allowed/],
    [['--', 'x'], /--name NAME is needed/],
    [['--name', 'x'], /give exactly one of/],
    [['--name', 'x', 'npx', 'y'], /one URL or link at a time/],
    [['--name', 'x', 'npx'], /neither a URL nor an install link/],
    [['--json', '{"name": "x"'], /not valid JSON/],
    [['--json', '{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}'], /holds 2 servers; pick one with --name/],
    [['--json', '{"name": "x", "command": 5}'], /"command" must be a string/],
    [['--json', '{"name": "x", "args": ["a"]}'], /neither a "command" nor a "url"/],
    [['cursor://anysphere.cursor-deeplink/mcp/install?name=x&config=%%%'], /malformed %-escape/],
    [['cursor://anysphere.cursor-deeplink/mcp/install?name=x&config=!!!'], /not base64/],
    [['cursor://anysphere.cursor-deeplink/mcp/install?name=x'], /no config parameter/],
    [['cursor://other/thing'], /unknown install link/],
    [['vscode:mcp/install?%7B%22command%22%3A%22x%22%7D'], /has no "name"/],
    [['--name', 'x', 'ftp://example.com/'], /neither a URL nor an install link/],
    [['--name', 'x', '-e', 'NOEQUALS', '--', 'x'], /--env needs NAME=VALUE/],
    [['--bogus'], /Unknown option/],
  ];
  for (const [args, pattern] of cases) {
    const result = await runCli(['install', '--config', path, '--yes', ...args]);
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, pattern, args.join(' '));
    assert.ok(!/\n\s+at /.test(result.stderr), 'no stack trace');
  }
  const remote = await runCli(['install', '--client', 'claude-desktop', '--config', path, '--yes', '--name', 'r', 'https://example.com/mcp']);
  assert.equal(remote.code, 2);
  assert.match(remote.stderr, /takes only local commands/);
  assert.deepEqual(readFileSync(path), before);
  const noTarget = await runCli(['install', '--yes', ...FORMS.args!]);
  assert.equal(noTarget.code, 2);
  assert.match(noTarget.stderr, /--client NAME .* or --config FILE/);
});

test('--force replaces an entry of the same name, and says so before asking', async () => {
  const dir = tempDir();
  const { path } = seed(dir, 'mcpServers');
  const result = await runCli(['install', '--config', path, '--yes', '--force', '--name', 'keep', '--', 'node', 'new.js']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /replace the MCP server keep/);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')).mcpServers.keep, { command: 'node', args: ['new.js'] });
});

test('remote servers: URL, headers (secret values masked) and SSE, per format', async () => {
  const dir = tempDir();
  const expected: Record<string, Record<string, unknown>> = {
    'claude-code': { type: 'sse', url: 'https://example.com/sse', headers: { Authorization: 'Bearer tok-1' } },
    cursor: { url: 'https://example.com/sse', headers: { Authorization: 'Bearer tok-1' } },
    vscode: { type: 'sse', url: 'https://example.com/sse', headers: { Authorization: 'Bearer tok-1' } },
    windsurf: { serverUrl: 'https://example.com/sse', headers: { Authorization: 'Bearer tok-1' } },
    gemini: { url: 'https://example.com/sse', headers: { Authorization: 'Bearer tok-1' } },
    'mcp-servers': { type: 'sse', url: 'https://example.com/sse', headers: { Authorization: 'Bearer tok-1' } },
  };
  for (const [client, value] of Object.entries(expected)) {
    const path = join(dir, `${client}.json`);
    const result = await runCli([
      'install',
      '--client',
      client,
      '--config',
      path,
      '--yes',
      '--name',
      'remote',
      '--sse',
      '--header',
      'Authorization: Bearer tok-1',
      'https://example.com/sse',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!result.stderr.includes('tok-1'));
    assert.match(result.stderr, /will connect to the remote server https:\/\/example.com\/sse \(legacy HTTP\+SSE\)/);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    assert.deepEqual(written[client === 'vscode' ? 'servers' : 'mcpServers'].remote, value, client);
  }
  const http = join(dir, 'gemini-http.json');
  assert.equal((await runCli(['install', '--client', 'gemini', '--config', http, '--yes', '--name', 'h', 'https://example.com/mcp'])).code, 0);
  assert.deepEqual(JSON.parse(readFileSync(http, 'utf8')).mcpServers.h, { httpUrl: 'https://example.com/mcp' });
});

test('a VS Code file with comments (JSONC) gets the entry, its comments and trailing commas kept; invalid JSON is refused', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, '.vscode'));
  const path = join(dir, '.vscode', 'mcp.json');
  const jsonc = '{\n  // my servers\n  "servers": {\n    "a": { "type": "stdio", "command": "x", }, /* inline */\n  },\n}\n';
  writeFileSync(path, jsonc);
  const result = await runCli(['install', '--client', 'vscode', '--yes', ...FORMS.args!], { cwd: dir });
  assert.equal(result.code, 0, result.stderr);
  const demo = JSON.stringify(EXPECTED.vscode!.value, null, 2).replaceAll('\n', '\n    ');
  assert.equal(
    readFileSync(path, 'utf8'),
    `{\n  // my servers\n  "servers": {\n    "a": { "type": "stdio", "command": "x", }, /* inline */\n    "demo": ${demo}\n  },\n}\n`,
  );
  writeFileSync(path, '{"servers": ');
  const broken = await runCli(['install', '--client', 'vscode', '--yes', ...FORMS.args!], { cwd: dir });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /is not valid JSON or JSONC \(ValueExpected at line 1, column 13\)/);
  writeFileSync(path, '{"servers": []}');
  const wrongShape = await runCli(['install', '--client', 'vscode', '--yes', ...FORMS.args!], { cwd: dir });
  assert.equal(wrongShape.code, 2);
  assert.match(wrongShape.stderr, /"servers" is not an object/);
});

test('uninstall removes one entry and keeps the rest; a missing name is exit 1 and changes nothing', async () => {
  const dir = tempDir();
  const { path, before, data } = seed(dir, 'mcpServers');
  const missing = await runCli(['uninstall', '--config', path, 'nope']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /has no server named "nope"/);
  assert.deepEqual(readFileSync(path), before);
  const removed = await runCli(['uninstall', '--config', path, 'keep']);
  assert.equal(removed.code, 0, removed.stderr);
  (data.mcpServers as Record<string, unknown>).keep = undefined;
  assert.equal(readFileSync(path, 'utf8'), JSON.stringify(data, null, 4) + '\n');
  assert.deepEqual(readFileSync(`${path}.bak`), before);
  assert.equal((await runCli(['uninstall', '--config', path])).code, 2);
});

const INSTALLED_SCHEMA = {
  type: 'object',
  required: ['configs'],
  additionalProperties: false,
  properties: {
    configs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['client', 'path', 'servers'],
        additionalProperties: false,
        properties: {
          client: { type: 'string' },
          path: { type: 'string' },
          servers: {
            type: 'array',
            items: {
              oneOf: [
                {
                  type: 'object',
                  required: ['name', 'command', 'args', 'envNames'],
                  additionalProperties: false,
                  properties: {
                    name: { type: 'string' },
                    command: { type: 'string' },
                    args: { type: 'array', items: { type: 'string' } },
                    envNames: { type: 'array', items: { type: 'string' } },
                    cwd: { type: 'string' },
                  },
                },
                {
                  type: 'object',
                  required: ['name', 'url', 'transport', 'headerNames'],
                  additionalProperties: false,
                  properties: {
                    name: { type: 'string' },
                    url: { type: 'string' },
                    transport: { enum: ['http', 'sse'] },
                    headerNames: { type: 'array', items: { type: 'string' } },
                  },
                },
                {
                  type: 'object',
                  required: ['name', 'error'],
                  additionalProperties: false,
                  properties: { name: { type: 'string' }, error: { type: 'string' } },
                },
              ],
            },
          },
        },
      },
    },
  },
};

test('installed lists entries (readable and --json, checked by a schema) and never prints secret values', async () => {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  writeFileSync(
    path,
    JSON.stringify({
      mcpServers: {
        local: { command: 'node', args: ['s.js', 'a b'], env: { API_TOKEN: 'tok-secret' } },
        remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer tok-secret' } },
        broken: { args: [] },
        'odd name': { command: 'x' },
      },
    }),
  );
  const json = await runCli(['installed', '--config', path, '--json']);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(!json.stdout.includes('tok-secret'));
  const parsed = JSON.parse(json.stdout) as { configs: { servers: { name: string }[] }[] };
  const validate = new Ajv({ strict: true }).compile(INSTALLED_SCHEMA);
  assert.ok(validate(parsed), JSON.stringify(validate.errors));
  assert.deepEqual(
    parsed.configs[0]!.servers.map((s) => s.name),
    ['local', 'remote', 'broken', 'odd name'],
  );
  assert.deepEqual(parsed.configs[0]!.servers[0], { name: 'local', command: 'node', args: ['s.js', 'a b'], envNames: ['API_TOKEN'] });
  const text = await runCli(['installed', '--config', path]);
  assert.equal(text.code, 0);
  assert.ok(!text.stdout.includes('tok-secret'));
  assert.match(text.stdout, /runs: node s\.js 'a b'/);
  assert.match(text.stdout, /url: {2}https:\/\/example.com\/mcp \(Streamable HTTP\)/);
  assert.match(text.stdout, /cannot read this entry/);
  const none = await runCli(['installed', '--json'], { cwd: dir, env: { ...process.env, HOME: tempDir(), XDG_CONFIG_HOME: '' } });
  assert.deepEqual(JSON.parse(none.stdout), { configs: [] });
});

test('each command has --help with examples (exit 0)', async () => {
  for (const command of ['install', 'uninstall', 'installed']) {
    const result = await runCli([command, '--help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Examples:\n {2}mcpkit /);
    assert.match(result.stdout, /Exit codes:/);
  }
});

test('VS Code inputs from a link go to the file\'s top-level "inputs" (ids already there kept); other formats ignore them', async () => {
  const dir = tempDir();
  const link = `vscode:mcp/install?${encodeURIComponent(
    JSON.stringify({
      name: 'github',
      type: 'http',
      url: 'https://api.example.com/mcp/',
      headers: { Authorization: 'Bearer ${input:github_token}' },
      inputs: [
        { type: 'promptString', id: 'github_token', description: 'GitHub Personal Access Token', password: true },
        { type: 'promptString', id: 'existing', description: 'new text' },
      ],
    }),
  )}`;
  const path = join(dir, 'mcp.json');
  writeFileSync(path, JSON.stringify({ inputs: [{ type: 'promptString', id: 'existing', description: 'old text' }], servers: {} }, null, 2));
  const result = await runCli(['install', '--client', 'vscode', '--config', path, '--yes', link]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /VS Code will ask you for github_token \('GitHub Personal Access Token'\), typed hidden/);
  assert.match(result.stderr, /Authorization='Bearer \$\{input:github_token\}'/, 'a placeholder is not a secret: shown');
  const written = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(written.inputs, [
    { type: 'promptString', id: 'existing', description: 'old text' },
    { type: 'promptString', id: 'github_token', description: 'GitHub Personal Access Token', password: true },
  ]);
  assert.deepEqual(written.servers.github, { type: 'http', url: 'https://api.example.com/mcp/', headers: { Authorization: 'Bearer ${input:github_token}' } });
  const cursor = join(dir, 'cursor.json');
  const other = await runCli(['install', '--client', 'cursor', '--config', cursor, '--yes', link]);
  assert.equal(other.code, 0, other.stderr);
  assert.match(other.stderr, /ignored fields of the input \(not written\): inputs/);
  assert.equal(JSON.parse(readFileSync(cursor, 'utf8')).inputs, undefined);
  const bad = await runCli([
    'install',
    '--client',
    'vscode',
    '--config',
    path,
    '--yes',
    '--force',
    `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: 'x', command: 'x', inputs: [{ id: 'no type' }] }))}`,
  ]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /inputs\[0\] needs a "type" and an "id"/);
});

test('a config that is a symlink: the target is updated, the link stays a link', async () => {
  const { symlinkSync, lstatSync } = await import('node:fs');
  const dir = tempDir();
  const { path: real, before } = seed(dir, 'mcpServers');
  const link = join(dir, 'link.json');
  symlinkSync(real, link);
  const result = await runCli(['install', '--config', link, '--yes', ...FORMS.args!]);
  assert.equal(result.code, 0, result.stderr);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.deepEqual(JSON.parse(readFileSync(real, 'utf8')).mcpServers.demo, ENTRY);
  assert.deepEqual(readFileSync(`${real}.bak`), before);
});
