/**
 * The arguments `mcpkit run` and `mcpkit dev` share: `FILE [--http] [--port N] [--export NAME]`.
 */
import { parseArgs } from 'node:util';
import { parsePort } from './serve.js';

/** What `run` and `dev` were asked to serve, and how. */
export interface ServeArgs {
  /** The module to load. */
  file: string;
  /** Serve over Streamable HTTP instead of stdio. */
  http: boolean;
  /** The HTTP port (default 3000; 0 picks a free one). */
  port: number;
  /** The export to use instead of the default lookup. */
  exportName: string | undefined;
}

/** Parses the shared arguments; resolves `'help'` for `--help`, or a message for a usage error. */
export function parseServeArgs(argv: string[]): ServeArgs | 'help' | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { http: { type: 'boolean' }, port: { type: 'string' }, export: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    return { error: (err as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1)
    return { error: positionals.length === 0 ? 'give the module to serve: FILE' : `one FILE at a time (got ${positionals.length})` };
  const port = parsePort(values.port, 3000);
  if (port === undefined) return { error: '--port needs a number from 0 to 65535' };
  if (values.port !== undefined && !values.http) return { error: '--port applies to --http' };
  return { file: positionals[0]!, http: values.http ?? false, port, exportName: values.export };
}

/**
 * {@link parseServeArgs} for a command: prints `usage` on stdout for `--help` (resolves 0),
 * or the usage error on stderr (resolves 2); otherwise the arguments.
 */
export function serveArgsOrExit(command: string, argv: string[], usage: string): ServeArgs | number {
  const args = parseServeArgs(argv);
  if (args === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if ('error' in args) {
    process.stderr.write(`mcpkit ${command}: ${args.error}\n(see mcpkit ${command} --help)\n`);
    return 2;
  }
  return args;
}
