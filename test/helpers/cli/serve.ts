/**
 * Test helpers for `mcpkit run` / `mcpkit dev`: server modules written to a temporary folder
 * (importing, by file URL, the `McpServer` of dist/: the library build the CLI under test
 * runs), and the CLI started as a real child process with its stdout and stderr collected.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST } from '../repo.js';
import { MCPKIT_BIN, tempDir } from './install.js';

/** The built server entry point, as an import specifier usable from any folder. */
export const SERVER_IMPORT = pathToFileURL(join(DIST, 'server', 'index.js')).href;

/**
 * A folder with `server.ts` (a typed ESM module, default-exporting a server whose tool
 * `hello` answers `greeting()` from `./greet.js`) and `greet.ts` answering `text`.
 */
export function serverProject(text: string): { dir: string; server: string; greet: string } {
  const dir = tempDir('mcpkit-serve-');
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
  const server = join(dir, 'server.ts');
  writeFileSync(
    server,
    [
      `import { McpServer } from ${JSON.stringify(SERVER_IMPORT)};`,
      `import { greeting } from './greet.js';`,
      `const server: McpServer = new McpServer({ name: 'serve-test', version: '1.0.0' });`,
      `server.registerTool('hello', { description: 'says hello', inputSchema: { type: 'object', properties: {} } }, async () => ({ content: [{ type: 'text', text: greeting() }] }));`,
      'export default server;',
      '',
    ].join('\n'),
  );
  const greet = join(dir, 'greet.ts');
  writeGreeting(greet, text);
  return { dir, server, greet };
}

/** Rewrites `greet.ts` to answer `text`. */
export function writeGreeting(path: string, text: string): void {
  writeFileSync(path, `export const greeting = (): string => ${JSON.stringify(text)};\n`);
}

/** A running CLI child with what it printed so far. */
export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Polls until `pattern` matches stderr (generous bound); returns the match. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Polls until `pattern` matches stdout. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `mcpkit ...args` with piped stdio. */
export function startCli(args: string[], cwd: string): RunningCli {
  const child = spawn(process.execPath, [MCPKIT_BIN, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = async (read: () => string, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = read().match(pattern);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; stderr:\n${err}\nstdout:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStderr: (pattern, timeoutMs) => waitFor(() => err, pattern, timeoutMs),
    waitForStdout: (pattern, timeoutMs) => waitFor(() => out, pattern, timeoutMs),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The text of the first content block of a tool result. */
export function firstText(result: { content?: unknown }): string | undefined {
  const block = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  return block?.type === 'text' ? block.text : undefined;
}
