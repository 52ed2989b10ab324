/**
 * Interop: mcpkit's `Client` over mcpkit's `StdioClientTransport` drives a server built with
 * the OFFICIAL TypeScript SDK (`fixtures/official-server.ts`, run as a child process).
 *
 * mcpkit's transport is wrapped by `recordTransport`, so every message mcpkit sends is
 * checked against the official JSON Schema of the negotiated revision (`violations()`), and
 * what the official server sends is checked too (`peerViolations()`), which keeps the
 * schema oracle honest against a second implementation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { UrlElicitationRequest } from '../../src/client/client.js';
import { Client } from '../../src/client/index.js';
import { LocalError, McpError, UrlElicitationRequiredError } from '../../src/jsonrpc/errors.js';
import type { JSONObject } from '../../src/jsonrpc/types.js';
import type { Progress } from '../../src/session/session.js';
import { StdioClientTransport } from '../../src/stdio/index.js';
import { type RecordingTransport, recordTransport } from '../../src/testing/recording-transport.js';
import { validateWireMessage } from '../../src/testing/wire-schema.js';
import type { CallToolResult, CreateMessageRequestParams, CreateMessageResult, ElicitFormParams, TextContent, ToolResultContent } from '../../src/types.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { waitFor } from '../helpers/wait.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/official-server.js', import.meta.url));
const ROOTS = [{ uri: 'file:///home/user/project', name: 'project' }];

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms; rejects after `ms` naming `what`. */
function textOf(result: CallToolResult): string {
  const first = result.content[0];
  assert.equal(first?.type, 'text');
  return (first as TextContent).text;
}

/** What one mcpkit-client connection collected. */
interface Connection {
  client: Client;
  recorder: RecordingTransport;
  transport: StdioClientTransport;
  sampling: CreateMessageRequestParams[];
  forms: ElicitFormParams[];
  urls: UrlElicitationRequest[];
  rootsAsked: number;
  errors: Error[];
}

/** Spawns the official fixture in `mode` and connects an mcpkit client with every handler. */
async function connect(mode: 'full' | 'paged', protocolVersion?: string): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE, mode],
    stderr: 'pipe',
    closeTimeouts: { stdinMs: 1000, termMs: 1000 },
  });
  // The handlers below run only after connect(), by which time `c` is assigned.
  let c!: Connection;
  const recorder = recordTransport(transport, { side: 'client', revision: () => c.client.protocolVersion });
  const client = new Client(
    { name: 'mcpkit-interop-client', version: '0.1.0' },
    {
      requestTimeoutMs: 10_000,
      onError: (error) => c.errors.push(error),
      ...(protocolVersion === undefined ? {} : { protocolVersion }),
      roots: {
        list: () => {
          c.rootsAsked++;
          return ROOTS;
        },
        listChanged: true,
      },
      sampling: {
        tools: true,
        createMessage: (params) => {
          c.sampling.push(params);
          if (params.tools !== undefined) return answerWithTools(params);
          const content = Array.isArray(params.messages[0]!.content) ? params.messages[0]!.content[0] : params.messages[0]!.content;
          return {
            role: 'assistant',
            model: 'mcpkit-test-model',
            stopReason: 'endTurn',
            content: { type: 'text', text: `answer to ${(content as TextContent).text}` },
          };
        },
      },
      elicitation: {
        form: (params) => {
          c.forms.push(params);
          return { action: 'accept', content: { name: 'Ada', color: 'green' } };
        },
        url: async (request) => {
          c.urls.push(request);
          return 'accept';
        },
      },
    },
  );
  c = { client, recorder, transport, sampling: [], forms: [], urls: [], rootsAsked: 0, errors: [] };
  await client.connect(recorder);
  return c;
}

/** A fake model for sampling with tools: first calls the tool, then answers with its result. */
function answerWithTools(params: CreateMessageRequestParams): CreateMessageResult {
  const last = params.messages[params.messages.length - 1]!;
  const blocks = Array.isArray(last.content) ? last.content : [last.content];
  const result = blocks.find((b): b is ToolResultContent => b.type === 'tool_result');
  if (result === undefined) {
    return {
      role: 'assistant',
      model: 'mcpkit-test-model',
      stopReason: 'toolUse',
      content: [{ type: 'tool_use', id: 'use-1', name: params.tools![0]!.name, input: { city: 'Oslo' } }],
    };
  }
  return {
    role: 'assistant',
    model: 'mcpkit-test-model',
    stopReason: 'endTurn',
    content: { type: 'text', text: `The tool says: ${(result.content[0] as TextContent).text}` },
  };
}

/** Asserts every message mcpkit sent was valid under the official schema of its revision. */
function assertOwnMessagesValid(c: Connection): void {
  const problems = c.recorder.violations();
  assert.deepEqual(
    problems,
    [],
    `mcpkit sent messages that violate the official schema:\n${problems.join('\n')}\n--- transcript ---\n${c.recorder.formatTranscript({ maxLineLength: 600 })}`,
  );
}

describe('mcpkit client → official SDK server (McpServer) over stdio', { timeout: SUITE_TIMEOUT_MS }, () => {
  let c: Connection;
  let client: Client;
  const logs: JSONObject[] = [];
  const updated: string[] = [];
  const completed: string[] = [];
  let toolsChanged = 0;

  before(async () => {
    c = await connect('full');
    client = c.client;
    client.on('notifications/message', (p) => void logs.push(p!));
    client.on('notifications/resources/updated', (p) => void updated.push(p!.uri as string));
    client.on('notifications/elicitation/complete', (p) => void completed.push(p!.elicitationId as string));
    client.on('notifications/tools/list_changed', () => void toolsChanged++);
  });

  after(async () => {
    await client?.close();
  });

  it('initializes with the official server: revision, info, capabilities, instructions', () => {
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.equal(client.serverInfo?.name, 'official-fixture');
    assert.equal(client.serverInfo?.title, 'Official SDK fixture');
    const caps = client.serverCapabilities!;
    assert.ok(caps.tools);
    assert.deepEqual(caps.logging, {});
    assert.equal((caps.resources as JSONObject).subscribe, true);
    assert.ok(caps.prompts);
    assert.ok(caps.completions);
    assert.equal(client.instructions, 'Built with @modelcontextprotocol/sdk.');
  });

  it('ping both ways', async () => {
    assert.deepEqual(await client.ping(), {});
    const r = await client.callTool({ name: 'ping_client' });
    assert.equal(textOf(r), 'pong');
  });

  it('tools/list: zod schemas arrive as JSON Schema objects', async () => {
    const tools = await client.listAllTools();
    const names = tools.map((t) => t.name);
    for (const n of [
      'greet',
      'image',
      'audio',
      'embedded',
      'link',
      'add',
      'log',
      'progress',
      'fail',
      'sample',
      'elicit',
      'connect',
      'needs_auth',
      'roots',
      'wait_for_cancel',
      'toggle_tool',
      'touch',
    ]) {
      assert.ok(names.includes(n), `has ${n}`);
    }
    const greet = tools.find((t) => t.name === 'greet')!;
    assert.equal(greet.inputSchema.type, 'object');
    assert.deepEqual((greet.inputSchema.properties as JSONObject).name, { type: 'string' });
    const add = tools.find((t) => t.name === 'add')!;
    assert.equal(add.outputSchema?.type, 'object');
    assert.deepEqual(add.outputSchema?.required, ['sum']);
  });

  it('content tools: text, image, audio, embedded resource, resource link', async () => {
    assert.equal(textOf(await client.callTool({ name: 'greet', arguments: { name: 'mcpkit' } })), 'Hello, mcpkit!');
    const image = (await client.callTool({ name: 'image' })).content[0]!;
    assert.equal(image.type, 'image');
    assert.equal(image.type === 'image' && image.mimeType, 'image/png');
    const audio = (await client.callTool({ name: 'audio' })).content[0]!;
    assert.ok(audio.type === 'audio');
    assert.equal(Buffer.from(audio.data, 'base64').subarray(0, 4).toString('latin1'), 'RIFF');
    const embedded = (await client.callTool({ name: 'embedded' })).content[0]!;
    assert.ok(embedded.type === 'resource');
    assert.deepEqual(embedded.resource, { uri: 'fixture://readme', mimeType: 'text/plain', text: 'Hello from the official SDK' });
    const link = (await client.callTool({ name: 'link' })).content[0]!;
    assert.ok(link.type === 'resource_link');
    assert.equal(link.uri, 'fixture://readme');
  });

  it('structured output validates against the official outputSchema', async () => {
    const r = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    assert.deepEqual(r.structuredContent, { sum: 42 });
    assert.equal(textOf(r), '42');
  });

  it('tool errors and invalid arguments are isError results; unknown tools too (the official server does so)', async () => {
    const failed = await client.callTool({ name: 'fail' });
    assert.equal(failed.isError, true);
    assert.match(textOf(failed), /fixture failure/);
    const invalid = await client.callTool({ name: 'greet', arguments: { name: 7 } });
    assert.equal(invalid.isError, true);
    assert.match(textOf(invalid), /validation/i);
    const unknown = await client.callTool({ name: 'no_such_tool' });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /not found/);
  });

  it('logging: setLevel filters on the official server; listeners receive notifications/message', async () => {
    await client.setLoggingLevel('warning');
    const before = logs.length;
    assert.equal(textOf(await client.callTool({ name: 'log' })), 'logged');
    await waitFor(() => logs.length > before, 'the warning');
    await sleep(30);
    assert.deepEqual(logs.slice(before), [{ level: 'warning', logger: 'fixture', data: 'warning message' }]);
    await client.setLoggingLevel('debug');
    const all = logs.length;
    await client.callTool({ name: 'log' });
    await waitFor(() => logs.length - all >= 3, 'three log messages');
    assert.deepEqual(
      logs.slice(all).map((l) => l.level),
      ['debug', 'info', 'warning'],
    );
  });

  it('notification listeners can be removed, whether added before or after connecting', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE, 'full'], stderr: 'pipe' });
    const other = new Client({ name: 'listeners', version: '0' });
    let early = 0;
    let late = 0;
    const offEarly = other.on('notifications/message', () => void early++);
    await other.connect(transport);
    try {
      const offLate = other.on('notifications/message', () => void late++);
      await other.setLoggingLevel('debug');
      await other.callTool({ name: 'log' });
      await waitFor(() => early >= 3 && late >= 3, 'logs to both listeners');
      offEarly();
      offLate();
      const [e, l] = [early, late];
      await other.callTool({ name: 'log' });
      await sleep(50);
      assert.equal(late, l, 'a listener added after connecting stops when removed');
      assert.equal(early, e, 'a listener added before connecting stops when removed');
    } finally {
      await other.close();
    }
  });

  it('progress reaches onProgress in order', async () => {
    const seen: Progress[] = [];
    const r = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onProgress: (p) => seen.push(p) });
    assert.match(textOf(r), /^token \d+$/);
    assert.deepEqual(seen, [
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  it('sampling: the official server asks mcpkit; the handler is invoked', async () => {
    const r = await client.callTool({ name: 'sample', arguments: { prompt: 'Hi there' } });
    assert.equal(textOf(r), 'mcpkit-test-model: answer to Hi there');
    const asked = c.sampling.at(-1)!;
    assert.equal(asked.maxTokens, 64);
    assert.equal(asked.systemPrompt, 'Be brief.');
  });

  it('sampling with tools (SEP-1577): tool_use, tool_result, final answer', async () => {
    const r = await client.callTool({ name: 'sample_with_tools', arguments: { city: 'Oslo' } });
    assert.equal(textOf(r), 'rounds=2 The tool says: Rain in Oslo');
    const rounds = c.sampling.filter((p) => p.tools !== undefined);
    assert.equal(rounds.length, 2);
    assert.deepEqual(rounds[0]!.toolChoice, { mode: 'auto' });
    assert.equal(rounds[1]!.messages.length, 3);
  });

  it('elicitation (form): mcpkit fills the default; the official server validates the answer', async () => {
    const r = await client.callTool({ name: 'elicit' });
    assert.deepEqual(JSON.parse(textOf(r)), { action: 'accept', content: { name: 'Ada', color: 'green', age: 42 } });
    const form = c.forms.at(-1)!;
    assert.equal(form.message, 'Tell me about you');
    assert.deepEqual(form.requestedSchema.required, ['name']);
  });

  it('elicitation (URL): consent callback with the domain, then notifications/elicitation/complete', async () => {
    const r = await client.callTool({ name: 'connect' });
    assert.equal(textOf(r), 'action=accept');
    assert.deepEqual(c.urls.at(-1), {
      url: 'https://auth.example.com/start?flow=1',
      domain: 'auth.example.com',
      message: 'Sign in to continue',
      elicitationId: 'elicit-connect-1',
    });
    await waitFor(() => completed.includes('elicit-connect-1'), 'notifications/elicitation/complete');
  });

  it('-32042 from the official server rejects with UrlElicitationRequiredError', async () => {
    await assert.rejects(client.callTool({ name: 'needs_auth' }), (err: unknown) => {
      assert.ok(err instanceof UrlElicitationRequiredError);
      assert.equal(err.code, -32042);
      assert.deepEqual(err.elicitations, [{ mode: 'url', elicitationId: 'e-123', url: 'https://auth.example.com/e-123', message: 'Sign in first' }]);
      return true;
    });
  });

  it('roots: the official server lists them; roots/list_changed reaches it', async () => {
    const r = await client.callTool({ name: 'roots' });
    assert.deepEqual(JSON.parse(textOf(r)), ROOTS);
    assert.ok(c.rootsAsked >= 1);
    await client.sendRootsListChanged();
    let count = '0';
    for (let i = 0; i < 50 && count !== '1'; i++) {
      count = textOf(await client.callTool({ name: 'roots_changes' }));
      if (count !== '1') await sleep(20);
    }
    assert.equal(count, '1');
  });

  it('cancellation: aborting the signal rejects locally and aborts extra.signal on the official server', async () => {
    const controller = new AbortController();
    let progressed = false;
    const call = client.callTool({ name: 'wait_for_cancel' }, { signal: controller.signal, onProgress: () => void (progressed = true) });
    await waitFor(() => progressed, 'wait_for_cancel to start');
    controller.abort('user stop');
    await assert.rejects(call, (err: unknown) => err instanceof LocalError && err.code === 'cancelled');
    let status: { started: boolean; aborted: boolean; reason?: string } = { started: false, aborted: false };
    for (let i = 0; i < 50 && !status.aborted; i++) {
      status = JSON.parse(textOf(await client.callTool({ name: 'cancel_status' })));
      if (!status.aborted) await sleep(20);
    }
    assert.deepEqual(status, { started: true, aborted: true, reason: 'user stop' });
    assert.deepEqual(await client.ping(), {});
  });

  it('resources: list, read text and blob, template read, templates list', async () => {
    const resources = await client.listAllResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), ['fixture://logo.png', 'fixture://readme']);
    assert.equal(resources.find((r) => r.uri === 'fixture://readme')?.title, 'Readme');
    const readme = await client.readResource('fixture://readme');
    assert.deepEqual(readme.contents, [{ uri: 'fixture://readme', mimeType: 'text/plain', text: 'Hello from the official SDK' }]);
    const logo = (await client.readResource('fixture://logo.png')).contents[0]!;
    assert.ok('blob' in logo);
    assert.equal(Buffer.from(logo.blob, 'base64').subarray(1, 4).toString('latin1'), 'PNG');
    const item = (await client.readResource('fixture://items/fruit/apple')).contents[0]!;
    assert.ok('text' in item);
    assert.deepEqual(JSON.parse(item.text), { category: 'fruit', id: 'apple' });
    const templates = await client.listAllResourceTemplates();
    assert.deepEqual(
      templates.map((t) => [t.name, t.uriTemplate]),
      [['item', 'fixture://items/{category}/{id}']],
    );
    await assert.rejects(client.readResource('fixture://missing'), (err: unknown) => err instanceof McpError);
  });

  it('subscribe → resources/updated; unsubscribe stops it', async () => {
    await client.subscribeResource('fixture://readme');
    assert.equal(textOf(await client.callTool({ name: 'touch', arguments: { uri: 'fixture://readme' } })), 'subscribed=true');
    await waitFor(() => updated.includes('fixture://readme'), 'resources/updated');
    await client.unsubscribeResource('fixture://readme');
    const count = updated.length;
    assert.equal(textOf(await client.callTool({ name: 'touch', arguments: { uri: 'fixture://readme' } })), 'subscribed=false');
    await sleep(30);
    assert.equal(updated.length, count);
  });

  it('prompts: list and get with arguments', async () => {
    const prompts = await client.listAllPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['plain', 'summarize']);
    const summarize = prompts.find((p) => p.name === 'summarize')!;
    assert.deepEqual(
      summarize.arguments?.map((a) => [a.name, a.required]),
      [
        ['topic', true],
        ['style', true],
      ],
    );
    const plain = await client.getPrompt('plain');
    assert.deepEqual(plain.messages, [{ role: 'user', content: { type: 'text', text: 'A plain prompt.' } }]);
    const got = await client.getPrompt('summarize', { topic: 'mcp', style: 'terse' });
    assert.equal(got.description, 'Summary of mcp');
    assert.deepEqual(got.messages[0], { role: 'user', content: { type: 'text', text: 'Summarize mcp in a terse style.' } });
    assert.equal(got.messages[1]!.content.type, 'resource');
  });

  it('completion: prompt arguments and template variables, with context', async () => {
    assert.deepEqual((await client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: 'mc' })).completion.values, ['mcp', 'mcpkit']);
    assert.deepEqual((await client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'style', value: '' }, { topic: 'mcp' })).completion.values, [
      'terse',
      'detailed',
    ]);
    assert.deepEqual((await client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'style', value: '' }, { topic: 'zebra' })).completion.values, [
      'plain',
    ]);
    const uri = 'fixture://items/{category}/{id}';
    assert.deepEqual((await client.complete({ type: 'ref/resource', uri }, { name: 'category', value: 'f' })).completion.values, ['fruit']);
    assert.deepEqual((await client.complete({ type: 'ref/resource', uri }, { name: 'id', value: 'ap' }, { category: 'fruit' })).completion.values, [
      'apple',
      'apricot',
    ]);
  });

  it('tools/list_changed when the official server adds and removes a tool', async () => {
    const before = toolsChanged;
    assert.equal(textOf(await client.callTool({ name: 'toggle_tool' })), 'added');
    await waitFor(() => toolsChanged > before, 'tools/list_changed');
    assert.ok((await client.listAllTools()).some((t) => t.name === 'dynamic'));
    assert.equal(textOf(await client.callTool({ name: 'dynamic' })), 'dynamic');
    const middle = toolsChanged;
    assert.equal(textOf(await client.callTool({ name: 'toggle_tool' })), 'removed');
    await waitFor(() => toolsChanged > middle, 'the second tools/list_changed');
    assert.ok(!(await client.listAllTools()).some((t) => t.name === 'dynamic'));
  });

  it('every message mcpkit sent validates against the official 2025-11-25 schema', () => {
    assertOwnMessagesValid(c);
    assert.ok(c.recorder.transcript.filter((e) => e.dir === 'send').length > 40);
    // The oracle is not vacuous: an initialize request without clientInfo is reported.
    const init = c.recorder.transcript.find((e) => e.dir === 'send' && (e.message as { method?: string }).method === 'initialize')!;
    const broken = structuredClone(init.message) as { params: { clientInfo?: unknown } };
    delete broken.params.clientInfo;
    assert.notDeepEqual(validateWireMessage('2025-11-25', broken, { sender: 'client' }), []);
    assert.deepEqual(
      c.errors.map((e) => e.message),
      [],
    );
  });

  it("the official server's own messages validate too", () => {
    const problems = c.recorder.peerViolations();
    assert.deepEqual(problems, [], problems.join('\n'));
  });
});

describe('mcpkit client → official low-level Server: pagination and output schemas', { timeout: SUITE_TIMEOUT_MS }, () => {
  let c: Connection;

  before(async () => {
    c = await connect('paged');
  });

  after(async () => {
    await c?.client.close();
  });

  it('listAllTools follows nextCursor across every page', async () => {
    const tools = await c.client.listAllTools();
    assert.equal(tools.length, 29);
    assert.equal(new Set(tools.map((t) => t.name)).size, 29);
    const cursors = c.recorder.transcript
      .filter((e) => e.dir === 'send' && (e.message as { method?: string }).method === 'tools/list')
      .map((e) => (e.message as { params?: { cursor?: string } }).params?.cursor);
    assert.deepEqual(cursors, [undefined, '8', '16', '24']);
    const first = await c.client.listTools();
    assert.equal(first.tools.length, 8);
    assert.equal(first.nextCursor, '8');
    await assert.rejects(c.client.listTools('bogus'), (err: unknown) => err instanceof McpError && err.code === -32602);
  });

  it('callTool checks structuredContent against the declared outputSchema', async () => {
    assert.deepEqual((await c.client.callTool({ name: 'good_output' })).structuredContent, { sum: 5 });
    await assert.rejects(
      c.client.callTool({ name: 'bad_output' }),
      (err: unknown) => err instanceof LocalError && err.code === 'invalid_result' && /output schema/.test(err.message),
    );
    await assert.rejects(c.client.callTool({ name: 'missing_output' }), (err: unknown) => err instanceof LocalError && err.code === 'invalid_result');
    assert.equal(textOf(await c.client.callTool({ name: 'tool_17' })), 'tool_17');
    await assert.rejects(c.client.callTool({ name: 'nope' }), (err: unknown) => err instanceof McpError && err.code === -32602);
  });

  it('every message mcpkit sent validates', () => {
    assertOwnMessagesValid(c);
    assert.deepEqual(
      c.errors.map((e) => e.message),
      [],
    );
  });
});

describe('mcpkit client pinned to older revisions against the official server', { timeout: SUITE_TIMEOUT_MS }, () => {
  for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18']) {
    it(`${revision}: handshake, tools, sampling, ping; messages valid under ${revision}`, async () => {
      const c = await connect('full', revision);
      try {
        assert.equal(c.client.protocolVersion, revision);
        assert.ok((await c.client.listAllTools()).some((t) => t.name === 'greet'));
        assert.equal(textOf(await c.client.callTool({ name: 'greet', arguments: { name: revision } })), `Hello, ${revision}!`);
        assert.equal(textOf(await c.client.callTool({ name: 'sample', arguments: { prompt: 'old' } })), 'mcpkit-test-model: answer to old');
        assert.deepEqual(await c.client.ping(), {});
        assertOwnMessagesValid(c);
      } finally {
        await c.client.close();
      }
    });
  }
});
