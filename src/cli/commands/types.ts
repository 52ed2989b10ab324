/**
 * `mcpkit types TARGET [-o FILE]`: connects, lists every page of the server's tools, and
 * writes a TypeScript file with an input type per tool, a result type from its output
 * schema, and a typed wrapper factory `typedTools(client)` (see typegen/generate.ts).
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { runClientCommand } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { integerOption, stringOption } from '../options.js';
import { clean } from '../terminal.js';
import { DEFAULT_MAX_TOOLS, generateTypes, loadCompiler, MissingGeneratorError } from '../typegen/generate.js';
import { UsageError } from '../usage-error.js';

const HELP = `Usage: mcpkit types TARGET [-o FILE] [options]

Writes TypeScript for a live server's tools: an input type per tool (from its inputSchema),
a result type (CallToolResult, with structuredContent typed from the tool's outputSchema
when it has one), and a factory of typed functions:

  import { typedTools } from './server-tools.js';
  const tools = typedTools(client);          // client: a connected mcpkit Client
  await tools.create_issue({ title: 'x' });  // arguments checked by tsc

Properties a schema does not list are not allowed (a typo is a compile error). A schema
that is too large, too deep or that the converter rejects gives that tool an open type
and a warning on stderr; references outside the schema are never fetched.
Needs the optional dependency json-schema-to-typescript (npm install -D json-schema-to-typescript@16).

Options of this command:
  -o, --output FILE          write to FILE (default: stdout)
  --client-module SPEC       where the file imports Client from (default mcpkit/client)
  --types-module SPEC        where it imports CallToolResult and RequestOptions from (default mcpkit)
  --max-tools N              refuse a server with more than N tools (default ${DEFAULT_MAX_TOOLS})

Examples:
  mcpkit types -o src/demo-tools.ts -- npx mcpkit demo
  mcpkit types http://127.0.0.1:3000/mcp -o tools.ts
  mcpkit types github --config .mcp.json -o github-tools.ts`;

/** This command's own options. */
export const TYPES_OPTIONS = {
  output: { type: 'string', short: 'o' },
  'client-module': { type: 'string' },
  'types-module': { type: 'string' },
  'max-tools': { type: 'string' },
} as const;

/** Runs `mcpkit types` with the arguments after `types`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const mcpkitArgs = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (!mcpkitArgs.includes('--help') && !mcpkitArgs.includes('-h')) {
    // before anything starts: without the converter there is nothing to do
    try {
      await loadCompiler();
    } catch (err) {
      if (!(err instanceof MissingGeneratorError)) throw err;
      process.stderr.write(`mcpkit types: ${err.message}\n`);
      return ExitCode.Usage;
    }
  }
  return runClientCommand(argv, {
    name: 'types',
    help: HELP,
    options: TYPES_OPTIONS,
    check: (operands, line) => {
      if (operands.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(operands[0])}`);
      for (const name of ['client-module', 'types-module'] as const) {
        const value = stringOption(line, name);
        if (value !== undefined && (value === '' || value.length > 500)) throw new UsageError(`--${name} needs a module specifier of 1 to 500 characters`);
      }
      if (stringOption(line, 'output') === '') throw new UsageError('--output needs a file name');
      integerOption(line, 'max-tools', DEFAULT_MAX_TOOLS);
    },
    run: async (c) => {
      const tools = await c.client.listAllTools(c.requestOptions());
      const maxTools = integerOption(c.line, 'max-tools', DEFAULT_MAX_TOOLS);
      if (tools.length > maxTools) throw new UsageError(`the server lists ${tools.length} tools; the most written is ${maxTools} (raise --max-tools)`);
      let warnings = 0;
      const clientModule = stringOption(c.line, 'client-module');
      const typesModule = stringOption(c.line, 'types-module');
      const text = await generateTypes(tools, {
        source: c.target.label,
        server: c.client.serverInfo ?? {},
        maxTools,
        ...(clientModule === undefined ? {} : { clientModule }),
        ...(typesModule === undefined ? {} : { typesModule }),
        warn: (message) => {
          warnings++;
          c.view.line(clean(`mcpkit types: warning: ${message}`, true));
        },
      });
      const output = stringOption(c.line, 'output');
      if (output === undefined) {
        c.print(text);
        return ExitCode.Ok;
      }
      const path = resolve(output);
      // written beside the target and renamed into place: a reader never sees half a file
      const temporary = `${path}.${process.pid}.tmp`;
      try {
        await writeFile(temporary, text, { flag: 'wx' });
        await rename(temporary, path);
      } catch (err) {
        await rm(temporary, { force: true }).catch(() => {});
        throw new UsageError(`cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      if (!c.json)
        c.view.line(
          `mcpkit types: wrote ${tools.length} tool${tools.length === 1 ? '' : 's'} to ${clean(path, true)}${warnings > 0 ? ` (${warnings} warning${warnings === 1 ? '' : 's'} above)` : ''}`,
        );
      return ExitCode.Ok;
    },
  });
}
