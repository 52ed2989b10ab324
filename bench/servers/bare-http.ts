/**
 * Benchmark ceiling for Streamable HTTP: bare `node:http` answering `initialize`,
 * `tools/list` and `tools/call echo` with no validation at all. A POST body is
 * collected, `JSON.parse`d and dispatched on `method`; the answer is one
 * `JSON.stringify`, sent as an `application/json` body (`--mode=json`) or as a body
 * holding one SSE `message` event (`--mode=sse`). `initialize` creates a session (a
 * random `Mcp-Session-Id` and a tiny record in a map) so that memory per idle session
 * has a floor to compare with; other requests only look their session up (404 when
 * unknown). Notifications get 202, DELETE ends a session, GET is refused with 405.
 *
 * Run as a child process by the benchmark
 * (`node build/bench/servers/bare-http.js --mode=json|sse`); start-up and exit follow
 * `http-harness.ts`. Not a usable server: malformed input is answered 400 and little
 * else is checked.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { answerEcho, type BareSession, errorJson } from './bare-echo.js';
import { announce, BENCH_HOST, parseServerArgs } from './http-harness.js';

const { mode, port } = parseServerArgs(process.argv.slice(2));
const sse = mode === 'sse';
const sessions = new Map<string, BareSession>();

function send(res: ServerResponse, status: number, json: string, sessionId?: string): void {
  const asEvent = sse && status === 200;
  const body = asEvent ? 'event: message\ndata: ' + json + '\n\n' : json;
  const headers: Record<string, string | number> = {
    'content-type': asEvent ? 'text/event-stream' : 'application/json',
    'content-length': Buffer.byteLength(body),
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  res.writeHead(status, headers);
  res.end(body);
}

function accepted(res: ServerResponse): void {
  res.writeHead(202);
  res.end();
}

function fail(res: ServerResponse, status: number, message: string): void {
  send(res, status, errorJson(message));
}

function onPost(req: IncomingMessage, res: ServerResponse, sessionId: string | undefined): void {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    body += chunk;
  });
  req.on('end', () => {
    let msg: unknown;
    try {
      msg = JSON.parse(body);
    } catch {
      fail(res, 400, 'Parse error');
      return;
    }
    answerEcho(msg, sessions, sessionId, res, send, accepted);
  });
}

const server = createServer((req, res) => {
  const header = req.headers['mcp-session-id'];
  const sessionId = typeof header === 'string' ? header : undefined;
  if (sessionId !== undefined && !sessions.has(sessionId)) {
    req.resume();
    fail(res, 404, 'Session not found');
    return;
  }
  switch (req.method) {
    case 'POST':
      onPost(req, res, sessionId);
      return;
    case 'DELETE':
      req.resume();
      if (sessionId !== undefined) sessions.delete(sessionId);
      res.writeHead(sessionId === undefined ? 400 : 200);
      res.end();
      return;
    default:
      req.resume();
      res.writeHead(405, { allow: 'POST, DELETE' });
      res.end();
  }
});

server.listen(port, BENCH_HOST, () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('bare-http: no TCP address');
  announce(address.port, () => new Promise<void>((resolve) => server.close(() => resolve())));
});
