/**
 * Shared by the stdio abuse tests: the demo server as a child process speaking over its
 * stdin/stdout (`node bin/mcpkit.js demo`, after the build), and its teardown.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { MCPKIT_BIN } from '../helpers/repo.js';

const BIN = MCPKIT_BIN;

/** Starts the demo over stdio; stdin write errors (the child gone) are swallowed. */
export function spawnDemo(): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [BIN, 'demo'], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => {});
  return child;
}

/** Ends the child's stdin and waits for it to exit, killing it after 5 s. */
export async function stopChild(child: ChildProcessWithoutNullStreams): Promise<void> {
  child.stdin.end();
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The `initialize` request line of a 2025-11-25 client (id 0). */
export function initializeLine(name: string): string {
  return (
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } },
    }) + '\n'
  );
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
