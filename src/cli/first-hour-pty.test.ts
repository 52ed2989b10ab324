/**
 * The first-hour items of the `mcpkit` command (issue 38) where the screen matters, in a
 * real pseudo-terminal (tmux): a task's status drawn in both protocol eras for a tool that
 * requires a task; Ctrl-C over Streamable HTTP reaching the server as
 * `notifications/cancelled` for the in-flight request (spec 2025-11-25, Basic › Utilities ›
 * Cancellation); a stdio server's OSC title sequence shown, not obeyed (the window title
 * stays); a -32042 URL-required error offered with consent and retried; zsh completion in
 * an interactive zsh. Skipped where tmux is not installed.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BIN, type HttpChild, hasTmux, SDK_SERVER, shellQuote, startHttpChild, TmuxSession } from '../../test/helpers/cli/cli-run.js';

const skip = hasTmux() ? false : 'tmux is not installed';
const NODE = shellQuote(process.execPath);
const CLI = `${NODE} ${shellQuote(BIN)}`;
const DEMO = `-- ${NODE} ${shellQuote(BIN)} demo`;
const FIXTURE = `-- ${NODE} ${shellQuote(fileURLToPath(new URL('../../test/helpers/cli/first-hour-server.js', import.meta.url)))}`;

function session(name: string, command: string): TmuxSession {
  return new TmuxSession(name, `${command}; echo EXIT=$?; sleep 60`);
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-first-hour-pty-'));
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

for (const protocol of ['2025-11-25', '2026-07-28']) {
  test(`a task-required tool shows its task's status on the screen (${protocol})`, { skip, timeout: 60_000 }, async () => {
    const s = session(`mcpkit-required-${protocol}`, `${CLI} call failing_job --protocol ${protocol} ${DEMO}`);
    try {
      const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the end of the call');
      assert.match(done, /failing_job runs only as a task/);
      assert.match(done, /^task \S+: working$/m, 'the status while it runs, not a blank screen');
      assert.match(done, /^the job failed \(as it always does\)$/m);
      assert.match(done, /EXIT=1/);
    } finally {
      s.kill();
    }
  });
}

for (const protocol of ['2025-11-25', '2026-07-28']) {
  test(`Ctrl-C over Streamable HTTP cancels the in-flight request at the server (${protocol})`, { skip, timeout: 60_000 }, async () => {
    const log = join(dir, `cancel-${protocol}.log`);
    const server: HttpChild = await startHttpChild([join(dirname(SDK_SERVER), 'demo-audit.js')], { CANCEL_LOG: log });
    const s = session(`mcpkit-http-cancel-${protocol}`, `${CLI} call ${shellQuote(server.url)} slow ms=60000 --protocol ${protocol}`);
    try {
      await s.waitFor((p) => /\[#*-+\] +\d+%/.test(p), 'the call to be running');
      s.send('C-c');
      const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the CLI to exit');
      assert.match(done, /interrupted \(Ctrl-C\); the request was cancelled/);
      assert.match(done, /EXIT=130/);
      const deadline = Date.now() + 20_000;
      while (!(existsSync(log) && (await readFile(log, 'utf8')).includes('aborted')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const lines = (await readFile(log, 'utf8')).trim().split('\n');
      const call = /^call (\S+)$/.exec(lines[0]!);
      assert.ok(call, lines.join('\n'));
      if (protocol === '2025-11-25') {
        // the reason is the one mcpkit put in notifications/cancelled for that request id
        assert.deepEqual(lines, [`call ${call[1]}`, `aborted ${call[1]} interrupted by Ctrl-C`]);
      } else {
        // 2026-07-28 over HTTP: closing the request's stream is its cancellation
        assert.equal(lines[1]?.startsWith(`aborted ${call[1]} `), true, lines.join('\n'));
      }
    } finally {
      s.kill();
      await server.stop();
    }
  });
}

test("a stdio server's OSC title sequence is shown as text, never obeyed", { skip, timeout: 60_000 }, async () => {
  // first, proof that this terminal obeys the raw sequence (so the check below can fail)
  const raw = session('mcpkit-osc-raw', "printf '\\033]0;pwned\\007raw\\n'");
  try {
    await raw.waitFor((p) => /EXIT=0/.test(p), 'the raw printf');
    assert.equal(raw.title(), 'pwned');
  } finally {
    raw.kill();
  }
  const s = session('mcpkit-osc', `${CLI} list tools ${FIXTURE}`);
  try {
    const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the end of the list');
    assert.match(done, /EXIT=0/);
    assert.ok(done.includes('\\x1b]0;pwned\\x07first-hour fixture \\x1b[31mstarting\\x1b[0m'), done);
    assert.notEqual(s.title(), 'pwned', 'the window title was not changed by the server');
  } finally {
    s.kill();
  }
});

test('a -32042 URL-required error offers the page with consent, then tries the call again', { skip, timeout: 60_000 }, async () => {
  const s = session('mcpkit-url-required', `MCPKIT_NO_BROWSER=1 ${CLI} call connect_account mode=error ${DEMO}`);
  try {
    const asked = await s.waitFor((p) => p.includes('Open this URL in your browser? [y/N] '), 'the question');
    assert.match(asked, /the server needs you to visit a page before it can answer \(URL elicitation required, error -32042\)/);
    assert.match(
      asked,
      /the server asks you to open a page on example\.com:\n {2}Connect your account to continue\n {2}https:\/\/example\.com\/connect\?session=demo/,
    );
    s.send('y', true);
    s.send('Enter');
    await s.waitFor((p) => p.includes('press Enter to try again'), 'the wait for the page');
    assert.match(s.capture(), /MCPKIT_NO_BROWSER is set; open it yourself: https:\/\/example\.com\/connect\?session=demo/);
    s.send('Enter');
    // the demo asks again on every call: the second offer proves the call was retried
    await s.waitFor((p) => p.split('Open this URL in your browser? [y/N] ').length === 3, 'the second offer');
    s.send('n', true);
    s.send('Enter');
    const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the end of the call');
    assert.match(done, /error -32042/);
    assert.match(done, /EXIT=3/);
  } finally {
    s.kill();
  }
});

const hasZsh = spawnSync('zsh', ['-c', 'exit 0']).status === 0;

test('completion zsh: an interactive zsh completes commands, options and config names', {
  skip: skip || (hasZsh ? false : 'zsh is not installed'),
  timeout: 60_000,
}, async () => {
  const bin = join(dir, 'bin');
  spawnSync('mkdir', ['-p', bin]);
  writeFileSync(join(bin, 'mcpkit'), `#!/bin/sh\nexec ${NODE} ${shellQuote(BIN)} "$@"\n`);
  chmodSync(join(bin, 'mcpkit'), 0o755);
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { weather: { command: 'x' } } }));
  const s = new TmuxSession(
    'mcpkit-zsh',
    `cd ${shellQuote(dir)} && env HOME=${shellQuote(dir)} PATH=${shellQuote(`${bin}:${process.env.PATH}`)} PS1='zsh> ' zsh -f`,
  );
  try {
    await s.waitFor((p) => p.includes('zsh> '), 'the zsh prompt');
    s.send('source <(mcpkit completion zsh); echo LOADED', true);
    s.send('Enter');
    await s.waitFor((p) => /^LOADED$/m.test(p), 'the script to load');
    const line = async (typed: string, expected: string) => {
      s.send(typed, true);
      s.send('Tab');
      await s.waitFor((p) => p.trimEnd().split('\n').at(-1)!.startsWith(`zsh> ${expected.trimEnd()}`), `"${typed}" to complete to "${expected}"`);
      s.send('C-u');
    };
    await line('mcpkit completi', 'mcpkit completion ');
    await line('mcpkit completion z', 'mcpkit completion zsh ');
    await line('mcpkit call --proto', 'mcpkit call --protocol ');
    await line('mcpkit call --protocol 2026', 'mcpkit call --protocol 2026-07-28 ');
    await line('mcpkit call wea', 'mcpkit call weather ');
    await line('mcpkit list templ', 'mcpkit list templates ');
  } finally {
    s.kill();
  }
});
