/**
 * `mcpkit complete TARGET REF ARGUMENT [VALUE] [--context key=value...]`: asks the server
 * for completions of one argument of a prompt (`prompt:NAME`) or of a resource template
 * (`resource:URI-TEMPLATE`), and prints one value per line (the result as JSON with `--json`).
 */
import { printJson, runClientCommand } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { listOption } from '../options.js';
import { clean } from '../terminal.js';
import { buildPromptArguments } from '../tool-args.js';
import { UsageError } from '../usage-error.js';

const HELP = `Usage: mcpkit complete TARGET REF ARGUMENT [VALUE] [--context key=value...] [options]

Asks the server to complete an argument. REF is prompt:NAME (a prompt's argument) or
resource:URI-TEMPLATE (a variable of a resource template); VALUE is what is typed so far
(default empty). Prints one suggestion per line, then "(N more)" when the server has more.

Options of complete:
  --context key=value   an argument already filled in (repeatable; 2025-06-18 and later)

Examples:
  mcpkit complete http://127.0.0.1:3000/mcp prompt:test_prompt_with_arguments arg1 pa
  mcpkit complete resource:test://template/{id}/data id 1 -- npx mcpkit demo`;

type Ref = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

function parseRef(text: string): Ref {
  if (text.startsWith('prompt:') && text.length > 7) return { type: 'ref/prompt', name: text.slice(7) };
  if (text.startsWith('resource:') && text.length > 9) return { type: 'ref/resource', uri: text.slice(9) };
  throw new UsageError(`the reference must be prompt:NAME or resource:URI-TEMPLATE, not ${JSON.stringify(text)}`);
}

/** Runs `mcpkit complete` with the arguments after `complete`; resolves with the exit code. */
export function run(argv: string[]): Promise<number> {
  let ref: Ref;
  let context: Record<string, string> = {};
  return runClientCommand(argv, {
    name: 'complete',
    help: HELP,
    options: { context: { type: 'string', multiple: true } },
    check: (operands, line) => {
      if (operands.length < 2 || operands.length > 3) throw new UsageError('give REF, ARGUMENT and optionally VALUE');
      ref = parseRef(operands[0]!);
      context = buildPromptArguments(undefined, listOption(line, 'context'));
    },
    run: async (c) => {
      const [, name, value = ''] = c.operands as [string, string, string?];
      const result = await c.client.complete(ref, { name, value }, Object.keys(context).length > 0 ? context : undefined, c.requestOptions());
      if (c.json) {
        printJson(result);
        return ExitCode.Ok;
      }
      const values = result.completion.values;
      let text = values.map((v) => `${clean(String(v), true)}\n`).join('');
      const total = result.completion.total;
      if (typeof total === 'number' && total > values.length) text += `(${total - values.length} more)\n`;
      else if (result.completion.hasMore) text += '(more)\n';
      c.print(text === '' ? '(no suggestions)\n' : text);
      return ExitCode.Ok;
    },
  });
}
