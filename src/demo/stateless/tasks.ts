/**
 * The demo's tools for the tasks extension of the stateless era (`io.modelcontextprotocol/tasks`,
 * SEP-2663): the fixtures the conformance suite's `tasks-*` scenarios call. The server
 * decides whether a call becomes a task (`TaskServer`, `immediateResultMs`), so the tools
 * that must be tasks do some work before anything else (or declare `taskSupport: "required"`).
 * In the 2025 era they are ordinary tools (the `required` ones need `params.task` on
 * 2025-11-25). Public API only; runtime-neutral.
 */
import { McpError } from '../../jsonrpc/errors.js';
import { ErrorCode } from '../../jsonrpc/types.js';
import type { McpServer } from '../../server/index.js';
import { noArgs, sleep } from '../util.js';

/** Longer than the default `immediateResultMs` (100 ms): tools that wait this long first always become tasks. */
const WARM_UP_MS = 300;

/** Registers the tasks-extension demo tools on `server` (before it is connected). */
export function registerStatelessTaskDemo(server: McpServer): void {
  server.registerTool(
    'greet',
    {
      description: 'Greets someone (never a task)',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    (args: { name: string }) => `Hello, ${args.name}!`,
  );

  server.registerTool(
    'slow_compute',
    {
      description: 'Sleeps `seconds` seconds (cancellable), then answers; a task when it takes a while',
      inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 3600 }, label: { type: 'string' } } },
      execution: { taskSupport: 'optional' },
    },
    async (args: { seconds?: number; label?: string }, ctx) => {
      const seconds = args.seconds ?? 1;
      if (seconds > 0) await sleep(seconds * 1000, ctx.signal);
      return `computed ${args.label ?? 'result'} after ${seconds} s`;
    },
  );

  server.registerTool(
    'failing_job',
    {
      description: 'Always a task; ends with a tool error after about a second',
      inputSchema: noArgs,
      execution: { taskSupport: 'required' },
    },
    async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      return { content: [{ type: 'text', text: 'the job failed (as it always does)' }], isError: true };
    },
  );

  server.registerTool(
    'protocol_error_job',
    {
      description: 'Fails with a JSON-RPC error (-32603) after a moment: a failed task',
      inputSchema: noArgs,
      execution: { taskSupport: 'optional' },
    },
    async (_args, ctx) => {
      await sleep(WARM_UP_MS, ctx.signal);
      throw new McpError(ErrorCode.InternalError, 'protocol_error_job failed on purpose');
    },
  );

  server.registerTool(
    'confirm_delete',
    {
      description: 'Prepares, then asks the user to confirm deleting `filename` (the task is input_required meanwhile)',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
      execution: { taskSupport: 'optional' },
    },
    async (args: { filename: string }, ctx) => {
      await sleep(WARM_UP_MS, ctx.signal);
      const answer = await ctx.elicitForm({
        message: `Delete ${args.filename}?`,
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', description: 'Delete the file' } }, required: ['confirm'] },
      });
      const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
      return confirmed ? `deleted ${args.filename}` : `kept ${args.filename}`;
    },
  );

  server.registerTool(
    'multi_input',
    {
      description: 'Prepares, then asks two questions at once (two input requests pending together)',
      inputSchema: noArgs,
      execution: { taskSupport: 'optional' },
    },
    async (_args, ctx) => {
      await sleep(WARM_UP_MS, ctx.signal);
      const schema = { type: 'object' as const, properties: { name: { type: 'string' as const }, confirm: { type: 'boolean' as const } } };
      const [first, second] = await Promise.all([
        ctx.elicitForm({ message: 'First question: your name?', requestedSchema: schema }),
        ctx.elicitForm({ message: 'Second question: your name again?', requestedSchema: schema }),
      ]);
      const name = (r: typeof first) => (r.action === 'accept' ? String(r.content?.name ?? '') : r.action);
      return `answers: ${name(first)}, ${name(second)}`;
    },
  );

  server.registerTool(
    'test_tool_with_task',
    {
      description: 'Asks for the user name (multi round-trip), then finishes as a task',
      inputSchema: noArgs,
      execution: { taskSupport: 'required' },
    },
    async (_args, ctx) => {
      const r = await ctx.elicitForm(
        { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
        { inputKey: 'user_name' },
      );
      const name = r.action === 'accept' ? String(r.content?.name) : 'stranger';
      await sleep(WARM_UP_MS, ctx.signal);
      return `Hello, ${name}! (finished as a task)`;
    },
  );
}
