/**
 * `mcpkit prompt TARGET NAME [key=value...]`: gets a prompt with its arguments and prints
 * its messages (or the `prompts/get` result with `--json`). Missing required arguments are
 * reported before the request is sent.
 */
import type { JSONObject } from '../../jsonrpc/types.js';
import { printJson, runClientCommand } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { renderPrompt } from '../render.js';
import { listNames } from '../terminal.js';
import { buildPromptArguments } from '../tool-args.js';
import { UsageError } from '../usage-error.js';

const HELP = `Usage: mcpkit prompt TARGET NAME [key=value...] [options]

Gets a prompt and prints its messages, one "role:" block each, content rendered like a
tool's. Arguments are key=value strings; required ones are checked before sending.

Examples:
  mcpkit prompt http://127.0.0.1:3000/mcp test_prompt_with_arguments arg1=a arg2=b
  mcpkit prompt test_simple_prompt --json -- npx mcpkit demo`;

/** Runs `mcpkit prompt` with the arguments after `prompt`; resolves with the exit code. */
export function run(argv: string[]): Promise<number> {
  return runClientCommand(argv, {
    name: 'prompt',
    help: HELP,
    check: (operands) => {
      if (operands.length === 0) throw new UsageError('name the prompt to get');
    },
    run: async (c) => {
      const [name, ...pairs] = c.operands as [string, ...string[]];
      const prompts = await c.client.listAllPrompts(c.requestOptions());
      const prompt = prompts.find((p) => p.name === name);
      if (prompt === undefined) {
        const names = listNames(prompts.map((p) => p.name));
        throw new UsageError(`the server has no prompt named ${JSON.stringify(name)}${names}`);
      }
      const args = buildPromptArguments(prompt.arguments, pairs);
      const result = await c.client.getPrompt(name, Object.keys(args).length > 0 ? args : undefined, c.requestOptions(true));
      c.view.clear();
      if (c.json) printJson(result);
      else c.print(renderPrompt(result as unknown as JSONObject, c.render));
      return ExitCode.Ok;
    },
  });
}
