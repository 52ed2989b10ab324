/**
 * `mcpkit tasks TARGET [list | get ID | result ID | cancel ID]`: the server's tasks
 * (`tasks/list`, `tasks/get`, `tasks/result`, `tasks/cancel`). Tasks belong to the session
 * (or authorization) that created them, so this sees the tasks of servers that keep them
 * across connections for the same principal.
 */
import type { JSONObject } from '../../jsonrpc/types.js';
import { STATEFUL_REVISIONS } from '../../protocol/versions.js';
import type { TaskClient, TaskList } from '../../tasks/index.js';
import { printJson, runClientCommand } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { stringOption } from '../options.js';
import { renderToolResult } from '../render.js';
import { table, terminalWidth } from '../terminal.js';
import { UsageError } from '../usage-error.js';

const HELP = `Usage: mcpkit tasks TARGET [list | get ID | result ID | cancel ID] [options]

Shows a server's tasks (in the 2025-11-25 era unless --protocol says otherwise): list (the default) prints id, status and status message; get prints
one task; result waits for a task's result and prints it like a tool result; cancel asks the
server to cancel it. Run a tool as a task with mcpkit call --task.

Examples:
  mcpkit tasks http://127.0.0.1:3000/mcp
  mcpkit tasks http://127.0.0.1:3000/mcp cancel 7f0c1c8e-...`;

/** Most pages of `tasks/list` followed. */
export const MAX_TASK_PAGES = 100;

const ACTIONS = ['list', 'get', 'result', 'cancel'];

/** Runs `mcpkit tasks` with the arguments after `tasks`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const { TaskClient } = await import('../../tasks/index.js');
  let tasks: TaskClient | undefined;
  return runClientCommand(argv, {
    name: 'tasks',
    help: HELP,
    check: (operands) => {
      const [action = 'list', id, extra] = operands;
      if (!ACTIONS.includes(action)) throw new UsageError(`the action must be one of ${ACTIONS.join(', ')}, not ${JSON.stringify(action)}`);
      if (action === 'list' ? id !== undefined : id === undefined || extra !== undefined)
        throw new UsageError(action === 'list' ? 'list takes no task id' : `${action} takes one task id`);
    },
    // tasks/list belongs to the 2025-11-25 tasks; without --protocol, speak the 2025 era
    configure: (options, line) => {
      if (stringOption(line, 'protocol') === undefined) {
        delete options.protocolVersion;
        options.protocolVersions = [...STATEFUL_REVISIONS];
      }
    },
    prepare: (client) => {
      tasks = new TaskClient(client);
    },
    run: async (c) => {
      const t = tasks!;
      const [action = 'list', id] = c.operands;
      const o = c.requestOptions();
      if (action === 'list') {
        const all: TaskList['tasks'] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_TASK_PAGES; page++) {
          const r = await t.listTasks(cursor, o);
          all.push(...r.tasks);
          cursor = r.nextCursor;
          if (cursor === undefined) break;
        }
        if (c.json) printJson({ tasks: all.map((x) => x.raw) });
        else
          c.print(
            all.length === 0
              ? 'No tasks.\n'
              : table(
                  ['TASK', 'STATUS', 'MESSAGE'],
                  all.map((x) => [x.taskId, x.status, x.statusMessage ?? '']),
                  terminalWidth(),
                ),
          );
        return ExitCode.Ok;
      }
      if (action === 'result') {
        const result = await t.getTaskResult<JSONObject>(id!, c.requestOptions(true));
        if (c.json) printJson(result);
        else c.print(renderToolResult(result, c.render));
        return result.isError === true ? ExitCode.ToolError : ExitCode.Ok;
      }
      const task = action === 'get' ? await t.getTask(id!, o) : await t.cancelTask(id!, o);
      if (c.json) printJson(task.raw);
      else c.print(`task ${task.taskId}: ${task.status}${task.statusMessage ? ` - ${task.statusMessage}` : ''}\n`);
      return ExitCode.Ok;
    },
  });
}
