// What `mcpkit install` / `uninstall` / `installed` do with hostile or unusual config files and
// input (issue 35 §1, issue 38): a rewrite changes only the entry it adds or removes; hostile
// JSONC is bounded; ambiguous duplicate keys are refused; one bad file does not stop
// `installed` listing the others; every printed line is free of raw escape sequences; header
// values with line breaks are refused; web install links get the consent screen; Gemini `url`
// entries are SSE.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../helpers/cli/install.js';

const ADD = ['--name', 'demo', '--', 'node', 's.js'];
/** Raw characters that must never reach the terminal. */
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u3164\u2800]/;

test('install then uninstall returns the file byte for byte: BOM, CRLF, tabs, comments, duplicate keys, big numbers, compact entries, key order', async () => {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  const original =
    '\uFEFF{\r\n\t// user settings\r\n\t"zeta": 12345678901234567890,\r\n\t"huge": 1e400, "tiny": 1e-400,\r\n\t"dup": 1,\r\n\t"dup": 2,\r\n\t/* block */ "mcpServers": {\r\n\t\t"a": {"command":"x","args":["1"]}, // compact\r\n\t\t"b": { "command": "y" }\r\n\t},\r\n\t"alpha": true\r\n}\r\n';
  writeFileSync(path, original);
  const added = await runCli(['install', '--config', path, '--yes', ...ADD]);
  assert.equal(added.code, 0, added.stderr);
  const expected = original.replace(
    '\t\t"b": { "command": "y" }\r\n',
    '\t\t"b": { "command": "y" },\r\n\t\t"demo": {\r\n\t\t\t"command": "node",\r\n\t\t\t"args": [\r\n\t\t\t\t"s.js"\r\n\t\t\t]\r\n\t\t}\r\n',
  );
  assert.equal(readFileSync(path, 'utf8'), expected);
  assert.equal(readFileSync(`${path}.bak`, 'utf8'), original);
  const removed = await runCli(['uninstall', '--config', path, 'demo']);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(readFileSync(path, 'utf8'), original, 'back to the original bytes');
  const first = await runCli(['uninstall', '--config', path, 'a']);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(readFileSync(path, 'utf8'), original.replace('\t\t"a": {"command":"x","args":["1"]}, // compact\r\n', ''));
});

test('layout follows the file: a one-line file stays one line, an empty map in a pretty file opens, a trailing comma is kept', async () => {
  const dir = tempDir();
  const cases: [string, string][] = [
    ['{"mcpServers":{"a":{"command":"x"}}}', '{"mcpServers":{"a":{"command":"x"},"demo": {"command":"node","args":["s.js"]}}}'],
    ['{\n  "mcpServers": {}\n}\n', '{\n  "mcpServers": {\n    "demo": {\n      "command": "node",\n      "args": [\n        "s.js"\n      ]\n    }\n  }\n}\n'],
    [
      '{\n  "theme": "dark"\n}\n',
      '{\n  "theme": "dark",\n  "mcpServers": {\n    "demo": {\n      "command": "node",\n      "args": [\n        "s.js"\n      ]\n    }\n  }\n}\n',
    ],
    [
      '{\n  "mcpServers": {\n    "a": {"command": "x"},\n  },\n}\n',
      '{\n  "mcpServers": {\n    "a": {"command": "x"},\n    "demo": {\n      "command": "node",\n      "args": [\n        "s.js"\n      ]\n    }\n  },\n}\n',
    ],
  ];
  for (const [i, [before, after]] of cases.entries()) {
    const path = join(dir, `c${i}.json`);
    writeFileSync(path, before);
    const result = await runCli(['install', '--config', path, '--yes', ...ADD]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(path, 'utf8'), after, before);
  }
});

test('hostile JSONC is refused quickly and clearly, the file untouched: deep nesting, millions of values, not UTF-8', async () => {
  const dir = tempDir();
  const cases: [string, string | Buffer, RegExp][] = [
    ['deep', `{"x": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`, /nests objects and arrays deeper than 100 levels/],
    ['many', `{"x": [${'0,'.repeat(1_200_000)}0]}`, /holds more than 1000000 values/],
    ['latin1', Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]), /is not UTF-8 text/],
    ['unclosed comment', '{"mcpServers": {} /* never closed', /is not valid JSON or JSONC \(UnexpectedEndOfComment at line 1, column 19\)/],
  ];
  for (const [label, content, pattern] of cases) {
    const path = join(dir, `${label}.json`);
    writeFileSync(path, content);
    const started = Date.now();
    const result = await runCli(['install', '--config', path, '--yes', ...ADD]);
    assert.equal(result.code, 2, `${label}: ${result.stderr}`);
    assert.match(result.stderr, pattern, label);
    assert.ok(Date.now() - started < 20_000, `${label} took ${Date.now() - started} ms`);
    assert.deepEqual(readFileSync(path), Buffer.from(content), label);
  }
});

test('duplicate keys the change depends on are refused (exit 2), untouched; __proto__ is an ordinary key', async () => {
  const dir = tempDir();
  const cases: [string, string[], RegExp][] = [
    ['{"mcpServers": {"a": {"command": "x"}}, "mcpServers": {}}', ['install', ...ADD], /has the key "mcpServers" more than once/],
    ['{"mcpServers": {"demo": {"command": "x"}, "demo": {"command": "y"}}}', ['install', '--force', ...ADD], /has the server "demo" more than once/],
    ['{"mcpServers": {"demo": {"command": "x"}, "demo": {"command": "y"}}}', ['uninstall', 'demo'], /has the server "demo" more than once/],
  ];
  for (const [i, [content, args, pattern]] of cases.entries()) {
    const path = join(dir, `d${i}.json`);
    writeFileSync(path, content);
    const [command, ...rest] = args;
    const result = await runCli([command!, '--config', path, ...(command === 'install' ? ['--yes'] : []), ...rest]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, pattern);
    assert.equal(readFileSync(path, 'utf8'), content);
  }
  const proto = join(dir, 'proto.json');
  writeFileSync(proto, '{"__proto__": {"mcpServers": {"demo": {"command": "inherited"}}}}');
  const result = await runCli(['install', '--config', proto, '--yes', ...ADD]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    readFileSync(proto, 'utf8'),
    '{"__proto__": {"mcpServers": {"demo": {"command": "inherited"}}},"mcpServers": {"demo":{"command":"node","args":["s.js"]}}}',
  );
});

test('installed: a JSONC file is listed; one unreadable file is reported and the others are still listed (exit 1)', async () => {
  const home = tempDir();
  const project = tempDir();
  mkdirSync(join(home, '.cursor'));
  writeFileSync(join(home, '.cursor', 'mcp.json'), '{\n  // comment\n  "mcpServers": {"c": {"command": "x",},},\n}\n');
  mkdirSync(join(home, '.gemini'));
  writeFileSync(join(home, '.gemini', 'settings.json'), '{"mcpServers": {"g": {"url": "https://e.example/sse"}, "h": {"httpUrl": "https://e.example/mcp"}}}');
  mkdirSync(join(project, '.vscode'));
  writeFileSync(join(project, '.vscode', 'mcp.json'), '{"servers": {"v": \x1b]0;pwned\x07');
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };
  const text = await runCli(['installed'], { cwd: project, env });
  assert.equal(text.code, 1);
  assert.match(text.stdout, /Cursor: .*\n {2}c\n {4}runs: x\n/);
  assert.match(text.stdout, /g\n {4}url: {2}https:\/\/e\.example\/sse \(legacy SSE\)\n/, 'Gemini url is SSE');
  assert.match(text.stdout, /h\n {4}url: {2}https:\/\/e\.example\/mcp \(Streamable HTTP\)\n/, 'Gemini httpUrl is Streamable HTTP');
  assert.match(text.stdout, /VS Code: .*\n {2}cannot read this file: .*is not valid JSON or JSONC/);
  assert.match(text.stderr, /cannot read .*\.vscode\/mcp\.json/);
  assert.ok(!RAW.test(text.stdout + text.stderr), 'no raw control character printed');
  const json = await runCli(['installed', '--json'], { cwd: project, env });
  assert.equal(json.code, 1);
  const { configs } = JSON.parse(json.stdout) as { configs: { client: string; error?: string; servers: { name: string; transport?: string }[] }[] };
  assert.deepEqual(configs.map((c) => [c.client, c.error !== undefined, c.servers.map((s) => `${s.name}${s.transport ? `:${s.transport}` : ''}`)]).sort(), [
    ['cursor', false, ['c']],
    ['gemini', false, ['g:sse', 'h:http']],
    ['vscode', true, []],
  ]);
});

test('no raw escape, OSC, C1 or bidi character reaches the terminal: JSON parse errors quoting input, names, paths, installed', async () => {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  writeFileSync(path, '{}');
  const hostile = '\x1b]0;pwned\x07\x1b[2J\u009b31m\u202Eevil\u3164';
  const runs = [
    await runCli(['install', '--config', path, '--yes', '--json', `{"name": "x${hostile}`]),
    await runCli(['install', '--config', path, '--yes', '--json', `{"name": "x", "command": ${hostile}}`]),
    await runCli([
      'install',
      '--config',
      path,
      '--yes',
      `cursor://anysphere.cursor-deeplink/mcp/install?name=x&config=${Buffer.from(`{"command": "${hostile}"`).toString('base64')}`,
    ]),
    await runCli(['install', '--config', path, '--yes', '--name', `x${hostile}`, '--', 'node']),
    await runCli(['install', '--config', join(dir, `a${hostile}`, 'x.json'), '--yes', '--name', 'x', '--', 'node', hostile]),
    await runCli(['uninstall', '--config', path, hostile]),
    await runCli(['install', '--config', path, '--yes', '--bogus' + hostile]),
  ];
  writeFileSync(
    path,
    JSON.stringify({
      mcpServers: {
        [`n${hostile}`]: { command: hostile, args: [hostile], env: { [`K${hostile}`]: hostile } },
        bad: { command: 5, url: hostile },
        u: { url: `https://e.example/${hostile}`, headers: { h: hostile } },
      },
    }),
  );
  runs.push(await runCli(['installed', '--config', path]), await runCli(['installed', '--config', path, '--json']));
  for (const [i, run] of runs.entries()) {
    assert.ok(!RAW.test(run.stdout) && !RAW.test(run.stderr), `run ${i} printed a raw control character: ${JSON.stringify(run.stdout + run.stderr)}`);
  }
  const listed = JSON.parse(runs.at(-1)!.stdout) as { configs: { servers: { name: string }[] }[] };
  assert.equal(listed.configs[0]!.servers[0]!.name, `n${hostile}`, 'the JSON output keeps the exact value, escaped');
});

test('a header value with CR, LF or another control character is refused (exit 2), from --header, a snippet or a link', async () => {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  writeFileSync(path, '{}');
  const cases: string[][] = [
    ['--name', 'r', '--header', 'Authorization: Bearer x\r\nX-Evil: 1', 'https://e.example/mcp'],
    ['--name', 'r', '--header', 'Authorization: Bearer x\nHost: evil', 'https://e.example/mcp'],
    ['--name', 'r', '--header', 'Authorization: Bearer x\r\n', 'https://e.example/mcp'],
    ['--name', 'r', '--header', 'X: a\u0001b', 'https://e.example/mcp'],
    ['--json', JSON.stringify({ name: 'r', url: 'https://e.example/mcp', headers: { A: 'x\u0000y' } })],
    ['--name', 'r', '--header', 'Bad Name: v', 'https://e.example/mcp'],
    ['--json', JSON.stringify({ name: 'r', url: 'https://e.example/mcp', headers: { A: 'x\r\nB: y' } })],
    [`vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name: 'r', type: 'http', url: 'https://e.example/mcp', headers: { A: 'x\ny' } }))}`],
  ];
  for (const args of cases) {
    const result = await runCli(['install', '--config', path, '--yes', ...args]);
    assert.equal(result.code, 2, `${JSON.stringify(args)}: ${result.stderr}`);
    assert.match(result.stderr, /holds a line break or control character|is not a valid HTTP header name|--header needs NAME:VALUE/);
    assert.equal(readFileSync(path, 'utf8'), '{}');
  }
  const ok = await runCli(['install', '--config', path, '--yes', '--name', 'r', '--header', 'Authorization:  Bearer\tx ', 'https://e.example/mcp']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')).mcpServers.r.headers, { Authorization: 'Bearer\tx' });
});

test('web install links get the consent screen of a local command, not "connect to the remote server https://cursor.com/..."', async () => {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  writeFileSync(path, '{}');
  const config = { command: 'npx', args: ['-y', 'pkg'] };
  for (const link of [
    `https://cursor.com/en/install-mcp?name=web&config=${Buffer.from(JSON.stringify(config)).toString('base64')}`,
    `https://vscode.dev/redirect/mcp/install?name=web&config=${encodeURIComponent(JSON.stringify(config))}`,
    `https://insiders.vscode.dev/redirect/mcp/install?name=web&config=${encodeURIComponent(JSON.stringify(config))}&quality=insiders`,
  ]) {
    const refused = await runCli(['install', '--config', path, link]);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /will run this command .*\n\n {4}npx -y pkg\n/);
    assert.match(refused.stderr, /DANGER: downloads the package pkg from npm/);
    assert.ok(!refused.stderr.includes('remote server'), link);
  }
});
