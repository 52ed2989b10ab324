/**
 * The conformance client: the program the official MCP conformance suite drives on its
 * client side (`conformance client --command "node build/conformance/client.js"`, or
 * `npm run -s conformance-client --`).
 *
 * Contract with the suite: the server URL is the last argument; `MCP_CONFORMANCE_SCENARIO`
 * names the scenario; the pre-release suite also sets `MCP_CONFORMANCE_PROTOCOL_VERSION`
 * (the wire the scenario runs on). The process must end by itself within the suite's
 * timeout (30 s): a watchdog ends it after {@link WATCHDOG_MS}. Exit status 0 means the
 * scenario's steps all succeeded, 1 that one failed (or the scenario is not supported),
 * 2 a usage error.
 *
 * Design note: only mcpkit's public client API is used (`Client` from `mcpkit/client`, the
 * Streamable HTTP client transport, `OAuthClient` from `mcpkit/auth`). The `auth/*`
 * scenarios live in `auth-scenarios.ts` and the SEP-2640 skills ones in `skills-scenarios.ts`
 * (each loaded only for its scenarios; the auth ones read
 * `MCP_CONFORMANCE_CONTEXT`) and run on either wire. On the 2026-07-28 stateless wire the
 * client pins that revision (`server/discover` probe, per-request `_meta`, multi round-trip
 * requests answered by its handlers). A wire mcpkit does not speak fails at once, before
 * loading anything, which keeps the suite's all-at-once run light (that matters for the
 * timing check of `sse-retry`).
 */
import * as os from 'node:os';
import type { Client as ClientType } from '../src/client/index.js';
import type { CallToolResult, JSONObject, Tool } from '../src/index.js';
import { isObject } from '../src/jsonrpc/values.js';

/** Longest a run may take before the client gives up (below the suite's 30 s timeout). */
const WATCHDOG_MS = 25_000;
/** Per-request timeout. */
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * Revisions of the stateful (initialize-based) wire, which mcpkit's client speaks (its
 * STATEFUL_REVISIONS, spelled out so an unsupported wire is refused before anything loads).
 */
const STATEFUL_WIRE = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
/** The stateless wire (per-request `_meta`, `server/discover`), which the client pins when the suite runs on it. */
const STATELESS_WIRE = '2026-07-28';

const CLIENT_INFO = { name: 'mcpkit-conformance-client', version: '0.1.0' };

/** A connected client and how to end its connection. */
interface Connection {
  client: ClientType;
  close(): Promise<void>;
}

type Step = (url: string) => Promise<void>;

/** A failed expectation of a scenario step. */
class ScenarioFailure extends Error {}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ScenarioFailure(message);
}

async function connect(url: string): Promise<Connection> {
  const [{ Client }, { StreamableHttpClientTransport }] = await Promise.all([import('../src/client/index.js'), import('../src/http/index.js')]);
  // The stateless wire pins its revision: the client probes with server/discover and never
  // falls back to initialize.
  const wire = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const client = new Client(CLIENT_INFO, {
    ...(wire === STATELESS_WIRE ? { protocolVersion: STATELESS_WIRE } : {}),
    elicitation: {
      // Accept with no content of our own: the client fills omitted fields from the
      // schema's defaults (SEP-1034) and validates the result.
      form: () => ({ action: 'accept', content: {} }),
    },
  });
  const transport = new StreamableHttpClientTransport({ url });
  await client.connect(transport, { timeoutMs: REQUEST_TIMEOUT_MS });
  return {
    client,
    close: () => client.close(),
  };
}

async function withConnection(url: string, body: (client: ClientType) => Promise<void>): Promise<void> {
  const connection = await connect(url);
  try {
    await body(connection.client);
  } finally {
    await connection.close();
  }
}

async function listTools(client: ClientType): Promise<Tool[]> {
  return client.listAllTools({ timeoutMs: REQUEST_TIMEOUT_MS });
}

async function callTool(client: ClientType, name: string, args?: JSONObject): Promise<CallToolResult> {
  const params = args === undefined ? { name } : { name, arguments: args };
  const result = await client.callTool(params, { timeoutMs: REQUEST_TIMEOUT_MS });
  expect(result.isError !== true, `tool ${name} answered with isError: ${firstText(result) ?? '(no text)'}`);
  return result;
}

function firstText(result: CallToolResult): string | undefined {
  for (const item of result.content ?? []) if (item.type === 'text') return item.text;
  return undefined;
}

function requireTool(tools: Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  expect(tool !== undefined, `the server lists no tool named ${name} (it lists: ${tools.map((t) => t.name).join(', ') || 'none'})`);
  return tool;
}

/** The scenarios this client takes part in, by the suite's scenario name. */
const SCENARIOS: Record<string, Step> = {
  // Handshake, then one ordinary request on the negotiated session (tools/list when the
  // server offers tools — the client refuses methods of undeclared capabilities — else ping).
  initialize: (url) =>
    withConnection(url, async (client) => {
      if (client.serverCapabilities?.tools) await listTools(client);
      else await client.ping({ timeoutMs: REQUEST_TIMEOUT_MS });
    }),

  tools_call: (url) =>
    withConnection(url, async (client) => {
      requireTool(await listTools(client), 'add_numbers');
      const result = await callTool(client, 'add_numbers', { a: 5, b: 3 });
      expect(firstText(result)?.includes('8'), `add_numbers(5, 3) answered ${JSON.stringify(firstText(result))}`);
    }),

  // The server elicits a form whose fields all have defaults; the client accepts and its
  // SEP-1034 default filling supplies every field.
  'elicitation-sep1034-client-defaults': (url) =>
    withConnection(url, async (client) => {
      requireTool(await listTools(client), 'test_client_elicitation_defaults');
      await callTool(client, 'test_client_elicitation_defaults', {});
    }),

  // SEP-1699: the POST stream of the call closes after a priming event with `retry`; the
  // transport waits that long and resumes with GET + Last-Event-ID, where the result comes.
  'sse-retry': (url) =>
    withConnection(url, async (client) => {
      requireTool(await listTools(client), 'test_reconnection');
      const result = await callTool(client, 'test_reconnection', {});
      expect(firstText(result) !== undefined, 'test_reconnection answered without text content');
    }),

  // SEP-1613: the tool schema the client hands to the application keeps every JSON Schema
  // 2020-12 keyword; echo it back verbatim so the suite can compare.
  'json-schema-2020-12-preservation': (url) =>
    withConnection(url, async (client) => {
      const tools = await listTools(client);
      const focal = requireTool(tools, 'json_schema_2020_12_tool');
      requireTool(tools, 'json_schema_echo');
      await callTool(client, 'json_schema_echo', { schema: focal.inputSchema as unknown as JSONObject });
    }),

  // ───── the stateless wire (2026-07-28): every request carries its _meta ─────

  // SEP-2575: the first request is refused with -32022; the client retries with a version
  // from the error's `supported` list (the probe does), then works as usual.
  'request-metadata': (url) =>
    withConnection(url, async (client) => {
      if (client.serverCapabilities?.tools) await listTools(client);
      else await client.discover({ timeoutMs: REQUEST_TIMEOUT_MS });
    }),

  // SEP-2322: each tool answers InputRequiredResult first; the client answers the
  // elicitation through its handler and retries (new id, requestState echoed or omitted).
  'sep-2322-client-request-state': (url) =>
    withConnection(url, async (client) => {
      const tools = await listTools(client);
      for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type']) {
        requireTool(tools, name);
        await callTool(client, name, {});
      }
    }),

  // SEP-2243: Mcp-Method on every POST, Mcp-Name on tools/call, resources/read, prompts/get.
  'http-standard-headers': (url) =>
    withConnection(url, async (client) => {
      for (const tool of await listTools(client)) await callTool(client, tool.name, {});
      for (const resource of await client.listAllResources({ timeoutMs: REQUEST_TIMEOUT_MS }))
        await client.readResource(resource.uri, { timeoutMs: REQUEST_TIMEOUT_MS });
      for (const prompt of await client.listAllPrompts({ timeoutMs: REQUEST_TIMEOUT_MS }))
        await client.getPrompt(prompt.name, undefined, { timeoutMs: REQUEST_TIMEOUT_MS });
    }),

  // SEP-2243: the calls the scenario names (MCP_CONFORMANCE_CONTEXT.toolCalls), with their
  // x-mcp-header arguments mirrored into Mcp-Param-* headers by the HTTP transport.
  'http-custom-headers': (url) =>
    withConnection(url, async (client) => {
      const tools = await listTools(client);
      const calls =
        (JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { toolCalls?: Array<{ name: string; arguments?: JSONObject }> }).toolCalls ?? [];
      expect(calls.length > 0, 'MCP_CONFORMANCE_CONTEXT names no tool calls');
      for (const call of calls) {
        requireTool(tools, call.name);
        await callTool(client, call.name, call.arguments ?? {});
      }
    }),

  // SEP-2243: tools with invalid x-mcp-header annotations never reach the application; call
  // every tool that does (string arguments get a sample value).
  'http-invalid-tool-headers': (url) =>
    withConnection(url, async (client) => {
      const tools = await listTools(client);
      expect(tools.length > 0, 'every tool was left out');
      for (const tool of tools) {
        const args: JSONObject = {};
        for (const [name, schema] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>))
          if (schema?.type === 'string') args[name] = 'us-east-1';
        await callTool(client, tool.name, args);
      }
    }),

  // SEP-2106: a network $ref in an input schema is never fetched.
  'json-schema-ref-no-deref': (url) =>
    withConnection(url, async (client) => {
      requireTool(await listTools(client), 'lookup_user');
    }),
};

/** The parsed `MCP_CONFORMANCE_CONTEXT` (credentials of some auth scenarios); undefined when unset. */
function scenarioContext(): Record<string, unknown> | undefined {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (raw === undefined || raw === '') return undefined;
  const parsed: unknown = JSON.parse(raw);
  expect(isObject(parsed), 'MCP_CONFORMANCE_CONTEXT is not a JSON object');
  return parsed as Record<string, unknown>;
}

async function run(scenario: string, url: string): Promise<void> {
  if (scenario.startsWith('auth/')) {
    const { runAuthScenario } = await import('./auth-scenarios.js');
    const wire = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
    return runAuthScenario(scenario, url, { context: scenarioContext(), protocolVersion: wire === '' ? undefined : wire });
  }
  const step = SCENARIOS[scenario];
  if (step) return step(url);
  if (scenario.startsWith('sep-2640-')) {
    const { runSkillsScenario } = await import('./skills-scenarios.js');
    return runSkillsScenario(scenario, url, { protocolVersion: process.env.MCP_CONFORMANCE_PROTOCOL_VERSION, timeoutMs: REQUEST_TIMEOUT_MS });
  }
  throw new ScenarioFailure(`unknown scenario ${JSON.stringify(scenario)}`);
}

/**
 * Scenarios whose checks measure time. The suite starts every client scenario at once, so
 * the other clients step aside (lower their CPU priority) to keep those measurements fair.
 */
const TIMING_SENSITIVE = new Set(['sse-retry']);

function yieldCpu(): void {
  try {
    os.setPriority(Math.min(os.getPriority() + 10, 19));
  } catch {
    // not permitted here: run at the normal priority
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${err.name}${code !== undefined ? ` [${String(code)}]` : ''}: ${err.message}`;
  }
  return String(err);
}

async function main(argv: string[]): Promise<number> {
  const url = argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  if (!url || !/^https?:\/\//.test(url) || !scenario) {
    process.stderr.write('usage: MCP_CONFORMANCE_SCENARIO=<name> node build/conformance/client.js <server-url>\n');
    return 2;
  }
  const wire = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  if (wire !== undefined && wire !== '' && !STATEFUL_WIRE.has(wire) && wire !== STATELESS_WIRE && !scenario.startsWith('auth/')) {
    process.stderr.write(`conformance client: ${scenario}: protocol version ${wire} is not one mcpkit's client speaks\n`);
    return 1;
  }
  if (!TIMING_SENSITIVE.has(scenario)) yieldCpu();
  try {
    await run(scenario, url);
    process.stderr.write(`conformance client: ${scenario}: ok\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`conformance client: ${scenario}: FAILED: ${describe(err)}\n`);
    return 1;
  }
}

const watchdog = setTimeout(() => {
  process.stderr.write(`conformance client: gave up after ${WATCHDOG_MS} ms\n`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main(process.argv.slice(2)).then(
  (code) => {
    // Open sockets (a standalone SSE stream the server keeps open) must not keep us alive.
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`conformance client: internal error: ${describe(err)}\n`);
    process.exit(1);
  },
);
