/**
 * The CLI in a real pseudo-terminal (tmux): the progress bar redrawn in place, a form
 * elicitation asked field by field with its defaults (SEP-1034) and enum choices, Ctrl-C
 * cancelling a long call (the server sees `notifications/cancelled`, spec: Basic ›
 * Utilities › Cancellation) with exit 130, and `mcpkit demo` telling a person at a terminal
 * that it waits for JSON-RPC on stdin. Skipped where tmux is not installed.
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { BIN, type HttpChild, hasTmux, SDK_SERVER, shellQuote, startHttpChild, TmuxSession } from '../../test/helpers/cli/cli-run.js';

const skip = hasTmux() ? false : 'tmux is not installed';
const NODE = shellQuote(process.execPath);
const CLI = `${NODE} ${shellQuote(BIN)}`;
const DEMO = `-- ${NODE} ${shellQuote(BIN)} demo`;

/** Runs `command` in tmux, then prints its exit status and keeps the pane open for capture. */
function session(name: string, command: string): TmuxSession {
  return new TmuxSession(name, `${command}; echo EXIT=$?; sleep 60`);
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-pty-'));
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the progress bar is drawn and redrawn in place, then cleared', { skip, timeout: 60_000 }, async () => {
  const s = session('mcpkit-progress', `${CLI} call slow ms=3000 ${DEMO}`);
  try {
    // part-way: a bar with a percentage strictly between 0 and 100
    const pane = await s.waitFor((p) => /\[#+-+\] +([1-9]\d?)%/.test(p), 'a part-way progress bar');
    assert.match(pane, /^\[#+-+\] +[1-9]\d?%$/m, 'the bar is on a line of its own');
    const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the end of the call');
    assert.match(done, /^waited 3000 ms$/m);
    assert.match(done, /EXIT=0/);
    assert.doesNotMatch(done, /\[#/, 'the bar was redrawn in place and cleared, never left as lines');
    assert.doesNotMatch(done, /Warning/, 'no runtime warnings on the terminal');
  } finally {
    s.kill();
  }
});

test('a form elicitation is asked field by field with its defaults and choices', { skip, timeout: 60_000 }, async () => {
  const s = session('mcpkit-elicit', `${CLI} call test_elicitation_sep1034_defaults ${DEMO}`);
  try {
    await s.waitFor((p) => p.includes('name - User name (string) [John Doe]: '), 'the first question with its default');
    s.send('Enter'); // keep the default
    await s.waitFor((p) => p.includes('age - User age (integer) [30]: '), 'the age question');
    s.send('abc', true);
    s.send('Enter');
    await s.waitFor((p) => p.includes('give a whole number'), 'the answer refused');
    s.send('31', true);
    s.send('Enter');
    await s.waitFor((p) => p.includes('score - User score (number) [95.5]: '), 'the score question');
    s.send('Enter');
    const choices = await s.waitFor((p) => p.includes('status (choice) [active]: '), 'the enum question');
    assert.match(choices, /^ {2}1\) active\n {2}2\) inactive\n {2}3\) pending$/m);
    s.send('2', true);
    s.send('Enter');
    await s.waitFor((p) => p.includes('verified - Verification status (yes/no) [yes]: '), 'the boolean question');
    s.send('n', true);
    s.send('Enter');
    await s.waitFor((p) => p.includes('Send this answer? [Y/n] '), 'the confirmation');
    s.send('Enter');
    const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the end of the call');
    const line = /Elicitation completed: action=accept, content=(\{.*?\})\s*$/ms.exec(done.replace(/\n(?!EXIT)/g, ''));
    assert.ok(line, done);
    // omitted fields got their defaults (SEP-1034), answered ones their typed values
    assert.deepEqual(JSON.parse(line[1]!), { name: 'John Doe', age: 31, score: 95.5, status: 'inactive', verified: false });
    assert.match(done, /EXIT=0/);
  } finally {
    s.kill();
  }
});

test('Ctrl-C cancels a long call: the server sees notifications/cancelled, the CLI exits 130', { skip, timeout: 60_000 }, async () => {
  const log = join(dir, 'cancel.log');
  // the server runs outside the terminal (a stdio child would get the terminal's SIGINT too)
  const server: HttpChild = await startHttpChild([SDK_SERVER, '--http'], { CANCEL_LOG: log });
  const s = session('mcpkit-cancel', `${CLI} call ${shellQuote(server.url)} wait`);
  try {
    await s.waitFor((p) => /\] +1% waiting/.test(p), 'the call to be running');
    s.send('C-c');
    const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the CLI to exit');
    assert.match(done, /mcpkit call: interrupted \(Ctrl-C\); the request was cancelled/);
    assert.match(done, /EXIT=130/);
    const deadline = Date.now() + 20_000;
    while (!(existsSync(log) && (await readFile(log, 'utf8')).includes('cancelled')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await readFile(log, 'utf8'), 'cancelled\n', 'the server aborted the request: it received notifications/cancelled');
  } finally {
    s.kill();
    await server.stop();
  }
});

test('mcpkit demo at a terminal says it waits for JSON-RPC on stdin (on stderr)', { skip, timeout: 30_000 }, async () => {
  const s = session('mcpkit-demo', `${CLI} demo 2>${shellQuote(join(dir, 'demo.err'))} >${shellQuote(join(dir, 'demo.out'))}`);
  try {
    const deadline = Date.now() + 20_000;
    const err = join(dir, 'demo.err');
    while (!(existsSync(err) && (await readFile(err, 'utf8')).includes('waiting')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(await readFile(err, 'utf8'), /waiting for JSON-RPC messages on stdin/);
    assert.equal(await readFile(join(dir, 'demo.out'), 'utf8'), '', 'stdout stays protocol-only');
  } finally {
    s.kill();
  }
});

test('Ctrl-C during a task sends tasks/cancel (2025-11-25 tasks) and exits 130', { skip, timeout: 60_000 }, async () => {
  const log = join(dir, 'audit.log');
  const server: HttpChild = await startHttpChild([join(dirname(SDK_SERVER), 'demo-audit.js')], { AUDIT_LOG: log });
  const s = session('mcpkit-task-cancel', `${CLI} call ${shellQuote(server.url)} long_running_job ms=60000 steps=100 --task --protocol 2025-11-25`);
  try {
    await s.waitFor((p) => /^task \S+: working$/m.test(p), 'the task to be working');
    s.send('C-c');
    const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the CLI to exit');
    assert.match(done, /asked the server to cancel task \S+ \(tasks\/cancel\)/);
    assert.match(done, /EXIT=130/);
    // spec 2025-11-25, Tasks › Cancelling Tasks: the requestor sends tasks/cancel
    assert.match(await readFile(log, 'utf8'), /^tasks\/cancel ok$/m);
  } finally {
    s.kill();
    await server.stop();
  }
});

test('a URL elicitation shows the URL and asks before opening anything', { skip, timeout: 60_000 }, async () => {
  for (const [answer, action] of [
    ['n', 'decline'],
    ['y', 'accept'],
  ] as const) {
    // MCPKIT_NO_BROWSER: "yes" prints the URL instead of starting a browser in the test
    const s = session(`mcpkit-url-${answer}`, `MCPKIT_NO_BROWSER=1 ${CLI} call connect_account --protocol 2025-11-25 ${DEMO}`);
    try {
      const asked = await s.waitFor((p) => p.includes('Open this URL in your browser? [y/N] '), 'the question');
      assert.match(
        asked,
        /the server asks you to open a page on example\.com:\n {2}Connect your account to continue\n {2}https:\/\/example\.com\/connect\?session=demo/,
      );
      s.send(answer, true);
      s.send('Enter');
      const done = await s.waitFor((p) => /EXIT=\d+/.test(p), 'the end of the call');
      assert.match(done, new RegExp(`action=${action} `));
      if (answer === 'y') assert.match(done, /MCPKIT_NO_BROWSER is set; open it yourself: https:\/\/example\.com\/connect\?session=demo/);
    } finally {
      s.kill();
    }
  }
});
