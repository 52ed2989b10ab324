/**
 * `mcpkit call TARGET TOOL [key=value...] [--args JSON] [--task]`: calls a tool. The
 * arguments are converted and checked against the tool's input schema before anything is
 * sent (exit 2 when they do not fit). Progress is drawn on stderr while the tool runs; Ctrl-C
 * cancels the call (`notifications/cancelled`) or, with `--task`, the task (`tasks/cancel`).
 * Exit 1 when the tool returns `isError: true`.
 */
import { UrlElicitationRequiredError } from '../../jsonrpc/errors.js';
import type { JSONObject } from '../../jsonrpc/types.js';
import { isStatelessRevision } from '../../protocol/stateless/wire.js';
import type { TaskClient } from '../../tasks/index.js';
import type { CallToolResult, Tool } from '../../types.js';
import type { Connection } from '../connection.js';
import { printJson, runClientCommand } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { stringOption } from '../options.js';
import { renderToolResult } from '../render.js';
import { clean, listNames } from '../terminal.js';
import { buildToolArguments } from '../tool-args.js';
import { toolHelp } from '../tool-help.js';
import { MAX_URL_REQUIRED_ROUNDS } from '../url-elicitation.js';
import { UsageError } from '../usage-error.js';

const HELP = `Usage: mcpkit call TARGET TOOL [key=value...] [--args JSON] [--task] [options]
       mcpkit call TOOL [key=value...] [options] -- COMMAND [ARGS...]
       mcpkit call TARGET TOOL --help     the tool's parameters (type, required, default, description)

Calls a tool and prints its result: text as is, images and audio summarized (or saved with
--save DIR), resource links and embedded resources labelled, structured content as JSON.
key=value arguments are converted by the tool's input schema (numbers, booleans, arrays as
JSON or comma-separated, objects as JSON); --args takes the whole object as JSON and
key=value pairs override it. Arguments that do not match the schema, and every missing
required one, are reported before anything is sent. Progress is drawn on stderr; Ctrl-C cancels the call.

Options of call:
  --args JSON     the arguments as one JSON object
  --task          run the call as a task (when the tool supports tasks), showing its status
                  while it is polled; Ctrl-C cancels the task. A tool that only runs as a
                  task (execution.taskSupport "required") runs as one without it

Examples:
  mcpkit call http://127.0.0.1:3000/mcp add a=1 b=2
  mcpkit call echo message='hello world' -- npx mcpkit demo
  mcpkit call long_running_job ms=5000 --task --protocol 2025-11-25 -- npx mcpkit demo
  mcpkit call my-server search --args '{"query":"mcp","limit":5}' --json`;

/** Runs `mcpkit call` with the arguments after `call`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  // the tasks module is loaded for every call: a tool may require a task (execution.taskSupport "required")
  const tasksModule = await import('../../tasks/index.js');
  let tasks: TaskClient | undefined;
  return runClientCommand(argv, {
    name: 'call',
    help: HELP,
    options: { args: { type: 'string' }, task: { type: 'boolean' } },
    check: (operands, line) => {
      if (operands.length === 0) throw new UsageError(line.values.help === true ? 'name the tool whose parameters to show' : 'name the tool to call');
    },
    // the stateless era (2026-07-28) waits for tasks inside the client; declaring the tasks
    // extension lets task-required tools run and the server turn long calls into tasks
    configure: (options) => {
      options.stateless = { ...options.stateless, tasks: true };
    },
    prepare: (client) => {
      tasks = new tasksModule.TaskClient(client);
    },
    toolHelp: true,
    run: (c) => call(c, tasks!),
  });
}

async function call(c: Connection, tasks: TaskClient): Promise<number> {
  const [name, ...pairs] = c.operands as [string, ...string[]];
  const tools = await c.client.listAllTools(c.requestOptions());
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) {
    const names = listNames(tools.map((t) => t.name));
    throw new UsageError(`the server has no tool named ${JSON.stringify(name)}${names}`);
  }
  if (c.line.values.help === true) {
    c.print(toolHelp(tool, c.target));
    return ExitCode.Ok;
  }
  const args = await buildToolArguments(tool.inputSchema as JSONObject | undefined, pairs, stringOption(c.line, 'args'), tool.name);
  const required = taskSupportOf(tool) === 'required';
  const asTask = c.line.values.task === true || (required && !isStatelessRevision(c.client.protocolVersion));
  if (required && c.line.values.task !== true)
    c.view.line(`mcpkit call: ${clean(tool.name, true)} runs only as a task (execution.taskSupport "required"), so it runs as one`);
  let result: CallToolResult;
  for (let round = 1; ; round++) {
    try {
      result = asTask ? await callAsTask(c, tasks, tool, args) : await c.client.callTool({ name, arguments: args }, c.requestOptions(true));
      break;
    } catch (err) {
      // -32042: the server waits for pages the person must visit; offer them, then try again
      if (!(err instanceof UrlElicitationRequiredError) || round > MAX_URL_REQUIRED_ROUNDS || !(await c.offerRequiredPages(err))) throw err;
    }
  }
  c.view.clear();
  if (c.json) printJson(result);
  else c.print(renderToolResult(result as unknown as JSONObject, c.render));
  return result.isError ? ExitCode.ToolError : ExitCode.Ok;
}

/** A tool's `execution.taskSupport` ("forbidden" when absent). */
function taskSupportOf(tool: Tool): string {
  const execution = (tool as { execution?: { taskSupport?: unknown } }).execution;
  return typeof execution?.taskSupport === 'string' ? execution.taskSupport : 'forbidden';
}

async function callAsTask(c: Connection, client: TaskClient, tool: Tool, args: JSONObject): Promise<CallToolResult> {
  const options = c.requestOptions(true);
  const pending = await client.callToolAsTask(
    { name: tool.name, arguments: args },
    {
      signal: c.interrupt.signal,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      onStatus: (task) => c.view.status(`task ${task.taskId}: ${task.status}${task.statusMessage ? ` - ${clean(task.statusMessage, true)}` : ''}`),
    },
  );
  if (pending.taskId === undefined && !isStatelessRevision(c.client.protocolVersion)) c.view.line('mcpkit call: the server ran the call directly (no task)');
  try {
    return await pending.result();
  } catch (err) {
    // the handle sent tasks/cancel when the signal aborted; say which task it was
    if (c.interrupt.interrupted && pending.taskId !== undefined) c.view.line(`mcpkit call: asked the server to cancel task ${pending.taskId} (tasks/cancel)`);
    throw err;
  }
}
