/**
 * Benchmark ceiling: the least a stdio MCP server can do to answer `initialize`,
 * `tools/list` and `tools/call echo`. Lines come from readline, are `JSON.parse`d,
 * dispatched on `method` without any validation, and answered with one
 * `JSON.stringify` + write. No envelope checks, no schemas, no cancellation.
 *
 * Run as a child process by `bench/run.ts` (`node build/bench/servers/bare-stdio.js`);
 * exits when stdin closes. It is not a usable server: malformed input simply throws
 * and kills the process, which the benchmark then reports.
 */
import { createInterface } from 'node:readline';

const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns the message it was given.',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
  },
};

const out = process.stdout;
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });

lines.on('line', (line) => {
  if (line.length === 0) return;
  const msg = JSON.parse(line);
  if (msg.id === undefined) return; // notifications need no answer
  let reply: string;
  switch (msg.method) {
    case 'tools/call':
      reply = JSON.stringify({
        jsonrpc: '2.0',
        id: msg.id,
        result: { content: [{ type: 'text', text: msg.params.arguments.message }] },
      });
      break;
    case 'initialize':
      reply = JSON.stringify({
        jsonrpc: '2.0',
        id: msg.id,
        result: {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'bare-echo', version: '1.0.0' },
        },
      });
      break;
    case 'tools/list':
      reply = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [ECHO_TOOL] } });
      break;
    case 'ping':
      reply = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} });
      break;
    default:
      reply = JSON.stringify({
        jsonrpc: '2.0',
        id: msg.id,
        error: { code: -32601, message: 'Method not found' },
      });
  }
  out.write(reply + '\n');
});

lines.on('close', () => process.exit(0));
