/**
 * Loading a user's server module for `mcpkit run` and `mcpkit dev`.
 *
 * Lookup, in order (the first that exists wins): the export named by `--export NAME`, else
 * the `default` export, then `server`, then `createServer`. The value is either an
 * `McpServer` (anything with `connect()` and `registerTool()`), or a function (sync or async,
 * called once with no arguments) that returns one.
 *
 * TypeScript (`.ts`, `.mts`, `.cts`, `.tsx`) runs without a build step through the optional
 * peer dependency `tsx` (esbuild: full TypeScript syntax, `./x.js` specifiers that name
 * `x.ts` files, ESM and CommonJS). When it is not installed and Node strips types itself
 * (`process.features.typescript`, Node 22.18+ / 23.6+), Node's own type stripping is used;
 * otherwise loading fails with a message saying to install tsx.
 */
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServer } from '../../server/server.js';
import { libraryRoot } from '../library-root.js';
import { addCaret, commonJsHint, locateSyntaxError } from './load-errors.js';

/** Loading failed; `message` says why and is meant for the terminal (it may hold the module's own stack). */
export class ServerLoadError extends Error {
  override name = 'ServerLoadError';
}

/** File extensions that need TypeScript support. */
export const TYPESCRIPT_EXTENSIONS: ReadonlySet<string> = new Set(['.ts', '.mts', '.cts', '.tsx']);

/** The export names tried when `--export` is not given, in order. */
export const EXPORT_LOOKUP = ['default', 'server', 'createServer'] as const;

let typescriptReady: Promise<'tsx' | 'node'> | undefined;

/**
 * Makes `.ts` files importable in this process (once): registers tsx's ESM and CommonJS
 * hooks, or relies on Node's own type stripping. Throws {@link ServerLoadError} when neither
 * is available.
 */
export function enableTypeScript(): Promise<'tsx' | 'node'> {
  return (typescriptReady ??= (async () => {
    try {
      const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
      esm.register();
      cjs.register();
      return 'tsx';
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw err;
    }
    if ((process.features as unknown as Record<string, unknown>).typescript) return 'node';
    typescriptReady = undefined;
    throw new ServerLoadError(
      'running .ts files needs the optional dependency tsx: install tsx to run .ts files (npm install --save-dev tsx), or build the file to JavaScript first',
    );
  })());
}

/** True for anything that looks like an mcpkit `McpServer`. */
function isServer(value: unknown): value is McpServer {
  return (
    typeof value === 'object' && value !== null && typeof (value as McpServer).connect === 'function' && typeof (value as McpServer).registerTool === 'function'
  );
}

/** True for the official SDK's `McpServer` (it wraps a low-level `server` with `setRequestHandler`). */
function isOfficialSdkServer(value: unknown): boolean {
  const inner = (value as { server?: { setRequestHandler?: unknown } } | null)?.server;
  return typeof inner?.setRequestHandler === 'function';
}

/**
 * What a module gave: its exported server, or nothing to connect because the module
 * connected a server to stdio itself while it loaded (as README's "A server in ten lines"
 * does: `await server.connect(new StdioServerTransport())`).
 */
export type LoadedServer = { kind: 'exported'; server: McpServer } | { kind: 'self-connected' };

/** How many listeners read this process's stdin (a stdio server transport adds one). */
function stdinReaders(): number {
  return process.stdin.listenerCount('data') + process.stdin.listenerCount('readable');
}

/** The message for a module that connected itself when mcpkit cannot serve it that way. */
export function selfConnectedMessage(file: string, how: string): string {
  return (
    `${file} connects its server to stdio itself while it loads (server.connect(new StdioServerTransport())), so ${how}. ` +
    'Replace that line with "export default server;" and mcpkit connects it (over stdio, or --http), or start the file with node (or tsx) directly'
  );
}

/**
 * Imports `file` and returns its server by the lookup in the module note, or
 * `{ kind: 'self-connected' }` when the module connected a server to this process's stdio
 * itself (then nothing must connect it again). Throws {@link ServerLoadError} when the file
 * cannot be loaded (the module's own error is in the message, with file:line and a caret for
 * a syntax error, and what to change for a module loaded as CommonJS), exports nothing
 * usable, or its factory fails.
 */
export async function loadServer(file: string, exportName?: string): Promise<LoadedServer> {
  const path = resolve(file);
  if (TYPESCRIPT_EXTENSIONS.has(extname(path))) await enableTypeScript();
  const readersBefore = stdinReaders();
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    throw new ServerLoadError(`cannot load ${file}: ${describeLoadError(err, path)}`);
  }
  if (stdinReaders() > readersBefore) return { kind: 'self-connected' };
  const names = exportName !== undefined ? [exportName] : EXPORT_LOOKUP;
  const name = names.find((n) => module[n] !== undefined);
  if (name === undefined) {
    throw new ServerLoadError(
      exportName !== undefined
        ? `${file} has no export named ${JSON.stringify(exportName)}`
        : `${file} exports no server: export an McpServer (or a function returning one) as the default export, or as "server" or "createServer"`,
    );
  }
  let value = module[name];
  if (typeof value === 'function') {
    try {
      value = await (value as () => unknown)();
    } catch (err) {
      throw new ServerLoadError(`the factory ${JSON.stringify(name)} of ${file} failed: ${describeError(err)}`);
    }
  }
  if (isOfficialSdkServer(value)) {
    throw new ServerLoadError(
      `the export ${JSON.stringify(name)} of ${file} is a server of the official SDK (@modelcontextprotocol/sdk); mcpkit run and dev serve mcpkit's McpServer (import it from 'mcpkit/server')`,
    );
  }
  if (!isServer(value))
    throw new ServerLoadError(
      `the export ${JSON.stringify(name)} of ${file} is not an McpServer${typeof module[name] === 'function' ? ' (the function returned something else)' : ''}`,
    );
  return { kind: 'exported', server: value };
}

/**
 * A module's load error for the terminal: {@link describeError}, with the location and caret
 * of a syntax error kept (see load-errors.ts) and, for a module loaded as CommonJS, what to
 * change.
 */
export function describeLoadError(err: unknown, path: string): string {
  let text = describeError(err);
  if (err instanceof SyntaxError && !/:\d+/.test(text.split('\n')[0] ?? '')) {
    const located = locateSyntaxError(path);
    if (located !== undefined) text = located;
  } else text = addCaret(text);
  const hint = commonJsHint(path, text);
  return hint === undefined ? text : `${text}\n${hint}`;
}

/** Most stack frames shown for a module's error. */
const MAX_FRAMES = 10;

/**
 * An error for the terminal: its message (with esbuild's file:line:column), followed by the
 * stack frames in the user's own files — frames inside `node_modules` and Node's internals
 * (mcpkit's, tsx's, esbuild's) are left out, at most {@link MAX_FRAMES}.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const lines = (err.stack ?? `${err.name}: ${err.message}`).split('\n');
  const isFrame = (line: string): boolean => /^\s+at /.test(line);
  const head = lines.filter((line) => !isFrame(line));
  const own = lines.filter(
    (line) => isFrame(line) && !line.includes('/node_modules/') && !line.includes('node:') && !MCPKIT_DIRS.some((dir) => line.includes(dir)),
  );
  return [...head, ...own.slice(0, MAX_FRAMES)].join('\n');
}

/**
 * mcpkit's compiled code (the library root) and its bin script beside it: frames there are
 * not the user's code. As URL paths ending in `/`, the form ESM stack frames show; none when
 * the library root cannot be found (frames are then filtered by the other rules only).
 */
const MCPKIT_DIRS: readonly string[] = (() => {
  const root = libraryRoot(import.meta.url);
  return root === undefined ? [] : [root, join(root, '..', 'bin')].map((dir) => pathToFileURL(dir).pathname.replace(/\/?$/, '/'));
})();
