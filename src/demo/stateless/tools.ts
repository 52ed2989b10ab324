/**
 * The demo's tools and prompt for the stateless era (2026-07-28): the diagnostic tools the
 * conformance suite's `server-stateless` scenario calls, the multi round-trip tools and
 * prompt of its `input-required-result-*` scenarios, and a tool whose arguments are
 * mirrored into `Mcp-Param-*` headers (`x-mcp-header`). They work in the 2025 era too: the
 * context methods ask the client with real requests there. Public API only; runtime-neutral.
 */
import type { McpServer } from '../../server/index.js';
import type { ElicitRequestedSchema } from '../../types.js';
import { type DemoToggles, ToggledRegistration } from '../toggles.js';

const noArgs = { type: 'object', properties: {} };
const nameSchema: ElicitRequestedSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

function textOf(content: unknown): string {
  const first = Array.isArray(content) ? content[0] : content;
  return typeof first === 'object' && first !== null && (first as { type?: unknown }).type === 'text'
    ? String((first as { text?: unknown }).text)
    : JSON.stringify(content);
}

/**
 * Registers the stateless-era demo tools and prompt on `server` (before it is connected);
 * with `toggles` the dynamic tool and prompt are shared by every instance (see toggles.ts).
 */
export function registerStatelessDemo(server: McpServer, toggles?: DemoToggles): void {
  // ───────────── server-stateless diagnostics ─────────────
  server.registerTool(
    'test_missing_capability',
    { description: 'Needs the sampling capability: without it the request fails with -32021', inputSchema: noArgs },
    async (_args, ctx) => {
      const r = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 });
      return `LLM said: ${textOf(r.content)}`;
    },
  );
  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Reports progress, then asks the user for their name', inputSchema: noArgs },
    async (_args, ctx) => {
      await ctx.sendProgress(1, 2, 'Asking for a name');
      const r = await ctx.elicitForm({ message: 'What is your name?', requestedSchema: nameSchema }, { inputKey: 'user_name' });
      return `Hello, ${r.action === 'accept' ? String(r.content?.name) : 'stranger'}!`;
    },
  );
  server.registerTool(
    'test_logging_tool',
    { description: 'Logs three messages (sent only when the request asked for logs)', inputSchema: noArgs },
    async (_args, ctx) => {
      await ctx.log('info', 'Logging tool started');
      await ctx.log('debug', 'Logging tool working');
      await ctx.log('info', 'Logging tool finished');
      return 'Logged three messages';
    },
  );
  // Toggled registrations: local to this server, or shared by every instance with `toggles`.
  const toggled = (triggerName: string, what: string, kind: string, register: () => { remove(): void }) => {
    let handle: { remove(): void } | undefined;
    const registration = new ToggledRegistration((on) => {
      if (on) handle = register();
      else {
        handle?.remove();
        handle = undefined;
      }
    });
    let local = 0;
    toggles?.onFlip((name, state) => {
      if (name === what) registration.update(state);
    });
    server.registerTool(
      triggerName,
      {
        description: `Adds or removes a ${kind}, which changes the ${kind} list${toggles === undefined ? '' : ' (on every instance of this deployment)'}`,
        inputSchema: noArgs,
      },
      async () => {
        const state = toggles === undefined ? { on: !registration.on, version: ++local } : await toggles.flip(what);
        registration.update(state);
        return `${state.on ? 'added' : 'removed'} ${what}`;
      },
    );
  };
  toggled('test_trigger_tool_change', 'test_dynamic_tool', 'tool', () =>
    server.registerTool('test_dynamic_tool', { description: 'Exists while toggled on', inputSchema: noArgs }, () => 'dynamic'),
  );
  toggled('test_trigger_prompt_change', 'test_dynamic_prompt', 'prompt', () =>
    server.registerPrompt('test_dynamic_prompt', { description: 'Exists while toggled on' }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'dynamic' } }],
    })),
  );

  // ───────────── multi round-trip requests ─────────────
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'Asks for the user name (one elicitation round)', inputSchema: noArgs },
    async (_args, ctx) => {
      const r = await ctx.elicitForm({ message: 'What is your name?', requestedSchema: nameSchema }, { inputKey: 'user_name' });
      return `Hello, ${r.action === 'accept' ? String(r.content?.name) : 'stranger'}!`;
    },
  );
  server.registerTool(
    'test_input_required_result_sampling',
    { description: "Asks the client's LLM a question (one sampling round)", inputSchema: noArgs },
    async (_args, ctx) => {
      const r = await ctx.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
        { inputKey: 'capital_question' },
      );
      return `The model answered: ${textOf(r.content)}`;
    },
  );
  server.registerTool(
    'test_input_required_result_list_roots',
    { description: "Asks for the client's roots (one roots round)", inputSchema: noArgs },
    async (_args, ctx) => {
      const roots = await ctx.listRoots({ inputKey: 'client_roots' });
      return `Roots: ${roots.map((r) => r.uri).join(', ') || '(none)'}`;
    },
  );
  const confirmSchema: ElicitRequestedSchema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
  server.registerTool(
    'test_input_required_result_request_state',
    { description: 'Asks for a confirmation; the answer comes back with the signed request state', inputSchema: noArgs },
    async (_args, ctx) => {
      const r = await ctx.elicitForm({ message: 'Please confirm', requestedSchema: confirmSchema }, { inputKey: 'confirm' });
      return `state-ok: confirmed=${String(r.content?.ok ?? false)}`;
    },
  );
  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'Asks for a confirmation; a tampered request state is refused', inputSchema: noArgs },
    async (_args, ctx) => {
      const r = await ctx.elicitForm({ message: 'Please confirm', requestedSchema: confirmSchema }, { inputKey: 'confirm' });
      return `state-ok: confirmed=${String(r.content?.ok ?? false)}`;
    },
  );
  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for a name, a greeting and the roots at once', inputSchema: noArgs },
    async (_args, ctx) => {
      const [user, greeting, roots] = await Promise.all([
        ctx.elicitForm({ message: 'What is your name?', requestedSchema: nameSchema }, { inputKey: 'user_name' }),
        ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { inputKey: 'greeting' }),
        ctx.listRoots({ inputKey: 'client_roots' }),
      ]);
      return `${textOf(greeting.content)} ${String(user.content?.name)} (${roots.length} root${roots.length === 1 ? '' : 's'})`;
    },
  );
  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'Asks two questions, one round each', inputSchema: noArgs },
    async (_args, ctx) => {
      const step1 = await ctx.elicitForm({ message: 'Step 1: What is your name?', requestedSchema: nameSchema }, { inputKey: 'step1' });
      const step2 = await ctx.elicitForm(
        {
          message: 'Step 2: What is your favorite color?',
          requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        },
        { inputKey: 'step2' },
      );
      return `${String(step1.content?.name)} likes ${String(step2.content?.color)}`;
    },
  );
  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'Asks only for what the client declared it supports', inputSchema: noArgs },
    async (_args, ctx) => {
      const caps = ctx.clientCapabilities ?? {};
      const asks: Promise<unknown>[] = [];
      if (caps.sampling !== undefined)
        asks.push(ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 }, { inputKey: 'greeting' }));
      if (caps.elicitation !== undefined) asks.push(ctx.elicitForm({ message: 'What is your name?', requestedSchema: nameSchema }, { inputKey: 'user_name' }));
      if (caps.roots !== undefined) asks.push(ctx.listRoots({ inputKey: 'client_roots' }));
      await Promise.all(asks);
      return `Asked for ${asks.length} input${asks.length === 1 ? '' : 's'}`;
    },
  );
  server.registerPrompt('test_input_required_result_prompt', { description: 'A prompt that asks the user for context first' }, async (_args, ctx) => {
    const r = await ctx.elicitForm(
      {
        message: 'What context should the prompt use?',
        requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
      },
      { inputKey: 'user_context' },
    );
    return { messages: [{ role: 'user', content: { type: 'text', text: `Answer with this context in mind: ${String(r.content?.context)}` } }] };
  });

  // ───────────── custom headers (x-mcp-header) ─────────────
  server.registerTool(
    'test_custom_headers',
    {
      description: 'Arguments region, priority and verbose are mirrored into Mcp-Param-* headers over Streamable HTTP',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', description: 'Where to run', 'x-mcp-header': 'Region' },
          priority: { type: 'integer', description: 'How urgent', 'x-mcp-header': 'Priority' },
          verbose: { type: 'boolean', description: 'Say more', 'x-mcp-header': 'Verbose' },
          query: { type: 'string', description: 'Not mirrored' },
        },
        required: ['region'],
      },
    },
    (args: { region: string; priority?: number; verbose?: boolean; query?: string }) =>
      `region=${args.region} priority=${args.priority ?? '-'} verbose=${args.verbose ?? '-'} query=${args.query ?? '-'}`,
  );
}
