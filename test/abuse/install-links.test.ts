// `mcpkit install` / `uninstall` against planted symbolic links (issue 35 §1, "writes through
// symlinks"): a cloned repository can ship `.vscode/mcp.json.bak -> ~/.bashrc`. No file the
// writer touches (backup, temporary file, lock file, the config itself once read) may be a
// link it follows; the config path may be a link the user made, and then the screen names the
// real file. Each case checks the victim file's bytes and mode afterwards.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MCPKIT_BIN, runCli, shellWord, TmuxSession, tempDir } from '../helpers/cli/install.js';

const CONFIG = '{\n  "mcpServers": {\n    "keep": { "command": "keep-me" }\n  }\n}\n';
const VICTIM = '# my shell startup file\nexport PATH=$HOME/bin:$PATH\n';

/** A folder with a config, and a victim file (mode 0644) outside it. */
function setup(): { dir: string; config: string; victim: string } {
  const dir = tempDir();
  mkdirSync(join(dir, 'repo'));
  const config = join(dir, 'repo', 'mcp.json');
  writeFileSync(config, CONFIG);
  const victim = join(dir, 'bashrc');
  writeFileSync(victim, VICTIM);
  chmodSync(victim, 0o644);
  return { dir, config, victim };
}

function assertVictimUntouched(victim: string): void {
  assert.equal(readFileSync(victim, 'utf8'), VICTIM, 'the link target keeps its content');
  assert.equal(statSync(victim).mode & 0o777, 0o644, 'the link target keeps its mode');
}

for (const command of ['install', 'uninstall'] as const) {
  const args = command === 'install' ? ['--yes', '--name', 'demo', '--', 'node', 'server.js'] : ['keep'];

  test(`${command}: FILE.bak planted as a link to another file: the link is replaced, its target untouched`, async () => {
    const { config, victim } = setup();
    symlinkSync(victim, `${config}.bak`);
    const result = await runCli([command, '--config', config, ...args]);
    assert.equal(result.code, 0, result.stderr);
    assertVictimUntouched(victim);
    assert.ok(lstatSync(`${config}.bak`).isFile(), 'the backup is now a regular file');
    assert.equal(readFileSync(`${config}.bak`, 'utf8'), CONFIG);
  });

  test(`${command}: FILE.bak planted as a dangling link: nothing is created at its target`, async () => {
    const { dir, config } = setup();
    const target = join(dir, 'created-through-link');
    symlinkSync(target, `${config}.bak`);
    const result = await runCli([command, '--config', config, ...args]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(existsSync(target), false);
    assert.equal(readFileSync(`${config}.bak`, 'utf8'), CONFIG);
  });

  test(`${command}: FILE.lock planted as a link: refused at once (exit 1), nothing written, the target untouched`, async () => {
    const { config, victim } = setup();
    symlinkSync(victim, `${config}.lock`);
    const result = await runCli([command, '--config', config, ...args]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /mcp\.json\.lock is not a lock file mcpkit made .* delete it/);
    assertVictimUntouched(victim);
    assert.equal(readFileSync(config, 'utf8'), CONFIG);
    assert.equal(readlinkSync(`${config}.lock`), victim, 'the planted link is left for the user to inspect');
  });
}

test('install: the config itself is a link: the screen names the real file, which changes; the link stays a link', async () => {
  const { dir, config } = setup();
  const link = join(dir, 'link.json');
  symlinkSync(config, link);
  const refused = await runCli(['install', '--config', link, '--name', 'demo', '--', 'node', 's.js']);
  assert.equal(refused.code, 3);
  assert.ok(refused.stderr.includes(`NOTE: ${link} is a symbolic link (or in a linked folder): the file changed is ${config}`), refused.stderr);
  const done = await runCli(['install', '--config', link, '--yes', '--name', 'demo', '--', 'node', 's.js']);
  assert.equal(done.code, 0, done.stderr);
  assert.ok(lstatSync(link).isSymbolicLink());
  assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')).mcpServers.demo, { command: 'node', args: ['s.js'] });
  assert.equal(readFileSync(`${config}.bak`, 'utf8'), CONFIG, 'the backup sits beside the real file');
});

test('install: a config in a linked folder (.vscode -> elsewhere) names the real file', async () => {
  const { dir } = setup();
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(elsewhere);
  const project = join(dir, 'project');
  mkdirSync(project);
  symlinkSync(elsewhere, join(project, '.vscode'));
  const refused = await runCli(['install', '--client', 'vscode', '--name', 'demo', '--', 'node', 's.js'], { cwd: project });
  assert.equal(refused.code, 3);
  assert.ok(refused.stderr.includes(`the file changed is ${join(elsewhere, 'mcp.json')}`), refused.stderr);
});

test('install: a config that is a dangling link is refused (exit 2); nothing is created at its target', async () => {
  const { dir } = setup();
  const link = join(dir, 'dangling.json');
  const target = join(dir, 'nowhere.json');
  symlinkSync(target, link);
  const result = await runCli(['install', '--config', link, '--yes', '--name', 'demo', '--', 'node', 's.js']);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /is a symbolic link to a missing file/);
  assert.equal(existsSync(target), false);
});

test("install: a FIFO in the config's place is refused at once (exit 2), not waited on", async () => {
  const { dir } = setup();
  const fifo = join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  const result = await runCli(['install', '--config', fifo, '--yes', '--name', 'demo', '--', 'node', 's.js']);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /is not a regular file/);
});

test('install on a terminal: the config replaced by a link while the prompt waits: nothing written through it (exit 1)', async () => {
  const { dir, config, victim } = setup();
  const line = [process.execPath, MCPKIT_BIN, 'install', '--config', config, '--name', 'demo', '--', 'node', 's.js'].map(shellWord).join(' ');
  const tmux = new TmuxSession('swapped-for-link', line, dir);
  try {
    await tmux.waitFor(/Type "yes" to install it, anything else cancels: /);
    execFileSync('rm', [config]);
    symlinkSync(victim, config);
    tmux.keys(['yes'], true);
    tmux.keys(['Enter']);
    const [, code] = await tmux.waitFor(/EXIT=(\d+)/);
    assert.equal(Number(code), 1, tmux.screen());
    assert.match(tmux.screen(), /is a symbolic link; mcpkit does not write through links there; nothing was written/);
    assertVictimUntouched(victim);
    assert.ok(lstatSync(config).isSymbolicLink());
  } finally {
    tmux.close();
  }
});
