/**
 * `mcpkit list [tools|resources|templates|prompts] TARGET`: what a server offers, as tables
 * (or one JSON object with `--json`). Without a kind, every kind the server's capabilities
 * announce.
 */
import type { Connection } from '../connection.js';
import { printJson, runClientCommand } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { parseCommandLine } from '../options.js';
import { table, terminalWidth } from '../terminal.js';
import { parameterList } from '../tool-help.js';
import { UsageError } from '../usage-error.js';

const KINDS = ['tools', 'resources', 'templates', 'prompts'] as const;
type Kind = (typeof KINDS)[number];

const HELP = `Usage: mcpkit list [tools|resources|templates|prompts] TARGET [options]
       mcpkit list [tools|resources|templates|prompts] --config FILE [options]

Lists what a server offers: tools, resources, resource templates and prompts (every kind the
server announces, or only the one named). Follows every page. With --config FILE and no
TARGET, every server of the file is connected in parallel (a client pool) and their
catalogues are merged under SERVER.NAME names (call one with mcpkit call --config FILE
SERVER.TOOL); a server that cannot be used is reported on stderr and the others are listed
(exit 4).

Examples:
  mcpkit list -- npx mcpkit demo
  mcpkit list tools http://127.0.0.1:3000/mcp --json
  mcpkit list prompts my-server --config ~/.cursor/mcp.json
  mcpkit list tools --config ~/.cursor/mcp.json`;

/** True when `args` name a config file but no target: no positional before `--` and no `--`. */
function poolListing(args: readonly string[]): boolean {
  if (args.includes('--') || args.includes('--help') || args.includes('-h')) return false;
  if (!args.some((a) => a === '--config' || a.startsWith('--config='))) return false;
  try {
    return parseCommandLine(args).positionals.length === 0;
  } catch {
    return false;
  }
}

/** Runs `mcpkit list` with the arguments after `list`; resolves with the exit code. */
export function run(argv: string[]): Promise<number> {
  // the kind may come first, before the target: `mcpkit list tools URL`
  let kind: Kind | undefined;
  const args = [...argv];
  const first = args.findIndex((a) => !a.startsWith('-'));
  const dash = args.indexOf('--');
  if (first >= 0 && (dash < 0 || first < dash) && (KINDS as readonly string[]).includes(args[first]!)) {
    kind = args[first] as Kind;
    args.splice(first, 1);
  }
  // `mcpkit list --config FILE` without a server: every server of the file, through the pool
  if (poolListing(args)) return (async () => (await import('../pool-list.js')).listPool(args, kind, HELP))();
  return runClientCommand(args, {
    name: 'list',
    help: HELP,
    check: (operands) => {
      if (operands.length > 1 || (operands.length === 1 && kind !== undefined))
        throw new UsageError(`unexpected argument ${JSON.stringify(operands[operands.length - 1])}`);
      if (operands.length === 1) {
        if (!(KINDS as readonly string[]).includes(operands[0]!))
          throw new UsageError(`what to list must be one of ${KINDS.join(', ')}, not ${JSON.stringify(operands[0])}`);
        kind = operands[0] as Kind;
      }
    },
    run: (c) => list(c, kind),
  });
}

async function list(c: Connection, only: Kind | undefined): Promise<number> {
  const caps = c.client.serverCapabilities ?? {};
  const want = (k: Kind) => (only === undefined ? (k === 'templates' ? caps.resources !== undefined : caps[k] !== undefined) : only === k);
  const o = c.requestOptions();
  const out: Record<string, unknown[]> = {};
  if (want('tools')) out.tools = await c.client.listAllTools(o);
  if (want('resources')) out.resources = await c.client.listAllResources(o);
  if (want('templates')) out.resourceTemplates = await c.client.listAllResourceTemplates(o);
  if (want('prompts')) out.prompts = await c.client.listAllPrompts(o);
  printListing(out, c.json, (text) => c.print(text));
  return ExitCode.Ok;
}

/** Prints what {@link list} (or the pool's listing) gathered: tables, or one JSON object. */
export function printListing(out: Record<string, unknown[]>, json: boolean, print: (text: string) => void): void {
  if (json) {
    printJson(out);
    return;
  }
  const width = terminalWidth();
  const sections: string[] = [];
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  if (out.tools) {
    const rows = (out.tools as Array<Record<string, unknown>>).map((t) => [text(t.name), parameterList(t.inputSchema), text(t.description) || text(t.title)]);
    const hint = rows.length > 0 ? '(PARAMETERS: name? is optional; mcpkit call TARGET TOOL --help shows types, defaults and descriptions)\n' : '';
    sections.push(`Tools (${rows.length})\n${rows.length > 0 ? table(['NAME', 'PARAMETERS', 'DESCRIPTION'], rows, width) : '  none\n'}${hint}`);
  }
  if (out.resources) {
    const rows = (out.resources as Array<Record<string, unknown>>).map((r) => [text(r.uri), text(r.name), text(r.mimeType), text(r.description)]);
    sections.push(`Resources (${rows.length})\n${rows.length > 0 ? table(['URI', 'NAME', 'TYPE', 'DESCRIPTION'], rows, width) : '  none\n'}`);
  }
  if (out.resourceTemplates) {
    const rows = (out.resourceTemplates as Array<Record<string, unknown>>).map((r) => [text(r.uriTemplate), text(r.name), text(r.description)]);
    sections.push(`Resource templates (${rows.length})\n${rows.length > 0 ? table(['URI TEMPLATE', 'NAME', 'DESCRIPTION'], rows, width) : '  none\n'}`);
  }
  if (out.prompts) {
    const rows = (out.prompts as Array<Record<string, unknown>>).map((p) => {
      const args = Array.isArray(p.arguments)
        ? (p.arguments as Array<Record<string, unknown>>).map((a) => `${text(a.name)}${a.required ? '' : '?'}`).join(' ')
        : '';
      return [text(p.name), args, text(p.description)];
    });
    sections.push(`Prompts (${rows.length})\n${rows.length > 0 ? table(['NAME', 'ARGUMENTS', 'DESCRIPTION'], rows, width) : '  none\n'}`);
  }
  print(sections.length > 0 ? sections.join('\n') : 'The server offers no tools, resources or prompts.\n');
}
