/**
 * What the `install`, `uninstall` and `installed` commands share: the exit codes, the
 * `--client` / `--config` options, and turning errors into one line on stderr.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

import { safeText } from './display.js';
import { InstallInputError } from './entry.js';

/** Writes `text` on stderr with every control, bidi and invisible character escaped (see {@link safeText}). */
export function printErr(text: string): void {
  process.stderr.write(safeText(text));
}

/** Writes `text` on stdout with every control, bidi and invisible character escaped (see {@link safeText}). */
export function printOut(text: string): void {
  process.stdout.write(safeText(text));
}

/** Exit codes of the install commands. */
export const Exit = {
  /** The config was changed, or listed. */
  ok: 0,
  /** The config file could not be read or written, changed while waiting, or has no server to remove. */
  failed: 1,
  /** Wrong arguments or input (nothing was written). */
  usage: 2,
  /** The user did not consent, or there was no terminal to ask and no `--yes` (nothing was written). */
  cancelled: 3,
} as const;

/** The options every install command takes. */
export const TARGET_OPTIONS = {
  client: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionsConfig;

/**
 * `parseArgs` in strict mode; an unknown option or a missing value becomes an
 * {@link InstallInputError} with Node's message.
 */
export function parseOptions<T extends OptionsConfig>(
  args: string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new InstallInputError((err as Error).message);
  }
}

/**
 * {@link parseOptions}, but prints `usage` on stdout and resolves undefined when `--help` is
 * among the options, so the caller returns {@link Exit.ok}.
 */
export function parseOrHelp<T extends OptionsConfig & typeof TARGET_OPTIONS>(
  args: string[],
  options: T,
  usage: string,
): ReturnType<typeof parseOptions<T>> | undefined {
  const parsed = parseOptions(args, options);
  if (!(parsed.values as { help?: boolean }).help) return parsed;
  printOut(usage);
  return undefined;
}

/**
 * Runs a command body, turning {@link InstallInputError} into a usage line (exit 2) and any
 * other error into a failure line (exit 1) prefixed with `mcpkit <command>:`.
 */
export async function runCommand(command: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof InstallInputError) {
      printErr(`mcpkit ${command}: ${err.message}\n(see mcpkit ${command} --help)\n`);
      return Exit.usage;
    }
    const code = (err as NodeJS.ErrnoException).code;
    printErr(`mcpkit ${command}: ${code !== undefined ? `${code}: ` : ''}${(err as Error).message}\n`);
    return Exit.failed;
  }
}
