/**
 * Interop: the OFFICIAL TypeScript SDK client drives mcpkit's demo server
 * (`node bin/mcpkit.js demo`) over stdio, feature by feature.
 *
 * The child is spawned by a plain test transport whose stdout lines are recorded before the
 * official client parses them, so every message mcpkit wrote is also checked against the
 * official JSON Schema of the negotiated revision (`peerViolations()` of the recorder).
 * One more test uses the SDK's own `StdioClientTransport`, so nothing of the harness sits
 * between the two implementations there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { type RecordingTransport, recordTransport } from '../../src/testing/recording-transport.js';
import { validateWireMessage } from '../../src/testing/wire-schema.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { waitFor } from '../helpers/wait.js';
import { demoServerCommand, RawStdioTransport } from './fixtures/raw-stdio-transport.js';
import { SdkTransportBridge } from './fixtures/sdk-transport-bridge.js';

/** A content block or resource contents item, loosely typed for assertions. */
type Loose = { type?: string; text?: string; data?: string; blob?: string; mimeType?: string; uri?: string; name?: string; resource?: Loose };

const ROOTS = [
  { uri: 'file:///work/project', name: 'project' },
  { uri: 'file:///tmp/scratch', name: 'scratch' },
];

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every 10 ms; rejects after `ms` naming `what`. */
function blocks(result: object): Loose[] {
  const content = (result as { content?: unknown }).content;
  assert.ok(Array.isArray(content), 'result has a content array');
  return content as Loose[];
}

function firstText(result: object): string {
  const block = blocks(result)[0];
  assert.equal(block?.type, 'text');
  return block.text!;
}

/** What one official-client connection collected. */
interface Connection {
  client: Client;
  recorder: RecordingTransport;
  bridge: SdkTransportBridge;
  raw: RawStdioTransport;
  logs: Array<{ level: string; data: unknown; logger?: string }>;
  updated: string[];
  toolsChanged: number;
  elicitationsCompleted: string[];
  urlElicitations: Array<{ url: string; elicitationId: string }>;
  sampling: Array<{ tools: boolean; messages: unknown[] }>;
  errors: Error[];
}

/**
 * Spawns the demo server and connects an official client with sampling (with tools),
 * elicitation (form with defaults, and URL) and roots; `proposeVersion` pins the revision.
 */
async function connect(proposeVersion?: string): Promise<Connection> {
  const { command, args } = demoServerCommand();
  const raw = new RawStdioTransport(command, args);
  let bridge!: SdkTransportBridge;
  const recorder = recordTransport(raw, { side: 'client', revision: () => bridge.protocolVersion });
  bridge = new SdkTransportBridge(recorder, proposeVersion === undefined ? {} : { proposeVersion });
  const client = new Client(
    { name: 'official-interop-client', version: '1.0.0' },
    { capabilities: { sampling: { tools: {} }, elicitation: { form: { applyDefaults: true }, url: {} }, roots: { listChanged: true } } },
  );
  const c: Connection = {
    client,
    recorder,
    bridge,
    raw,
    logs: [],
    updated: [],
    toolsChanged: 0,
    elicitationsCompleted: [],
    urlElicitations: [],
    sampling: [],
    errors: [],
  };
  client.onerror = (error) => c.errors.push(error);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    c.logs.push(n.params);
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    c.updated.push(n.params.uri);
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    c.toolsChanged++;
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    c.elicitationsCompleted.push(n.params.elicitationId);
  });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    const p = request.params;
    c.sampling.push({ tools: p.tools !== undefined, messages: p.messages });
    const last = p.messages[p.messages.length - 1]!;
    const content = (Array.isArray(last.content) ? last.content : [last.content]) as Array<Loose & { content?: Loose[] }>;
    if (p.tools !== undefined) {
      const toolResult = content.find((b) => b.type === 'tool_result');
      if (toolResult === undefined) {
        return {
          role: 'assistant',
          model: 'interop-model',
          stopReason: 'toolUse',
          content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } }],
        };
      }
      return {
        role: 'assistant',
        model: 'interop-model',
        stopReason: 'endTurn',
        content: { type: 'text', text: `Forecast: ${toolResult.content?.[0]?.text}` },
      };
    }
    return { role: 'assistant', model: 'interop-model', stopReason: 'endTurn', content: { type: 'text', text: `echo(${content[0]?.text})` } };
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const p = request.params;
    if (p.mode === 'url') {
      c.urlElicitations.push({ url: p.url, elicitationId: p.elicitationId });
      return { action: 'accept' };
    }
    if (p.message.includes('decline')) return { action: 'decline' };
    const fields = Object.keys(p.requestedSchema.properties);
    if (fields.includes('username')) return { action: 'accept', content: { username: 'octocat', email: 'octocat@example.com' } };
    if (fields.includes('untitledSingle')) {
      return {
        action: 'accept',
        content: { untitledSingle: 'option2', titledSingle: 'value3', legacyEnum: 'opt1', untitledMulti: ['option1', 'option3'], titledMulti: ['value2'] },
      };
    }
    // The defaults form: answer one field; the official client fills the rest from the schema defaults.
    return { action: 'accept', content: { name: 'Jane Roe' } };
  });
  await client.connect(bridge, { timeout: 10_000 });
  return c;
}

/** Asserts every message mcpkit wrote was valid under the official schema of its revision. */
function assertMcpkitMessagesValid(c: Connection): void {
  const problems = c.recorder.peerViolations();
  assert.deepEqual(
    problems,
    [],
    `mcpkit sent messages that violate the official schema:\n${problems.join('\n')}\n--- transcript ---\n${c.recorder.formatTranscript({ maxLineLength: 600 })}`,
  );
}

describe('official SDK client → mcpkit demo server over stdio', { timeout: SUITE_TIMEOUT_MS }, () => {
  let c: Connection;
  let client: Client;
  /**
   * Progress tokens for which the official client may legitimately report "unknown token":
   * its own race (see the progress test) and progress already in flight when a request was
   * cancelled.
   */
  const lateProgressTokens = new Set<number>();

  before(async () => {
    c = await connect();
    client = c.client;
  });

  after(async () => {
    await client?.close();
  });

  it('initializes: server info, capabilities, instructions, revision', () => {
    assert.equal(c.bridge.protocolVersion, '2025-11-25');
    const info = client.getServerVersion();
    assert.equal(info?.name, 'mcpkit-demo');
    assert.equal(info?.title, 'mcpkit demo server');
    assert.equal(typeof info?.version, 'string');
    const caps = client.getServerCapabilities();
    assert.deepEqual(caps?.tools, { listChanged: true });
    assert.deepEqual(caps?.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(caps?.prompts, { listChanged: true });
    assert.deepEqual(caps?.logging, {});
    assert.deepEqual(caps?.completions, {});
    assert.match(client.getInstructions() ?? '', /demo server/);
  });

  it('answers ping', async () => {
    assert.deepEqual(await client.ping(), {});
  });

  it('lists every tool with an object inputSchema; the 2020-12 schema arrives verbatim', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const expected of [
      'echo',
      'blob',
      'test_simple_text',
      'test_image_content',
      'test_audio_content',
      'test_embedded_resource',
      'test_multiple_content_types',
      'test_tool_with_logging',
      'test_error_handling',
      'test_tool_with_progress',
      'test_sampling',
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
      'json_schema_2020_12_tool',
      'add',
      'slow',
      'list_roots',
      'sample_with_tools',
      'connect_account',
      'link_resource',
      'toggle_extra_tool',
      'touch_watched_resource',
    ]) {
      assert.ok(names.includes(expected), `tools/list has ${expected}`);
    }
    for (const tool of tools) assert.equal(tool.inputSchema.type, 'object', `${tool.name} has an object inputSchema`);
    const modern = tools.find((t) => t.name === 'json_schema_2020_12_tool')!;
    assert.deepEqual(modern.inputSchema, {
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
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    });
    const add = tools.find((t) => t.name === 'add')!;
    assert.deepEqual(add.outputSchema, { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
    assert.equal(add.annotations?.readOnlyHint, true);
    const r = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada', address: { city: 'London' }, email: 'ada@example.com' } });
    assert.equal(r.isError, undefined);
    assert.match(firstText(r), /London/);
    const rejected = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada', email: 'ada@example.com', extra: 1 } });
    assert.equal(rejected.isError, true, 'additionalProperties: false is enforced');
  });

  it('calls the content tools: text, image, audio, embedded resource, mixed', async () => {
    assert.equal(firstText(await client.callTool({ name: 'test_simple_text', arguments: {} })), 'This is a simple text response for testing.');

    const [image] = blocks(await client.callTool({ name: 'test_image_content', arguments: {} }));
    assert.equal(image?.type, 'image');
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual([...Buffer.from(image.data!, 'base64').subarray(1, 4)], [...Buffer.from('PNG')]);

    const [audio] = blocks(await client.callTool({ name: 'test_audio_content', arguments: {} }));
    assert.equal(audio?.type, 'audio');
    assert.equal(audio.mimeType, 'audio/wav');
    assert.equal(Buffer.from(audio.data!, 'base64').subarray(0, 4).toString('latin1'), 'RIFF');

    const [embedded] = blocks(await client.callTool({ name: 'test_embedded_resource', arguments: {} }));
    assert.equal(embedded?.type, 'resource');
    assert.deepEqual(embedded.resource, { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' });

    const mixed = blocks(await client.callTool({ name: 'test_multiple_content_types', arguments: {} }));
    assert.deepEqual(
      mixed.map((b) => b.type),
      ['text', 'image', 'resource'],
    );
    assert.deepEqual(JSON.parse(mixed[2]!.resource!.text!), { test: 'data', value: 123 });
  });

  it('logging: setLevel debug, then the logging tool sends at least 3 notifications/message', async () => {
    await client.setLoggingLevel('debug');
    const before = c.logs.length;
    const r = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    assert.equal(firstText(r), 'Tool with logging executed successfully');
    await waitFor(() => c.logs.length - before >= 3, 'three log messages');
    assert.deepEqual(
      c.logs.slice(before).map((l) => l.data),
      ['Tool execution started', 'Tool processing data', 'Tool execution completed'],
    );
    await client.setLoggingLevel('error');
    const quiet = c.logs.length;
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await sleep(50);
    assert.equal(c.logs.length, quiet, 'info messages are filtered at level error');
    await client.setLoggingLevel('debug');
  });

  it('a throwing tool is an isError result', async () => {
    const r = await client.callTool({ name: 'test_error_handling', arguments: {} });
    assert.equal(r.isError, true);
    assert.match(firstText(r), /intentionally returns an error/);
  });

  it('progress: three increasing notifications, all written before the response', async () => {
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    const r = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: (p) => seen.push(p) });
    // The tool echoes the progress token, which the official client sets to the request id.
    const token = Number(firstText(r));
    assert.ok(Number.isInteger(token));
    const recv = c.recorder.transcript
      .filter((e) => e.dir === 'recv')
      .map((e) => e.message as { id?: unknown; method?: string; params?: Record<string, unknown> });
    const progress = recv.filter((m) => m.method === 'notifications/progress' && m.params?.progressToken === token);
    assert.deepEqual(
      progress.map((m) => [m.params!.progress, m.params!.total]),
      [
        [0, 100],
        [50, 100],
        [100, 100],
      ],
    );
    const responseAt = recv.findIndex((m) => m.id === token && m.method === undefined);
    assert.ok(
      progress.every((m) => recv.indexOf(m) < responseAt),
      'mcpkit writes every progress notification before the response',
    );
    // The official client dispatches notifications a microtask after responses, so a last
    // notification read in the same chunk as the response is dropped with an "unknown token"
    // error (modelcontextprotocol/typescript-sdk#2580). Everything else must arrive in order.
    assert.ok(seen.length >= 2, `onprogress saw ${seen.length} notifications`);
    assert.deepEqual(
      seen.map((p) => p.progress),
      [0, 50, 100].slice(0, seen.length),
    );
    if (seen.length < 3) lateProgressTokens.add(token);
  });

  it('sampling: the server asks the official client, with and without tools', async () => {
    const r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'What is MCP?' } });
    assert.equal(firstText(r), 'LLM response: echo(What is MCP?)');
    const withTools = await client.callTool({ name: 'sample_with_tools', arguments: { question: 'Weather in Paris?' } });
    assert.equal(withTools.isError, undefined);
    assert.equal(firstText(withTools), 'Forecast: Sunny in Paris');
    const rounds = c.sampling.filter((s) => s.tools);
    assert.equal(rounds.length, 2, 'one tool_use round, then the final answer');
    assert.equal(rounds[1]!.messages.length, 3, 'question, assistant tool_use, user tool_result');
  });

  it('elicitation: form, defaults filled by the official client, enums, decline', async () => {
    const r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    assert.equal(firstText(r), 'User response: action=accept, content={"username":"octocat","email":"octocat@example.com"}');

    const defaults = firstText(await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} }));
    const content = JSON.parse(defaults.slice(defaults.indexOf('content=') + 'content='.length));
    assert.deepEqual(content, { name: 'Jane Roe', age: 30, score: 95.5, status: 'active', verified: true });

    const enums = firstText(await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} }));
    assert.match(enums, /action=accept/);
    assert.match(enums, /"titledMulti":\["value2"\]/);
    assert.match(enums, /"legacyEnum":"opt1"/);

    assert.match(firstText(await client.callTool({ name: 'test_elicitation', arguments: { message: 'please decline' } })), /action=decline, content=\{\}/);
  });

  it('URL elicitation: accepted request, then notifications/elicitation/complete', async () => {
    const r = await client.callTool({ name: 'connect_account', arguments: { mode: 'request' } });
    const text = firstText(r);
    const id = /elicitationId=(\S+)/.exec(text)?.[1];
    assert.match(text, /^action=accept/);
    assert.ok(id);
    assert.deepEqual(c.urlElicitations.at(-1), { url: 'https://example.com/connect?session=demo', elicitationId: id });
    await waitFor(() => c.elicitationsCompleted.includes(id), 'notifications/elicitation/complete');
  });

  it('URL elicitation required (-32042) surfaces as an error with data.elicitations', async () => {
    await assert.rejects(client.callTool({ name: 'connect_account', arguments: { mode: 'error' } }), (err: unknown) => {
      assert.ok(err instanceof McpError);
      assert.equal(err.code, -32042);
      assert.ok(err instanceof UrlElicitationRequiredError, 'the official client builds its UrlElicitationRequiredError');
      const list = (err.data as { elicitations: Array<{ mode: string; url: string; elicitationId: string }> }).elicitations;
      assert.equal(list.length, 1);
      assert.equal(list[0]!.mode, 'url');
      assert.equal(list[0]!.url, 'https://example.com/connect?session=demo');
      assert.equal(typeof list[0]!.elicitationId, 'string');
      return true;
    });
  });

  it('structured output: the official client validates add against its outputSchema', async () => {
    await client.listTools(); // caches the output validators
    const r = await client.callTool({ name: 'add', arguments: { a: 2, b: 3.5 } });
    assert.deepEqual(r.structuredContent, { sum: 5.5 });
    assert.deepEqual(JSON.parse(firstText(r)), { sum: 5.5 });
  });

  it('resource_link content, then reading the linked resource', async () => {
    const [link] = blocks(await client.callTool({ name: 'link_resource', arguments: {} }));
    assert.equal(link?.type, 'resource_link');
    assert.equal(link.uri, 'test://static-text');
    assert.equal(link.name, 'static-text');
    const read = await client.readResource({ uri: link.uri! });
    assert.equal((read.contents[0] as Loose).text, 'This is the content of the static text resource.');
  });

  it('resources: list, read text, read binary, read through the template, list templates', async () => {
    const { resources } = await client.listResources();
    // the test:// resources, beside the demo's skill files (skill://) and app view (ui://)
    assert.deepEqual(
      resources
        .map((r) => r.uri)
        .filter((u) => u.startsWith('test://'))
        .sort(),
      ['test://static-binary', 'test://static-text', 'test://watched-resource'],
    );
    assert.equal(resources.find((r) => r.uri === 'test://static-text')?.mimeType, 'text/plain');

    const text = (await client.readResource({ uri: 'test://static-text' })).contents[0] as Loose;
    assert.deepEqual(text, { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' });

    const binary = (await client.readResource({ uri: 'test://static-binary' })).contents[0] as Loose;
    assert.equal(binary.mimeType, 'image/png');
    assert.equal(Buffer.from(binary.blob!, 'base64').subarray(1, 4).toString('latin1'), 'PNG');

    const templated = (await client.readResource({ uri: 'test://template/42/data' })).contents[0] as Loose;
    assert.equal(templated.uri, 'test://template/42/data');
    assert.deepEqual(JSON.parse(templated.text!), { id: '42', templateTest: true, data: 'Data for ID: 42' });

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      ['test://template/{id}/data'],
    );

    await assert.rejects(client.readResource({ uri: 'test://nothing-here' }), (err: unknown) => err instanceof McpError);
  });

  it('subscribe → resources/updated; unsubscribe → silence', async () => {
    await client.subscribeResource({ uri: 'test://watched-resource' });
    const r = await client.callTool({ name: 'touch_watched_resource', arguments: {} });
    await waitFor(() => c.updated.includes('test://watched-resource'), 'resources/updated');
    const version = /version (\d+)/.exec(firstText(r))![1];
    const read = (await client.readResource({ uri: 'test://watched-resource' })).contents[0] as Loose;
    assert.equal(read.text, `Watched resource, version ${version}`);

    await client.unsubscribeResource({ uri: 'test://watched-resource' });
    const count = c.updated.length;
    await client.callTool({ name: 'touch_watched_resource', arguments: {} });
    await sleep(50);
    assert.equal(c.updated.length, count, 'no update after unsubscribing');
  });

  it('prompts: list and get (simple, with arguments, embedded resource, image)', async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), [
      'test_input_required_result_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_simple_prompt',
    ]);
    assert.deepEqual(
      prompts.find((p) => p.name === 'test_prompt_with_arguments')?.arguments?.map((a) => [a.name, a.required]),
      [
        ['arg1', true],
        ['arg2', true],
      ],
    );

    const simple = await client.getPrompt({ name: 'test_simple_prompt' });
    assert.deepEqual(simple.messages, [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);

    const withArgs = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'alpha', arg2: 'beta' } });
    assert.equal((withArgs.messages[0]!.content as Loose).text, "Prompt with arguments: arg1='alpha', arg2='beta'");

    const embedded = await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://static-text' } });
    const first = embedded.messages[0]!.content as Loose;
    assert.equal(first.type, 'resource');
    assert.equal(first.resource?.uri, 'test://static-text');

    const image = await client.getPrompt({ name: 'test_prompt_with_image' });
    assert.equal((image.messages[0]!.content as Loose).type, 'image');
    assert.equal((image.messages[0]!.content as Loose).mimeType, 'image/png');

    await assert.rejects(client.getPrompt({ name: 'no_such_prompt' }), (err: unknown) => err instanceof McpError && err.code === ErrorCode.InvalidParams);
  });

  it('completion: a prompt argument, one with context, and a template variable', async () => {
    const arg1 = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'pa' } });
    assert.deepEqual(arg1.completion.values, ['paris', 'park']);
    const arg2 = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg2', value: '' },
      context: { arguments: { arg1: 'paris' } },
    });
    assert.deepEqual(arg2.completion.values, ['paris-suffix', 'testValue2']);
    const id = await client.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '4' } });
    assert.deepEqual(id.completion.values, ['456']);
  });

  it('tools/list_changed after toggle_extra_tool', async () => {
    const before = c.toolsChanged;
    assert.equal(firstText(await client.callTool({ name: 'toggle_extra_tool', arguments: {} })), 'added extra');
    await waitFor(() => c.toolsChanged > before, 'tools/list_changed');
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'extra'));
    assert.equal(firstText(await client.callTool({ name: 'extra', arguments: {} })), 'extra');
    const middle = c.toolsChanged;
    assert.equal(firstText(await client.callTool({ name: 'toggle_extra_tool', arguments: {} })), 'removed extra');
    await waitFor(() => c.toolsChanged > middle, 'the second tools/list_changed');
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'extra'));
  });

  it('cancellation: aborting slow rejects, the server stops working on it and stays healthy', async () => {
    const controller = new AbortController();
    let progressed = 0;
    const call = client.callTool({ name: 'slow', arguments: { ms: 5000 } }, undefined, {
      signal: controller.signal,
      timeout: 10_000,
      onprogress: () => progressed++,
    });
    await waitFor(() => progressed >= 1, 'the first progress of slow');
    controller.abort('user pressed stop');
    await assert.rejects(call);

    const sent = c.recorder.transcript
      .filter((e) => e.dir === 'send')
      .map((e) => e.message as { id?: number; method?: string; params?: { name?: string; requestId?: number; reason?: string } });
    const request = sent.find((m) => m.method === 'tools/call' && m.params?.name === 'slow')!;
    lateProgressTokens.add(request.id!);
    const cancel = sent.find((m) => m.method === 'notifications/cancelled' && m.params?.requestId === request.id);
    assert.ok(cancel, 'the official client sent notifications/cancelled for the request');
    assert.equal(cancel.params?.reason, 'user pressed stop');

    // If mcpkit kept running the handler, progress would keep arriving every 100 ms.
    const progressFor = () =>
      c.recorder.transcript.filter((e) => {
        const m = e.message as { method?: string; params?: { progressToken?: unknown } };
        return e.dir === 'recv' && m.method === 'notifications/progress' && m.params?.progressToken === request.id;
      }).length;
    await sleep(150);
    const settled = progressFor();
    await sleep(400);
    assert.equal(progressFor(), settled, 'no progress after the cancellation');
    const answered = c.recorder.transcript.some((e) => {
      const m = e.message as { id?: unknown; method?: string };
      return e.dir === 'recv' && m.method === undefined && m.id === request.id;
    });
    assert.ok(!answered, 'no response to the cancelled request');

    assert.deepEqual(await client.ping(), {});
    assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { message: 'still here' } })), 'still here');
  });

  it('roots: the list_roots tool returns the roots the official client declared', async () => {
    const r = await client.callTool({ name: 'list_roots', arguments: {} });
    assert.deepEqual(JSON.parse(firstText(r)), ROOTS);
    await client.sendRootsListChanged();
    assert.deepEqual(await client.ping(), {});
  });

  it('invalid arguments are an isError result (SEP-1303); an unknown tool is -32602', async () => {
    const r = await client.callTool({ name: 'echo', arguments: { message: 42 } });
    assert.equal(r.isError, true);
    assert.match(firstText(r), /message/);
    const missing = await client.callTool({ name: 'add', arguments: { a: 1 } });
    assert.equal(missing.isError, true);
    await assert.rejects(
      client.callTool({ name: 'no_such_tool', arguments: {} }),
      (err: unknown) => err instanceof McpError && err.code === ErrorCode.InvalidParams,
    );
  });

  it('every message mcpkit wrote validates against the 2025-11-25 schema; the client saw no errors', () => {
    assertMcpkitMessagesValid(c);
    assert.ok(c.recorder.transcript.filter((e) => e.dir === 'recv').length > 50, 'the transcript covers the session');
    // The oracle is not vacuous: the same check rejects a tools/call result without content.
    const answered = c.recorder.transcript.find((e) => e.dir === 'recv' && Array.isArray((e.message as { result?: { content?: unknown } }).result?.content));
    const broken = structuredClone(answered!.message) as { result: { content?: unknown } };
    delete broken.result.content;
    assert.notDeepEqual(validateWireMessage('2025-11-25', broken, { method: 'tools/call', sender: 'server' }), []);
    const sdkRace = (message: string) =>
      /unknown token/.test(message) && [...lateProgressTokens].some((t) => new RegExp(`"progressToken":${t}\\b`).test(message));
    assert.deepEqual(
      c.errors.map((e) => e.message).filter((m) => !sdkRace(m)),
      [],
    );
  });
});

describe('protocol revisions', { timeout: SUITE_TIMEOUT_MS }, () => {
  /** Sends raw JSON-RPC to a fresh demo process; resolves with the responses by id. */
  async function rawSession(protocolVersion: string): Promise<{ responses: Map<number, Record<string, unknown>>; recorder: RecordingTransport }> {
    const { command, args } = demoServerCommand();
    const raw = new RawStdioTransport(command, args);
    const responses = new Map<number, Record<string, unknown>>();
    let negotiated: string | undefined;
    const recorder = recordTransport(raw, { side: 'client', revision: () => negotiated });
    await recorder.start({
      message: (data) => {
        const m = JSON.parse(data as string) as Record<string, unknown>;
        if (typeof m.id === 'number') responses.set(m.id, m);
      },
      error: () => {},
      closed: () => {},
    });
    try {
      await recorder.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      await waitFor(() => responses.has(1), `the initialize response (${protocolVersion})`);
      negotiated = ((responses.get(1)!.result as Record<string, unknown> | undefined)?.protocolVersion as string | undefined) ?? undefined;
      await recorder.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await recorder.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } });
      await recorder.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      await recorder.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
      await waitFor(() => responses.has(2) && responses.has(3) && responses.has(4), 'the responses');
    } finally {
      await recorder.close();
    }
    return { responses, recorder };
  }

  for (const [proposed, expected] of [
    ['2024-11-05', '2024-11-05'],
    ['2025-03-26', '2025-03-26'],
    ['2025-06-18', '2025-06-18'],
    ['2025-11-25', '2025-11-25'],
    ['1999-01-01', '2025-11-25'],
  ] as const) {
    it(`a raw initialize proposing ${proposed} is answered with ${expected}; answers validate`, async () => {
      const { responses, recorder } = await rawSession(proposed);
      const init = responses.get(1)!.result as Record<string, unknown>;
      assert.equal(init.protocolVersion, expected);
      assert.deepEqual((responses.get(2)!.result as { content: unknown }).content, [{ type: 'text', text: 'hi' }]);
      assert.ok(Array.isArray((responses.get(3)!.result as { tools: unknown }).tools));
      assert.deepEqual(responses.get(4)!.result, {});
      const problems = recorder.peerViolations();
      assert.deepEqual(problems, [], problems.join('\n'));
      // The same check by hand for the handshake answer, under the negotiated revision.
      assert.deepEqual(validateWireMessage(expected, responses.get(1), { method: 'initialize', sender: 'server' }), []);
    });
  }

  for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18'] as const) {
    it(`the official client pinned to ${revision}: handshake, tools/list, tools/call, ping`, async () => {
      const c = await connect(revision);
      try {
        assert.equal(c.bridge.protocolVersion, revision);
        assert.equal(c.client.getServerVersion()?.name, 'mcpkit-demo');
        const { tools } = await c.client.listTools();
        assert.ok(tools.some((t) => t.name === 'echo'));
        assert.equal(firstText(await c.client.callTool({ name: 'echo', arguments: { message: revision } })), revision);
        assert.equal(firstText(await c.client.callTool({ name: 'test_sampling', arguments: { prompt: 'old' } })), 'LLM response: echo(old)');
        assert.deepEqual(await c.client.ping(), {});
        assertMcpkitMessagesValid(c);
        assert.deepEqual(
          c.errors.map((e) => e.message),
          [],
        );
      } finally {
        await c.client.close();
      }
    });
  }

  it("the SDK's own StdioClientTransport works against the demo", async () => {
    const { command, args } = demoServerCommand();
    const transport = new SdkStdioClientTransport({ command, args, stderr: 'pipe' });
    const client = new Client({ name: 'official-stdio', version: '1.0.0' });
    await client.connect(transport, { timeout: 10_000 });
    try {
      assert.equal(client.getServerVersion()?.name, 'mcpkit-demo');
      assert.equal(firstText(await client.callTool({ name: 'echo', arguments: { message: 'over the SDK transport' } })), 'over the SDK transport');
      const big = await client.callTool({ name: 'blob', arguments: { size: 300_000 } });
      assert.equal(firstText(big).length, 300_000);
      assert.deepEqual(await client.ping(), {});
    } finally {
      await client.close();
    }
  });
});
