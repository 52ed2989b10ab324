/**
 * The command line of the client commands: `node:util` `parseArgs` for the options every
 * client command shares plus each command's own, and the split at `--` that separates
 * mcpkit's arguments from a stdio server's command line (which is never parsed by us).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/** Option definitions in `parseArgs` form. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Options every client command understands (documented in {@link CLIENT_OPTIONS_HELP}). */
export const CLIENT_OPTIONS: OptionSpec = {
  json: { type: 'boolean' },
  config: { type: 'string' },
  protocol: { type: 'string' },
  header: { type: 'string', multiple: true },
  env: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  'log-level': { type: 'string' },
  root: { type: 'string', multiple: true },
  'sampling-command': { type: 'string' },
  save: { type: 'string' },
  transport: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
};

/** Help text of {@link CLIENT_OPTIONS}, shared by every client command's `--help`. */
export const CLIENT_OPTIONS_HELP = `Target (one of):
  URL                        a Streamable HTTP endpoint (falls back to legacy HTTP+SSE)
  NAME                       a server of an mcpServers config file (--config FILE, default ./.mcp.json)
  -- COMMAND [ARGS...]       a stdio server, started directly (no shell); everything after -- is its command line

Options:
  --json                     print the result as JSON (one document on stdout) for scripts
  --config FILE              the mcpServers config file NAME is looked up in
  --protocol VERSION|auto    the protocol revision (e.g. 2025-11-25, 2026-07-28); default auto:
                             probe for 2026-07-28, fall back to initialize for older servers
  --transport auto|http|sse  for URLs: Streamable HTTP with legacy fallback (default), or only one
  --header 'Name: value'     an HTTP header on every request (repeatable)
  --env KEY=VALUE            an environment variable for a stdio server (repeatable)
  --timeout MS               per-request timeout in milliseconds, reset by progress (default 60000)
  --log-level LEVEL          ask the server for log messages from LEVEL up (debug, info, notice,
                             warning, error, critical, alert, emergency) and show them on stderr
  --root DIR                 offer DIR to the server as a root (repeatable)
  --sampling-command CMD     answer sampling requests with CMD (it reads the request as JSON on
                             stdin and writes the answer text, or a CreateMessageResult, on stdout);
                             without it sampling requests are declined
  --save DIR                 write image, audio and binary content to files in DIR
  -q, --quiet                hide a stdio server's stderr (shown by default, escape sequences made visible)
  -h, --help                 show this help
`;

/** What {@link parseCommandLine} found. */
export interface CommandLine {
  /** Option values by name. */
  values: Record<string, string | boolean | string[] | undefined>;
  /** Positional arguments before `--`. */
  positionals: string[];
  /** Everything after the first `--` (a stdio server's command line), undefined without `--`. */
  command: string[] | undefined;
}

/**
 * Parses `argv` (a command's arguments) with the shared options plus `own`. Everything after
 * the first `--` is returned untouched as {@link CommandLine.command}. Throws
 * {@link UsageError} for an unknown option or a missing option value.
 */
export function parseCommandLine(argv: readonly string[], own: OptionSpec = {}): CommandLine {
  const dash = argv.indexOf('--');
  const mine = dash < 0 ? [...argv] : argv.slice(0, dash);
  const command = dash < 0 ? undefined : argv.slice(dash + 1);
  try {
    const parsed = parseArgs({ args: mine, options: { ...CLIENT_OPTIONS, ...own }, allowPositionals: true, strict: true });
    return { values: parsed.values as CommandLine['values'], positionals: parsed.positionals, command };
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

/** A string option's value, or undefined. */
export function stringOption(line: CommandLine, name: string): string | undefined {
  const v = line.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable string option's values (empty when absent). */
export function listOption(line: CommandLine, name: string): string[] {
  const v = line.values[name];
  return Array.isArray(v) ? v : [];
}

/**
 * A non-negative integer option, `fallback` when absent. Throws {@link UsageError} for
 * anything but digits, or a value above `max`.
 */
export function integerOption(line: CommandLine, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = stringOption(line, name);
  if (v === undefined) return fallback;
  if (!/^\d{1,15}$/.test(v) || Number(v) > max) throw new UsageError(`--${name} needs a whole number from 0 to ${max}, not ${JSON.stringify(v)}`);
  return Number(v);
}
