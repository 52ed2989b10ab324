/**
 * `mcpkit uninstall NAME`: removes one server from a client's config file, keeping every
 * other key, with the same backup and atomic write as `install`. Removing runs nothing, so
 * it does not ask.
 */
import { CLIENT_NAMES, chooseTarget } from './clients.js';
import { Exit, parseOrHelp, runCommand, TARGET_OPTIONS } from './common.js';
import { readConfigFile, serversOf, setKey, writeConfigFile } from './config-file.js';
import { InstallInputError } from './entry.js';

/** `mcpkit uninstall --help`. */
export const UNINSTALL_USAGE = `Usage: mcpkit uninstall (--client NAME | --config FILE) NAME

Removes the MCP server NAME from a client's config file. Every other entry and key stays
as it was; the previous file is kept as FILE.bak.

  --client NAME     ${CLIENT_NAMES.join(', ')}
  --config FILE     the config file to change (see mcpkit install --help)

Exit codes: 0 removed, 1 not there or the file could not be written, 2 wrong arguments.

Examples:
  mcpkit uninstall --client cursor files
  mcpkit uninstall --config ./mcp.json demo
`;

/** Runs `mcpkit uninstall`; resolves with the exit code (see {@link Exit}). */
export function run(argv: string[]): Promise<number> {
  return runCommand('uninstall', async () => {
    const parsed = parseOrHelp(argv, TARGET_OPTIONS, UNINSTALL_USAGE);
    if (parsed === undefined) return Exit.ok;
    const { values, positionals } = parsed;
    if (positionals.length !== 1) throw new InstallInputError('give the name of one server to remove');
    const name = positionals[0]!;
    const target = chooseTarget(values.client, values.config);
    const file = await readConfigFile(target.path);
    const servers = serversOf(file, target.format.serversKey, false);
    if (file.original === null || servers === undefined || !Object.hasOwn(servers, name)) {
      process.stderr.write(`mcpkit uninstall: ${target.path} has no server named ${JSON.stringify(name)}; nothing changed\n`);
      return Exit.failed;
    }
    setKey(servers, name, undefined);
    const backup = await writeConfigFile(file);
    process.stderr.write(`mcpkit uninstall: removed ${JSON.stringify(name)} from ${target.path} (previous file kept as ${backup})\n`);
    return Exit.ok;
  });
}
