/** Starts the fixture instance process (`instance.ts`) and waits for its "ready" line (bounded). */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'instance.js');

/** Runs `instance.js` with `args`; resolves with the child once it printed "ready". */
export function spawnInstance(args: string[], timeoutMs = 15_000): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the instance process did not get ready in ${timeoutMs} ms: ${out}`));
    }, timeoutMs);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('ready\n')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the instance process exited (${code}): ${out}`));
    });
  });
}

/** Kills `child` with SIGKILL and resolves when it is gone. */
export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}
