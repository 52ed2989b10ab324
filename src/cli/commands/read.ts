/**
 * `mcpkit read TARGET URI`: reads a resource and prints its contents (text as is, binary
 * summarized or saved with `--save DIR`), or the `resources/read` result with `--json`.
 */
import type { JSONObject } from '../../jsonrpc/types.js';
import { printJson, runClientCommand } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { renderContents } from '../render.js';
import { UsageError } from '../usage-error.js';

const HELP = `Usage: mcpkit read TARGET URI [options]

Reads a resource (a listed URI, or one built from a resource template) and prints each of
its contents: text as is, binary content summarized (or written to files with --save DIR).

Examples:
  mcpkit read http://127.0.0.1:3000/mcp test://static-text
  mcpkit read test://static-binary --save ./out -- npx mcpkit demo
  mcpkit read my-server file:///etc/motd --json`;

/** Runs `mcpkit read` with the arguments after `read`; resolves with the exit code. */
export function run(argv: string[]): Promise<number> {
  return runClientCommand(argv, {
    name: 'read',
    help: HELP,
    check: (operands) => {
      if (operands.length !== 1)
        throw new UsageError(operands.length === 0 ? 'name the resource URI to read' : `unexpected argument ${JSON.stringify(operands[1])}`);
    },
    run: async (c) => {
      const result = await c.client.readResource(c.operands[0]!, c.requestOptions(true));
      c.view.clear();
      if (c.json) printJson(result);
      else c.print(`${(result.contents as unknown as JSONObject[]).map((x) => renderContents(x, c.render)).join('\n')}\n`);
      return ExitCode.Ok;
    },
  });
}
