/**
 * `mcpkit uninstall NAME`: removes one server from a client's config file, keeping every
 * other key, with the same backup and atomic write as `install`. Removing runs nothing, so
 * it does not ask.
 */
import { CLIENT_NAMES, chooseTarget } from './clients.js';
import { Exit, parseOrHelp, printErr, runCommand, TARGET_OPTIONS } from './common.js';
import { ConfigChangedError, checkUniqueName, commitChange, editText, readConfigFile, serversOf } from './config-file.js';
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
    const key = target.format.serversKey;
    const servers = serversOf(file, key);
    if (file.original === null || servers === undefined || !Object.hasOwn(servers, name)) {
      printErr(`mcpkit uninstall: ${target.path} has no server named ${JSON.stringify(name)}; nothing changed\n`);
      return Exit.failed;
    }
    checkUniqueName(file, key, name);
    const backup = await commitChange(file, (current) => {
      const now = serversOf(current, key);
      checkUniqueName(current, key, name);
      if (now === undefined || !Object.hasOwn(now, name))
        throw new ConfigChangedError(`${target.path} no longer has a server named ${JSON.stringify(name)} (another program removed it); nothing changed`);
      return editText(current, current.text, [key, name], undefined);
    });
    printErr(`mcpkit uninstall: removed ${JSON.stringify(name)} from ${file.target} (previous file kept as ${backup})\n`);
    return Exit.ok;
  });
}
