// The runtimes section's servers (bench/runtimes.ts), run by Bun or Deno as is (plain
// JavaScript): `bare` is a bare fetch-handler loop answering initialize, tools/list and
// tools/call echo as bare-echo.ts does (JSON.parse, dispatch on method, one JSON.stringify,
// a session map, no validation); `mcpkit` is mcpkit's handler (from dist/, the published
// `mcpkit/server` and `mcpkit/http/server`) with the same echo tool as
// mcpkit-minimal-http.ts, served through `handler.fetch`; `core` is the same handler reached
// through `handler.handle` from the bare loop's own request reading (one `text()`, the path
// taken as the endpoint) and `Response` building, so that mcpkit's cost splits into its core
// (core − bare) and its web adapter (mcpkit − core: the URL and Host check, the request
// description, the reply into a `Response`). All are served by the runtime's own server
// (`Bun.serve`, `Deno.serve`) on 127.0.0.1. Arguments: `bare|core|mcpkit`, then
// `--mode=json|sse`. Prints `LISTENING http://127.0.0.1:PORT/mcp` and exits when stdin ends.
const deno = globalThis.Deno;
const args = deno ? deno.args : Bun.argv.slice(2);
const kind = args[0];
const sse = args.includes('--mode=sse');
const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns the message it was given.',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};

/** The bare loop: the floor a fetch handler on this runtime can reach. */
function bareHandler() {
  const sessions = new Map();
  const reply = (json, sessionId) => {
    const headers = { 'content-type': sse ? 'text/event-stream' : 'application/json' };
    if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
    return new Response(sse ? `event: message\ndata: ${json}\n\n` : json, { status: 200, headers });
  };
  return async (request) => {
    const sessionId = request.headers.get('mcp-session-id') ?? undefined;
    if (sessionId !== undefined && !sessions.has(sessionId))
      return new Response('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Session not found"}}', { status: 404 });
    if (request.method === 'DELETE') {
      if (sessionId !== undefined) sessions.delete(sessionId);
      return new Response(null, { status: sessionId === undefined ? 400 : 200 });
    }
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST, DELETE' } });
    let msg;
    try {
      msg = JSON.parse(await request.text());
    } catch {
      return new Response('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}', { status: 400 });
    }
    switch (msg.method) {
      case 'initialize': {
        const id = crypto.randomUUID();
        sessions.set(id, { protocolVersion: msg.params.protocolVersion, initialized: false });
        return reply(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare-fetch', version: '1.0.0' } },
          }),
          id,
        );
      }
      case 'tools/call':
        return reply(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: msg.params.arguments.message }] } }));
      case 'tools/list':
        return reply(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [ECHO_TOOL] } }));
      default:
        if (msg.id === undefined) {
          if (msg.method === 'notifications/initialized' && sessionId !== undefined) sessions.get(sessionId).initialized = true;
          return new Response(null, { status: 202 });
        }
        return reply(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
    }
  };
}

/** mcpkit's handler with the echo tool. */
async function mcpkitStreamable() {
  const { McpServer } = await import('mcpkit/server');
  const { createStreamableHttpHandler, toWebResponse } = await import('mcpkit/http/server');
  const server = new McpServer({ name: 'mcpkit-minimal', version: '1.0.0' });
  server.registerTool('echo', { description: ECHO_TOOL.description, inputSchema: ECHO_TOOL.inputSchema }, (a) => ({
    content: [{ type: 'text', text: a.message }],
  }));
  return { handler: createStreamableHttpHandler({ server, endpoint: '/mcp', responseMode: sse ? 'sse' : 'json' }), toWebResponse };
}

async function mcpkitHandler() {
  const { handler } = await mcpkitStreamable();
  return (request) => handler.fetch(request);
}

/** mcpkit's core alone: `handler.handle` between the bare loop's request reading and `Response`. */
async function coreHandler() {
  const { handler, toWebResponse } = await mcpkitStreamable();
  return async (request) => {
    const headers = request.headers;
    const text = await request.text();
    const reply = await handler.handle({
      method: request.method,
      url: '/mcp',
      headers: (name) => headers.get(name),
      body: async () => text,
      rawHeaders: headers,
    });
    return reply.stream === undefined ? new Response(reply.body ?? null, { status: reply.status, headers: reply.headers }) : toWebResponse(reply);
  };
}

if (kind !== 'bare' && kind !== 'core' && kind !== 'mcpkit')
  throw new Error(`runtime-fetch: first argument must be bare, core or mcpkit, got ${JSON.stringify(kind)}`);
const fetchHandler = kind === 'bare' ? bareHandler() : kind === 'core' ? await coreHandler() : await mcpkitHandler();
const announce = (port) => console.log(`LISTENING http://127.0.0.1:${port}/mcp`);
if (deno) {
  deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => announce(port) }, fetchHandler);
  (async () => {
    for await (const _ of deno.stdin.readable);
    deno.exit(0);
  })();
} else {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: fetchHandler });
  announce(server.port);
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
