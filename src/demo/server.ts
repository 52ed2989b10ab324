/**
 * The demo server: every tool, resource, prompt and completion of the conformance suite's
 * server contract, plus tools that exercise the rest of the SDK (structured output,
 * URL elicitation, sampling with tools, roots, resource links, list changes, resource
 * updates). Built on the public API only; runtime-neutral (no `node:*` imports).
 */

import { UrlElicitationRequiredError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import { type AuditEvent, audit, McpServer, rateLimit, type ServerOptions } from '../server/index.js';
import { TaskServer, type TaskServerOptions } from '../tasks/index.js';
import type { SamplingMessage } from '../types.js';
import { registerDemoExtensions } from './extensions.js';
import { PNG_1X1, wavTone } from './media.js';
import { registerStatelessTaskDemo } from './stateless/tasks.js';
import { registerStatelessDemo } from './stateless/tools.js';
import type { DemoToggles } from './toggles.js';
import { noArgs, sleep } from './util.js';

/** Options of {@link createDemoServer}. */
export interface DemoOptions extends ServerOptions {
  /** Tool calls allowed per connection per minute (the demo's rate limit). Default 1 000 000. */
  toolCallsPerMinute?: number;
  /** Receives an audit event per request. Default: none. */
  onAudit?: (event: AuditEvent) => void;
  /**
   * Task support (SEP-1686): options of the demo's {@link TaskServer} (default: enabled, an
   * in-memory store, a 500 ms poll interval), or `false` for a server without tasks.
   */
  tasks?: TaskServerOptions | false;
  /** Shares the dynamic tool and prompt (`test_trigger_tool_change`, `test_trigger_prompt_change`) between instances. Default: per server. */
  toggles?: DemoToggles;
}

/** Builds the demo server (not yet connected). */
export function createDemoServer(options: DemoOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'mcpkit-demo', title: 'mcpkit demo server', version: '0.1.0', description: 'Exercises every MCP feature mcpkit implements' },
    { instructions: 'A demo server: tools, resources, prompts, completion, logging, sampling, elicitation, roots.', ...options },
  );
  if (options.onAudit) server.use(audit(options.onAudit));
  server.use(rateLimit({ limit: options.toolCallsPerMinute ?? 1_000_000, windowMs: 60_000 }));
  if (options.tasks !== false) new TaskServer(server, { pollIntervalMs: 500, onError: options.onError, ...options.tasks });

  // ───────────── the issue's own tools ─────────────
  server.registerTool(
    'echo',
    {
      description: 'Returns the message as text',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    (args: { message: string }) => ({ content: [{ type: 'text', text: args.message }] }),
  );

  server.registerTool(
    'blob',
    {
      description: 'Returns that many characters of text',
      inputSchema: { type: 'object', properties: { size: { type: 'integer', minimum: 0, maximum: 64 * 1024 * 1024 } }, required: ['size'] },
      annotations: { readOnlyHint: true },
    },
    (args: { size: number }) => ({ content: [{ type: 'text', text: 'x'.repeat(args.size) }] }),
  );

  // ───────────── conformance contract: tools ─────────────
  server.registerTool('test_simple_text', { description: 'Returns simple text content', inputSchema: noArgs }, () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));
  server.registerTool('test_image_content', { description: 'Returns image content', inputSchema: noArgs }, () => ({
    content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Returns audio content', inputSchema: noArgs }, () => ({
    content: [{ type: 'audio', data: wavTone(), mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded resource', inputSchema: noArgs }, () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Returns text, image and resource content', inputSchema: noArgs }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
      },
    ],
  }));
  server.registerTool('test_tool_with_logging', { description: 'Sends log messages while it runs', inputSchema: noArgs }, async (_args, ctx) => {
    await ctx.log('info', 'Tool execution started');
    await sleep(50, ctx.signal);
    await ctx.log('info', 'Tool processing data');
    await sleep(50, ctx.signal);
    await ctx.log('info', 'Tool execution completed');
    return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
  });
  server.registerTool('test_error_handling', { description: 'Always fails with a tool error', inputSchema: noArgs }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.registerTool('test_tool_with_progress', { description: 'Reports progress while it runs', inputSchema: noArgs }, async (_args, ctx) => {
    await ctx.sendProgress(0, 100, 'Started');
    await sleep(50, ctx.signal);
    await ctx.sendProgress(50, 100, 'Half way');
    await sleep(50, ctx.signal);
    await ctx.sendProgress(100, 100, 'Done');
    return { content: [{ type: 'text', text: String(ctx.progressToken ?? 'no progress token') }] };
  });
  server.registerTool(
    'test_sampling',
    {
      description: 'Asks the client LLM to answer a prompt',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send' } }, required: ['prompt'] },
    },
    async (args: { prompt: string }, ctx) => {
      const r = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }], maxTokens: 100 });
      const first = Array.isArray(r.content) ? r.content[0] : r.content;
      const text = first && first.type === 'text' ? first.text : JSON.stringify(r.content);
      return { content: [{ type: 'text', text: `LLM response: ${text}` }] };
    },
  );
  server.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user for a username and an email',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    },
    async (args: { message: string }, ctx) => {
      const r = await ctx.elicitForm({
        message: args.message,
        requestedSchema: {
          type: 'object',
          properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
          required: ['username', 'email'],
        },
      });
      return { content: [{ type: 'text', text: `User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}` }] };
    },
  );
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicitation whose fields carry defaults (SEP-1034)', inputSchema: noArgs },
    async (_args, ctx) => {
      const r = await ctx.elicitForm({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      });
      return { content: [{ type: 'text', text: `Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}` }] };
    },
  );
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicitation with every enum form (SEP-1330)', inputSchema: noArgs },
    async (_args, ctx) => {
      const r = await ctx.elicitForm({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Select multiple options',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      });
      return { content: [{ type: 'text', text: `Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}` }] };
    },
  );
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool whose input schema uses JSON Schema 2020-12 keywords',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        // SEP-2106: composition and conditional keywords pass through to the wire unchanged
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    },
    (args: JSONObject) => ({ content: [{ type: 'text', text: `Received: ${JSON.stringify(args)}` }] }),
  );
  server.registerTool(
    'test_reconnection',
    { description: 'Takes a moment, so an HTTP server can close the stream mid-call', inputSchema: noArgs },
    async (_args, ctx) => {
      await sleep(100, ctx.signal);
      return { content: [{ type: 'text', text: 'Reconnection test completed successfully' }] };
    },
  );

  // ───────────── conformance contract of the stateless era (2026-07-28) ─────────────
  registerStatelessDemo(server, options.toggles);
  registerStatelessTaskDemo(server);
  // the official extensions: skills (SEP-2640) and one MCP App
  registerDemoExtensions(server);

  // ───────────── more of the SDK ─────────────
  server.registerTool(
    'add',
    {
      title: 'Add two numbers',
      description: 'Adds a and b; returns structured output',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      icons: [{ src: `data:image/png;base64,${PNG_1X1}`, mimeType: 'image/png', sizes: ['1x1'] }],
    },
    (args: { a: number; b: number }) => ({ structuredContent: { sum: args.a + args.b } }),
  );
  server.registerTool(
    'slow',
    {
      description: 'Waits the given milliseconds (cancellable), reporting progress every 100 ms',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0, maximum: 600000 } }, required: ['ms'] },
    },
    async (args: { ms: number }, ctx) => {
      const steps = Math.max(1, Math.ceil(args.ms / 100));
      for (let i = 1; i <= steps; i++) {
        await sleep(args.ms / steps, ctx.signal);
        await ctx.sendProgress(i, steps);
      }
      return { content: [{ type: 'text', text: `waited ${args.ms} ms` }] };
    },
  );
  server.registerTool(
    'long_running_job',
    {
      title: 'Long-running job',
      description:
        'Works for `ms` milliseconds in `steps` steps, reporting progress and logging each step; cancellable. ' +
        'Supports tasks (execution.taskSupport "optional"): call it with params.task and poll it with tasks/get. ' +
        'With `confirm`, asks the user half way whether to go on (the task is input_required meanwhile).',
      inputSchema: {
        type: 'object',
        properties: {
          ms: { type: 'integer', minimum: 0, maximum: 3_600_000, description: 'How long to work, in milliseconds (default 10000)' },
          steps: { type: 'integer', minimum: 1, maximum: 1000, description: 'How many steps (default 10)' },
          confirm: { type: 'boolean', description: 'Ask for confirmation half way (elicitation)' },
          fail: { type: 'boolean', description: 'End with a tool error instead of a result' },
        },
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      execution: { taskSupport: 'optional' },
    },
    async (args: { ms?: number; steps?: number; confirm?: boolean; fail?: boolean }, ctx) => {
      const ms = args.ms ?? 10_000;
      const steps = args.steps ?? 10;
      const started = Date.now();
      await ctx.log('info', `long_running_job: ${steps} steps over ${ms} ms`, 'long_running_job');
      for (let i = 1; i <= steps; i++) {
        await sleep(ms / steps, ctx.signal);
        await ctx.sendProgress(i, steps, `step ${i} of ${steps}`);
        await ctx.log('debug', `long_running_job: step ${i} of ${steps} done`, 'long_running_job');
        if (args.confirm && i === Math.ceil(steps / 2)) {
          const answer = await ctx.elicitForm({
            message: `The job is half way (${i} of ${steps} steps). Continue?`,
            requestedSchema: {
              type: 'object',
              properties: { continue: { type: 'boolean', description: 'Continue the job', default: true } },
              required: ['continue'],
            },
          });
          if (answer.action !== 'accept' || answer.content?.continue !== true) {
            return { content: [{ type: 'text', text: `stopped by the user after ${i} of ${steps} steps` }], isError: true };
          }
        }
      }
      if (args.fail) return { content: [{ type: 'text', text: `the job failed after ${steps} steps (as asked)` }], isError: true };
      return { content: [{ type: 'text', text: `finished ${steps} steps in ${Date.now() - started} ms` }] };
    },
  );
  server.registerTool('list_roots', { description: "Lists the client's roots", inputSchema: noArgs }, async (_args, ctx) => {
    const roots = await ctx.listRoots();
    return { content: [{ type: 'text', text: JSON.stringify(roots) }] };
  });
  server.registerTool(
    'sample_with_tools',
    {
      description: 'Sampling with a tool the model may call (SEP-1577)',
      inputSchema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
    },
    async (args: { question: string }, ctx) => {
      const tools = [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ];
      const messages: SamplingMessage[] = [{ role: 'user', content: { type: 'text', text: args.question } }];
      for (let round = 0; round < 4; round++) {
        const r = await ctx.createMessage({ messages, maxTokens: 200, tools, toolChoice: { mode: 'auto' } });
        const blocks = Array.isArray(r.content) ? r.content : [r.content];
        const uses = blocks.filter((b) => b.type === 'tool_use');
        if (r.stopReason !== 'toolUse' || uses.length === 0) {
          const text = blocks.find((b) => b.type === 'text');
          return { content: [{ type: 'text', text: text && text.type === 'text' ? text.text : '' }] };
        }
        messages.push({ role: 'assistant', content: blocks });
        messages.push({
          role: 'user',
          content: uses.map((u) => ({
            type: 'tool_result',
            toolUseId: (u as { id: string }).id,
            content: [{ type: 'text', text: `Sunny in ${String((u as { input: JSONObject }).input.city)}` }],
          })),
        });
      }
      return { content: [{ type: 'text', text: 'The model kept calling tools' }], isError: true };
    },
  );
  server.registerTool(
    'connect_account',
    {
      description: 'URL-mode elicitation: asks the user to visit a page (SEP-1036)',
      inputSchema: { type: 'object', properties: { mode: { type: 'string', enum: ['request', 'error'] } } },
    },
    async (args: { mode?: string }, ctx) => {
      const url = 'https://example.com/connect?session=demo';
      if (args.mode === 'error') {
        const elicitationId = crypto.randomUUID();
        ctx.connection?.trackElicitation(elicitationId);
        throw UrlElicitationRequiredError.of([{ mode: 'url', elicitationId, url, message: 'Connect your account to continue' }]);
      }
      const r = await ctx.elicitUrl({ message: 'Connect your account to continue', url });
      if (r.action === 'accept') queueMicrotask(() => void ctx.connection?.notifyElicitationComplete(r.elicitationId).catch(() => {}));
      return { content: [{ type: 'text', text: `action=${r.action} elicitationId=${r.elicitationId}` }] };
    },
  );
  server.registerTool('link_resource', { description: 'Returns a resource_link to the static text resource', inputSchema: noArgs }, () => ({
    content: [{ type: 'resource_link', uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain', description: 'A static text resource' }],
  }));
  let extra: { remove(): void } | undefined;
  server.registerTool('toggle_extra_tool', { description: 'Adds or removes the tool "extra" (sends tools/list_changed)', inputSchema: noArgs }, () => {
    if (extra) {
      extra.remove();
      extra = undefined;
      return 'removed extra';
    }
    extra = server.registerTool('extra', { description: 'Exists while toggled on', inputSchema: noArgs }, () => 'extra');
    return 'added extra';
  });
  server.registerTool(
    'touch_watched_resource',
    { description: 'Sends resources/updated for test://watched-resource to subscribers', inputSchema: noArgs },
    async () => {
      watched++;
      await server.notifyResourceUpdated('test://watched-resource');
      return `version ${watched}`;
    },
  );

  // ───────────── resources ─────────────
  let watched = 0;
  server.registerResource(
    'test://static-text',
    { name: 'static-text', title: 'Static text', description: 'A static text resource', mimeType: 'text/plain' },
    (uri) => ({
      uri,
      mimeType: 'text/plain',
      text: 'This is the content of the static text resource.',
    }),
  );
  server.registerResource('test://static-binary', { name: 'static-binary', description: 'A static binary resource (PNG)', mimeType: 'image/png' }, (uri) => ({
    uri,
    mimeType: 'image/png',
    blob: PNG_1X1,
  }));
  server.registerResource(
    'test://watched-resource',
    { name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
    (uri) => ({
      uri,
      mimeType: 'text/plain',
      text: `Watched resource, version ${watched}`,
    }),
  );
  server.registerResourceTemplate(
    'test://template/{id}/data',
    {
      name: 'template-data',
      description: 'Data for an id',
      mimeType: 'application/json',
      complete: { id: (value) => ['123', '456', '789'].filter((v) => v.startsWith(value)) },
    },
    (uri, vars) => ({
      uri,
      mimeType: 'application/json',
      text: JSON.stringify({ id: vars.id, templateTest: true, data: `Data for ID: ${String(vars.id)}` }),
    }),
  );

  // ───────────── prompts ─────────────
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      complete: {
        arg1: (value) => ['paris', 'park', 'test', 'testValue1'].filter((v) => v.startsWith(value)),
        arg2: (value, context) => [`${context.arguments.arg1 ?? 'x'}-suffix`, 'testValue2'].filter((v) => v.startsWith(value)),
      },
    },
    (args) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt that embeds a resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    (args) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: args.resourceUri!, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  return server;
}
