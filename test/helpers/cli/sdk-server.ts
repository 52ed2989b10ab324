/**
 * Test fixture: an MCP server built only with the official TypeScript SDK v1
 * (`@modelcontextprotocol/sdk/server/mcp.js`), for the CLI tests. Serves stdio by default;
 * with `--http` it serves stateful Streamable HTTP on 127.0.0.1 (a free port) and prints
 * `LISTENING <url>` on stdout. When the environment names `CANCEL_LOG`, the `wait` tool
 * appends one line `cancelled` to that file when its request is cancelled
 * (`notifications/cancelled`), so a test can assert the server saw the cancellation; over
 * stdio, `CALL_LOG` gets one line per `tools/call` message that arrived (the tool's name).
 * Not part of the package.
 */

import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

function build(): McpServer {
  const mcp = new McpServer({ name: 'sdk-fixture', version: '1.0.0' }, { capabilities: { logging: {} } });
  mcp.registerTool('echo', { description: 'Echoes the message', inputSchema: { message: z.string() } }, async ({ message }) => text(message));
  mcp.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  mcp.registerTool('fail', { description: 'Returns a tool error' }, async () => ({ ...text('it failed'), isError: true }));
  mcp.registerTool(
    'steps',
    { description: 'Reports progress in steps', inputSchema: { steps: z.number().int().min(1).max(50), ms: z.number().int().min(0).max(5000) } },
    async ({ steps, ms }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await new Promise((r) => setTimeout(r, ms));
        if (token !== undefined)
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } });
      }
      return text(`did ${steps} steps`);
    },
  );
  mcp.registerTool('wait', { description: 'Waits until cancelled (reports progress once)' }, async (extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined)
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 100, message: 'waiting' } });
    await new Promise<void>((resolve) => {
      if (extra.signal.aborted) return resolve();
      extra.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    if (process.env.CANCEL_LOG) appendFileSync(process.env.CANCEL_LOG, 'cancelled\n');
    return text('cancelled');
  });
  mcp.registerTool('ask', { description: 'Asks for a form with defaults and choices' }, async () => {
    const r = await mcp.server.elicitInput({
      message: 'Tell me about you',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name', default: 'Ada' },
          age: { type: 'integer', minimum: 0, default: 42 },
          color: { type: 'string', enum: ['red', 'green', 'blue'], default: 'green' },
        },
        required: ['name'],
      },
    });
    return text(JSON.stringify(r));
  });
  mcp.registerResource('note', 'note://hello', { mimeType: 'text/plain', description: 'A note' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from the sdk' }],
  }));
  mcp.registerResource('item', new ResourceTemplate('item://{id}', { list: undefined }), { description: 'An item' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, text: `item ${String(id)}` }],
  }));
  mcp.registerPrompt(
    'greet',
    {
      description: 'Greets someone',
      argsSchema: { who: completable(z.string(), (v) => ['world', 'wonderland'].filter((x) => x.startsWith(v))) },
    },
    ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${who}!` } }] }),
  );
  return mcp;
}

if (process.argv.includes('--http')) {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport!),
      });
      await build().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => {
    process.stdout.write(`LISTENING http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
} else {
  const transport = new StdioServerTransport();
  await build().connect(transport);
  // CALL_LOG: one line per tools/call message that arrived (before any validation), naming the tool
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    const m = message as { method?: string; params?: { name?: string } };
    if (process.env.CALL_LOG && m.method === 'tools/call') appendFileSync(process.env.CALL_LOG, `${String(m.params?.name)}\n`);
    deliver?.(message);
  };
}
