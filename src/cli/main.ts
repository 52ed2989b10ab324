/**
 * The `mcpkit` command line: a small dispatcher. Each command lives in its own module,
 * loaded only when it runs (so `mcpkit --help` and every command start fast), exporting
 * `run(argv)` that resolves with the exit code (see exit-codes.ts and docs/cli.md).
 */
import { USAGE } from './help.js';

/** Runs the CLI with `argv` (without node and script). Resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'list':
      return (await import('./commands/list.js')).run(rest);
    case 'call':
      return (await import('./commands/call.js')).run(rest);
    case 'read':
      return (await import('./commands/read.js')).run(rest);
    case 'prompt':
      return (await import('./commands/prompt.js')).run(rest);
    case 'complete':
      return (await import('./commands/complete.js')).run(rest);
    case 'ping':
      return (await import('./commands/ping.js')).run(rest);
    case 'tasks':
      return (await import('./commands/tasks.js')).run(rest);
    case 'types':
      return (await import('./commands/types.js')).run(rest);
    case 'login':
      return (await import('./commands/login.js')).run(rest);
    case 'logout':
      return (await import('./commands/logout.js')).run(rest);
    case 'demo':
      return (await import('./commands/demo.js')).run(rest);
    case 'proxy':
      return (await import('./commands/proxy.js')).run(rest);
    case 'gateway':
      return (await import('./commands/gateway.js')).run(rest);
    case 'run':
      return (await import('./serve/run-command.js')).run(rest);
    case 'dev':
      return (await import('./serve/dev-command.js')).run(rest);
    case 'install':
      return (await import('./install/install-command.js')).run(rest);
    case 'uninstall':
      return (await import('./install/uninstall-command.js')).run(rest);
    case 'installed':
      return (await import('./install/installed-command.js')).run(rest);
    case 'completion':
      return (await import('./commands/completion.js')).run(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      (command === undefined ? process.stderr : process.stdout).write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`mcpkit: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}
