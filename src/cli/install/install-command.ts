/**
 * `mcpkit install`: adds one MCP server to a client's config file, from command-line
 * arguments, a JSON snippet or an install link, after showing exactly what will run and
 * getting an explicit yes (see consent.ts). It never runs the command it installs.
 */

import { isObject } from '../../jsonrpc/values.js';
import { CLIENT_NAMES, chooseTarget } from './clients.js';
import { Exit, type parseOptions, parseOrHelp, printErr, runCommand, TARGET_OPTIONS } from './common.js';
import { ConfigChangedError, type ConfigFile, checkUniqueName, commitChange, editText, readConfigFile, serversOf } from './config-file.js';
import { askYes, canAsk, describeInstall } from './consent.js';
import { addPair, checkUrl, emptyEntry, type InputVariable, InstallInputError, type ServerEntry } from './entry.js';
import { entryFromLink, entryFromSnippet, isInstallLink } from './sources.js';

/** `mcpkit install --help`. */
export const INSTALL_USAGE = `Usage:
  mcpkit install (--client NAME | --config FILE) --name NAME [options] -- COMMAND [ARG...]
  mcpkit install (--client NAME | --config FILE) --name NAME [options] URL
  mcpkit install (--client NAME | --config FILE) [--name NAME] [options] --json SNIPPET
  mcpkit install (--client NAME | --config FILE) [--name NAME] [options] LINK

Adds an MCP server to a client's config file. Before writing anything it shows the
exact command with every argument, the environment variables it sets (secret values
masked) and a warning, and asks you to type "yes". It never runs the command.

Where:
  --client NAME     ${CLIENT_NAMES.join(', ')}
                    (uses that client's default config file and format)
  --config FILE     the config file to change (with --client: that client's format;
                    alone: a generic {"mcpServers": {...}} file)
What:
  -- COMMAND ARG... a local server: everything after -- is the command and its arguments
  URL               a remote server (http:// or https://)
  --json SNIPPET    {"name":..,"command":..,"args":[..],"env":{..}}, {"mcpServers":{..}},
                    {"NAME": {...}}, or a bare {"command":..} with --name
  LINK              cursor://anysphere.cursor-deeplink/mcp/install?name=..&config=<base64>
                    or vscode:mcp/install?<json>
Options:
  --name NAME       the server's name in the config (letters, digits, _ . @ -)
  -e, --env K=V     set an environment variable for the command (repeatable)
  --header 'K: V'   send a header to a remote server (repeatable)
  --cwd DIR         working directory for the command (VS Code, Gemini CLI, --config)
  --sse             the URL is a legacy HTTP+SSE endpoint
  --force           replace a server of the same name
  -y, --yes         do not ask (needed when there is no terminal to ask on)

Exit codes: 0 installed, 1 the file could not be read or written (or changed meanwhile),
2 wrong arguments or input, 3 cancelled (no consent, or no terminal and no --yes).
Nothing is written unless the exit code is 0. The previous file is kept as FILE.bak.
JSON with comments (JSONC) is fine: only the new entry's text is added, nothing else changes.
Concurrent installs into one file wait for each other (lock file FILE.lock).

Examples:
  mcpkit install --client cursor --name files -- npx -y @modelcontextprotocol/server-filesystem ~/notes
  mcpkit install --client vscode --name weather -e API_KEY=sk-123 -- node ./weather.js
  mcpkit install --client claude-code --name docs https://example.com/mcp
  mcpkit install --config ./mcp.json --json '{"name":"demo","command":"npx","args":["mcpkit","demo"]}'
  mcpkit install --client cursor 'cursor://anysphere.cursor-deeplink/mcp/install?name=demo&config=eyJjb21tYW5kIjoibnB4In0='
  mcpkit install --client vscode 'vscode:mcp/install?%7B%22name%22%3A%22demo%22%2C%22command%22%3A%22npx%22%7D'
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  name: { type: 'string' },
  env: { type: 'string', short: 'e', multiple: true },
  header: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  json: { type: 'string' },
  sse: { type: 'boolean' },
  force: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
} as const;

/** Runs `mcpkit install` with its arguments; resolves with the exit code (see {@link Exit}). */
export function run(argv: string[]): Promise<number> {
  return runCommand('install', async () => {
    const dashes = argv.indexOf('--');
    const before = dashes < 0 ? argv : argv.slice(0, dashes);
    const command = dashes < 0 ? undefined : argv.slice(dashes + 1);
    const parsed = parseOrHelp(before, OPTIONS, INSTALL_USAGE);
    if (parsed === undefined) return Exit.ok;
    const { values, positionals } = parsed;
    const entry = entryFromInput(values, positionals, command);
    const target = chooseTarget(values.client, values.config);
    const file = await readConfigFile(target.path);
    const key = target.format.serversKey;
    const servers = serversOf(file, key) ?? {};
    checkUniqueName(file, key, entry.name);
    const replaces = Object.hasOwn(servers, entry.name);
    if (replaces && !values.force) {
      throw new InstallInputError(`${target.path} already has a server named ${JSON.stringify(entry.name)}; use --force to replace it, or pick another --name`);
    }
    const agreed = replaces ? JSON.stringify(servers[entry.name]) : undefined;
    const json = target.format.toJson(entry);
    const vscode = target.format.id === 'vscode';
    if (vscode) inputsToAdd(file.data, entry.inputs, target.path);
    else if (entry.inputs.length > 0) {
      entry.ignored.push('inputs');
      entry.inputs = [];
    }
    printErr(describeInstall(entry, target.format.label, target.path, replaces, file.target));
    if (!values.yes) {
      if (!canAsk()) {
        printErr(
          '\nmcpkit install: refusing: there is no terminal to ask for consent on. Nothing was written.\nRun it in a terminal, or pass --yes if you have checked the command above.\n',
        );
        return Exit.cancelled;
      }
      if (!(await askYes('\nType "yes" to install it, anything else cancels: '))) {
        printErr('mcpkit install: cancelled. Nothing was written.\n');
        return Exit.cancelled;
      }
    }
    const backup = await commitChange(file, (current: ConfigFile, unchanged: boolean) => {
      const now = serversOf(current, key) ?? {};
      checkUniqueName(current, key, entry.name);
      const present = Object.hasOwn(now, entry.name);
      if (!unchanged && (present !== replaces || (present && JSON.stringify(now[entry.name]) !== agreed))) {
        throw new ConfigChangedError(
          `${target.path} changed while mcpkit was waiting: ${present ? `it now holds ${replaces ? 'another' : 'a'} server named ${JSON.stringify(entry.name)}` : `the server ${JSON.stringify(entry.name)} is gone`}; nothing was written, run the command again`,
        );
      }
      let text = editText(current, current.text, [key, entry.name], json);
      if (vscode) for (const input of inputsToAdd(current.data, entry.inputs, target.path)) text = editText(current, text, ['inputs', -1], input);
      return text;
    });
    printErr(
      `mcpkit install: ${replaces ? 'replaced' : 'added'} ${JSON.stringify(entry.name)} in ${file.target}${backup ? ` (previous file kept as ${backup})` : ''}. Restart ${target.format.label} to load it.\n`,
    );
    return Exit.ok;
  });
}

/**
 * The inputs of `wanted` that a VS Code file does not define yet (by id; an id already there
 * keeps its definition). Throws {@link InstallInputError} when the file's `inputs` is not an array.
 */
function inputsToAdd(data: Record<string, unknown>, wanted: InputVariable[], path: string): InputVariable[] {
  const existing = data.inputs;
  if (existing !== undefined && !Array.isArray(existing)) throw new InstallInputError(`${path}: "inputs" is not an array; not touching the file`);
  const ids = new Set((existing ?? []).filter(isObject).map((i) => i.id));
  return wanted.filter((input) => !ids.has(input.id));
}

type InstallValues = ReturnType<typeof parseOptions<typeof OPTIONS>>['values'];

/** The entry from exactly one input form, with `--env`, `--header`, `--cwd` and `--sse` applied. */
function entryFromInput(values: InstallValues, positionals: string[], command: string[] | undefined): ServerEntry {
  const forms = [command !== undefined, values.json !== undefined, positionals.length > 0].filter(Boolean).length;
  if (forms !== 1) throw new InstallInputError('give exactly one of: -- COMMAND ARG..., a URL, --json SNIPPET, or an install link');
  if (positionals.length > 1) throw new InstallInputError(`one URL or link at a time (got ${positionals.length}); put a command and its arguments after --`);
  let entry: ServerEntry;
  if (command !== undefined) {
    if (command.length === 0 || command[0] === '') throw new InstallInputError('nothing after --: give the command to run');
    if (values.name === undefined) throw new InstallInputError('--name NAME is needed with a command');
    entry = { ...emptyEntry(values.name), command: command[0]!, args: command.slice(1) };
  } else if (values.json !== undefined) {
    entry = entryFromSnippet(values.json, values.name);
  } else if (isInstallLink(positionals[0]!)) {
    entry = entryFromLink(positionals[0]!, values.name);
  } else if (/^https?:\/\//i.test(positionals[0]!)) {
    if (values.name === undefined) throw new InstallInputError('--name NAME is needed with a URL');
    entry = { ...emptyEntry(values.name), url: checkUrl(positionals[0]!, 'the URL'), transport: 'http' };
  } else {
    throw new InstallInputError(`${JSON.stringify(positionals[0])} is neither a URL nor an install link; to install a command, put it after --`);
  }
  for (const pair of values.env ?? []) {
    if (entry.command === undefined) throw new InstallInputError('--env applies to a local command, not a URL');
    addPair(entry.env, pair, '=', '--env');
  }
  for (const pair of values.header ?? []) {
    if (entry.url === undefined) throw new InstallInputError('--header applies to a URL, not a local command');
    addPair(entry.headers, pair, ':', '--header');
  }
  if (values.cwd !== undefined) {
    if (entry.command === undefined) throw new InstallInputError('--cwd applies to a local command');
    entry.cwd = values.cwd;
  }
  if (values.sse) {
    if (entry.url === undefined) throw new InstallInputError('--sse applies to a URL');
    entry.transport = 'sse';
  }
  return entry;
}
