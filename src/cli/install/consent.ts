/**
 * The consent step of `mcpkit install` (SEP-1024, "Pre-Configuration Consent"): before the
 * config is written, the user sees the exact command with every argument, untruncated and
 * quoted (hidden characters escaped), the environment variables it gets (secret values
 * masked), a clear warning that the client will run this code on the machine, and must answer
 * "yes" or "y". Any other answer, an empty line, end of input (Ctrl-D) or Ctrl-C cancels.
 * Without a terminal on stdin and stderr nothing is asked: the install is refused unless
 * `--yes` was given.
 */
import { createInterface } from 'node:readline';
import { analyzeCommand } from './danger.js';
import { describeVariable, escapeNonAscii, hasHiddenCharacters, isCodeLoadingEnv, quote, quoteCommandLine } from './display.js';
import type { ServerEntry } from './entry.js';

/** Default for the longest consent answer read, in characters. */
export const MAX_ANSWER_LENGTH = 1024;

/**
 * The consent screen for `entry` going into `path` for `client`, as lines of text. When
 * `path` is a symbolic link (or lies in a linked folder), `target` is the file that will
 * really change, and the screen names it.
 */
export function describeInstall(entry: ServerEntry, client: string, path: string, replaces: boolean, target?: string): string {
  const lines: string[] = [];
  lines.push(`mcpkit install: ${replaces ? 'replace' : 'add'} the MCP server ${quote(entry.name)} in ${quote(path)} (${client})`);
  if (target !== undefined && target !== path)
    lines.push(`  NOTE: ${quote(path)} is a symbolic link (or in a linked folder): the file changed is ${quote(target)}`);
  lines.push('');
  if (entry.command !== undefined) {
    const analysis = analyzeCommand(entry.command, entry.args);
    const count = `${entry.args.length} argument${entry.args.length === 1 ? '' : 's'}`;
    const how =
      analysis.scripts.length > 0 ? `${count}; it starts a shell or interpreter that runs the inline script in it` : `${count}, run directly, no shell`;
    lines.push(`  ${client} will run this command (${how}):`);
    lines.push('');
    lines.push(`    ${quoteCommandLine(entry.command, entry.args)}`);
    lines.push('');
    for (const danger of analysis.dangers) lines.push(`  DANGER: ${danger.text}`);
    if (analysis.dangers.length > 0) lines.push('');
    if (/[^\x20-\x7e]/.test(entry.command))
      lines.push(`  NOTE: the program name holds characters other than plain ASCII (a look-alike name?): ${quote(escapeNonAscii(entry.command))}`);
    // a package a runner fetches (npx -y @scope/fіlesystem) is an argument: look-alikes there too
    const nonAscii = entry.args.filter((a) => /[^\x20-\x7e]/.test(a));
    if (nonAscii.length > 0) {
      const shown = nonAscii
        .slice(0, MAX_NOTED)
        .map((a) => quote(escapeNonAscii(a)))
        .join(', ');
      lines.push(
        `  NOTE: ${nonAscii.length} argument${nonAscii.length === 1 ? '' : 's'} hold${nonAscii.length === 1 ? 's' : ''} characters other than plain ASCII (a look-alike name?): ${shown}${nonAscii.length > MAX_NOTED ? ', ...' : ''}`,
      );
    }
    if (entry.cwd !== undefined) lines.push(`  in the folder ${quote(entry.cwd)}`);
    const names = Object.keys(entry.env);
    if (names.length === 0) lines.push('  with no extra environment variables');
    else {
      lines.push(`  with ${names.length} environment variable${names.length === 1 ? '' : 's'}:`);
      for (const name of names) lines.push(`    ${describeVariable(name, entry.env[name]!)}`);
    }
  } else {
    lines.push(`  ${client} will connect to the remote server ${quote(entry.url!)} (${entry.transport === 'sse' ? 'legacy HTTP+SSE' : 'Streamable HTTP'})`);
    const host = hostOf(entry.url!);
    if (/[^\x20-\x7e]/.test(entry.url!) || host.split('.').some((label) => label.startsWith('xn--'))) {
      lines.push(
        `  NOTE: the address holds characters other than plain ASCII (a look-alike name?): the host is really ${quote(host)}, the address ${quote(escapeNonAscii(entry.url!))}`,
      );
    }
    const names = Object.keys(entry.headers);
    if (names.length > 0) {
      lines.push(`  sending ${names.length} header${names.length === 1 ? '' : 's'}:`);
      for (const name of names) lines.push(`    ${describeVariable(name, entry.headers[name]!)}`);
    }
  }
  for (const input of entry.inputs) {
    lines.push(
      `  ${client} will ask you for ${quote(input.id)}${input.description !== undefined ? ` (${quote(input.description)})` : ''}${input.password ? ', typed hidden' : ''} when it starts the server`,
    );
  }
  if (entry.ignored.length > 0) lines.push(`  ignored fields of the input (not written): ${entry.ignored.map(quote).join(', ')}`);
  const texts = [
    entry.name,
    entry.command ?? '',
    ...entry.args,
    ...Object.entries(entry.env).flat(),
    entry.url ?? '',
    ...Object.entries(entry.headers).flat(),
    entry.cwd ?? '',
  ];
  if (texts.some(hasHiddenCharacters)) lines.push("  NOTE: some text above holds invisible or control characters, shown as $'\\...' escapes.");
  if (Object.keys(entry.env).some(isCodeLoadingEnv)) lines.push('  NOTE: an environment variable above changes which code the command loads.');
  lines.push('');
  if (entry.command !== undefined) {
    lines.push(`  WARNING: this will run code on this machine. Each time ${client} starts this server it runs`);
    lines.push("  the command above with your user's permissions: it can read, change or delete your files");
    lines.push('  and send them anywhere. Install it only if you trust where it came from.');
  } else {
    lines.push(`  WARNING: ${client} will send your requests and the data in them to this server.`);
    lines.push('  Add it only if you trust where it came from.');
  }
  return lines.join('\n') + '\n';
}

/** Most arguments listed in the look-alike note. */
const MAX_NOTED = 8;

/** The host of an absolute URL as the client will resolve it (international names in their xn-- form). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/** True when `answer` is an explicit yes: "y" or "yes" in any case, surrounding blanks ignored. */
export function isAffirmative(answer: string): boolean {
  return /^(y|yes)$/i.test(answer.trim());
}

/** True when the user can be asked: stdin and stderr are terminals. */
export function canAsk(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/**
 * Asks `question` on stderr and reads one line from stdin. Resolves true only for an
 * affirmative answer; false for anything else, end of input, Ctrl-C, or a line longer than
 * {@link MAX_ANSWER_LENGTH}.
 */
export function askYes(question: string): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, terminal: false });
    let done = false;
    const finish = (yes: boolean): void => {
      if (done) return;
      done = true;
      process.off('SIGINT', onInterrupt);
      rl.close();
      process.stdin.pause();
      if (!yes) process.stderr.write('\n');
      resolve(yes);
    };
    const onInterrupt = (): void => finish(false);
    process.once('SIGINT', onInterrupt);
    rl.once('line', (line) => finish(line.length <= MAX_ANSWER_LENGTH && isAffirmative(line)));
    rl.once('close', () => finish(false));
    process.stderr.write(question);
  });
}
