import assert from 'node:assert/strict';
import { test } from 'node:test';
import { START_COMMANDS, timeStart } from './cli-start.js';

test('the cli section times each command it reports (node -e 0 to exit, mcpkit --help to first output)', { timeout: 60_000 }, async () => {
  assert.deepEqual(
    START_COMMANDS.map((c) => c.name),
    ['node -e 0', 'mcpkit --help', 'mcpkit list -- mcpkit demo'],
  );
  for (const command of START_COMMANDS.slice(0, 2)) {
    const ms = await timeStart(command, 30_000);
    assert.ok(ms > 0 && Number.isFinite(ms), `${command.name}: ${ms}`);
  }
});

test('a command that fails is reported, not timed', { timeout: 30_000 }, async () => {
  await assert.rejects(timeStart({ name: 'fails', args: ['-e', 'process.exit(3)'], until: 'exit' }, 10_000), /exit code 3/);
  await assert.rejects(timeStart({ name: 'silent', args: ['-e', '0'], until: 'first-output' }, 10_000), /printed nothing/);
});
