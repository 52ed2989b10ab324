/**
 * `mcpkit completion bash|zsh|fish`: prints a shell completion script (commands, each
 * command's options, option values such as `--protocol` revisions and `--log-level` levels,
 * files and folders where an option takes one, `list` kinds and `tasks` actions, the server
 * names of `./.mcp.json` (or `--config FILE`) as targets, and commands after `--`).
 * `mcpkit completion names [FILE]` prints those server names, one per line; the scripts
 * call it. Every script is generated from one table ({@link COMMANDS}), built from the same
 * option definitions the commands parse with.
 */
import { readFileSync } from 'node:fs';
import { ALL_REVISIONS } from '../../client/index.js';
import { isObject } from '../../jsonrpc/values.js';
import { LOG_LEVELS } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { CLIENT_OPTIONS, type OptionSpec } from '../options.js';
import { DEFAULT_CONFIG_FILE, MAX_CONFIG_BYTES } from '../target.js';
import { TYPES_OPTIONS } from './types.js';

const HELP = `Usage: mcpkit completion bash|zsh|fish

Prints a completion script for your shell: commands, options, option values (protocol
revisions, log levels, files), server names from ./.mcp.json (or --config FILE), and
commands after --. Install it:

  bash   echo 'source <(mcpkit completion bash)' >> ~/.bashrc
  zsh    echo 'source <(mcpkit completion zsh)' >> ~/.zshrc
  fish   mcpkit completion fish > ~/.config/fish/completions/mcpkit.fish
`;

/** How an option's value is completed. */
type ValueKind = 'none' | 'file' | 'dir' | 'any' | readonly string[];

/** One command: its description and options (long names without `--`, with how their value completes). */
interface CommandInfo {
  description: string;
  options: Record<string, ValueKind>;
  /** Words completed as the first operand (besides server names for client commands). */
  operands?: readonly string[];
  /** True for commands that take a TARGET (server names complete, `--` starts a command). */
  target?: boolean;
}

/** Value completions of the shared client options that take a value. */
const CLIENT_VALUES: Record<string, ValueKind> = {
  config: 'file',
  protocol: ['auto', ...ALL_REVISIONS],
  transport: ['auto', 'http', 'sse'],
  'log-level': LOG_LEVELS,
  root: 'dir',
  save: 'dir',
  'sampling-command': 'file',
};

/** `options` as a completion table: booleans take no value; string options take {@link CLIENT_VALUES} or anything. */
function optionsOf(spec: OptionSpec, values: Record<string, ValueKind> = {}): Record<string, ValueKind> {
  const out: Record<string, ValueKind> = {};
  for (const [name, option] of Object.entries(spec)) out[name] = option.type === 'boolean' ? 'none' : (values[name] ?? CLIENT_VALUES[name] ?? 'any');
  return out;
}

const client = (description: string, own: OptionSpec = {}, operands?: readonly string[]): CommandInfo => ({
  description,
  options: optionsOf({ ...CLIENT_OPTIONS, ...own }),
  target: true,
  ...(operands === undefined ? {} : { operands }),
});

const SERVE: Record<string, ValueKind> = { http: 'none', port: 'any', export: 'any', help: 'none' };

/** Every command and what completes after it. */
export function commands(clientNames: readonly string[]): Record<string, CommandInfo> {
  const installTarget: Record<string, ValueKind> = { client: clientNames, config: 'file', help: 'none' };
  return {
    list: client('list the tools, resources, templates and prompts of a server', {}, ['tools', 'resources', 'templates', 'prompts']),
    call: client('call a tool', { args: { type: 'string' }, task: { type: 'boolean' } }),
    read: client('read a resource'),
    prompt: client('get a prompt'),
    complete: client('complete an argument of a prompt or resource template', { context: { type: 'string', multiple: true } }),
    ping: client('check that a server answers'),
    tasks: client("list, inspect, fetch or cancel a server's tasks", {}, ['list', 'get', 'result', 'cancel']),
    types: {
      ...client("write TypeScript types for a server's tools", TYPES_OPTIONS),
      options: optionsOf({ ...CLIENT_OPTIONS, ...TYPES_OPTIONS }, { output: 'file' }),
    },
    login: { description: 'sign in to a server URL', options: { scope: 'any', 'no-browser': 'none', timeout: 'any', port: 'any', help: 'none' } },
    logout: { description: 'forget the tokens of a server URL', options: { help: 'none' } },
    run: { description: 'serve FILE over stdio or --http', options: SERVE, operands: [] },
    dev: { description: 'serve FILE and reload on change', options: SERVE, operands: [] },
    demo: {
      description: 'serve the demo server',
      options: { http: 'none', port: 'any', redis: 'any', 'task-db': 'file', 'request-state-secret': 'any', help: 'none' },
    },
    proxy: {
      description: 'serve a stdio server over HTTP',
      options: {
        port: 'any',
        host: 'any',
        'allowed-host': 'any',
        'legacy-sse': 'none',
        'auth-token-env': 'any',
        'auth-issuer': 'any',
        'auth-jwks-uri': 'any',
        'auth-resource': 'any',
        stderr: 'file',
        'no-restart': 'none',
        help: 'none',
      },
    },
    gateway: {
      description: 'serve many servers behind one HTTP endpoint',
      options: {
        config: 'file',
        port: 'any',
        host: 'any',
        'allowed-host': 'any',
        'legacy-sse': 'none',
        'auth-token-env': 'any',
        'auth-issuer': 'any',
        'auth-jwks-uri': 'any',
        'auth-resource': 'any',
        redis: 'any',
        stderr: 'file',
        help: 'none',
      },
    },
    install: {
      description: "add a server to a client's config",
      options: { ...installTarget, name: 'any', env: 'any', header: 'any', cwd: 'dir', json: 'any', sse: 'none', force: 'none', yes: 'none' },
    },
    uninstall: { description: "remove a server from a client's config", options: { ...installTarget, yes: 'none' } },
    installed: { description: "list servers in a client's config", options: { ...installTarget, json: 'none' } },
    completion: { description: 'print a shell completion script', options: { help: 'none' }, operands: ['bash', 'zsh', 'fish'] },
    help: { description: 'show help', options: {} },
  };
}

/** The server names of an mcpServers (or VS Code `servers`) config file; [] when it is unreadable. */
export function configNames(file: string): string[] {
  try {
    const bytes = readFileSync(file);
    if (bytes.length > MAX_CONFIG_BYTES) return [];
    const config: unknown = JSON.parse(bytes.toString('utf8'));
    if (!isObject(config)) return [];
    const servers = isObject(config.mcpServers) ? config.mcpServers : isObject(config.servers) ? config.servers : {};
    // names that a shell would split or interpret are left out
    return Object.keys(servers).filter((n) => /^[A-Za-z0-9._@:+-]{1,200}$/.test(n));
  } catch {
    return [];
  }
}

/** Runs `mcpkit completion`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const [shell, ...rest] = argv;
  if (shell === '--help' || shell === '-h') {
    process.stdout.write(HELP);
    return ExitCode.Ok;
  }
  if (shell === 'names') {
    const names = configNames(rest[0] || DEFAULT_CONFIG_FILE);
    process.stdout.write(names.length > 0 ? `${names.join('\n')}\n` : '');
    return ExitCode.Ok;
  }
  if (shell !== 'bash' && shell !== 'zsh' && shell !== 'fish') {
    process.stderr.write(`mcpkit completion: name the shell: bash, zsh or fish${shell === undefined ? '' : `, not ${JSON.stringify(shell)}`}\n\n${HELP}`);
    return ExitCode.Usage;
  }
  if (rest.length > 0) {
    process.stderr.write(`mcpkit completion: unexpected argument ${JSON.stringify(rest[0])}\n`);
    return ExitCode.Usage;
  }
  const { CLIENTS } = await import('../install/clients.js');
  const table = commands([...CLIENTS.keys()]);
  const { bashScript, zshScript, fishScript } = await import('./completion-scripts.js');
  process.stdout.write(shell === 'bash' ? bashScript(table) : shell === 'zsh' ? zshScript(table) : fishScript(table));
  return ExitCode.Ok;
}

export type { CommandInfo, ValueKind };
