/**
 * The bare ceiling of `bare-http.ts` without `node:http`: the same JSON-RPC answers
 * (`bare-echo.ts`), the same response headers as Node's server sends them (`Date`,
 * `Connection: keep-alive`, `Keep-Alive: timeout=5`), over `node:net` with a minimal
 * HTTP/1.1 reader. It exists to size what Node's HTTP machinery costs per call: the part of
 * bare's time that no server on `node:http` can shed (issue 16). The HTTP section runs it
 * only when `--only` names it (`bare-net`).
 *
 * What the reader does: the head up to the blank line (at most 16 KiB, else 431 and close),
 * the request line's method, `Content-Length` (a body of that many bytes, at most 4 MiB,
 * else 413 and close) and `Mcp-Session-Id`; `Transfer-Encoding` is refused (501, close),
 * `Connection: close` is honoured, several requests in one read are answered in order.
 * Nothing else is checked: no header syntax, no Host, no timeouts. Not a usable server.
 *
 * Run as a child process by the benchmark
 * (`node build/bench/servers/bare-net-http.js --mode=json|sse`); start-up and exit follow
 * `http-harness.ts`.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { createServer } from 'node:net';
import { answerEcho, type BareSession, errorJson } from './bare-echo.js';
import { announce, BENCH_HOST, parseServerArgs } from './http-harness.js';

const MAX_HEAD = 16 * 1024;
const MAX_BODY = 4 * 1024 * 1024;

const { mode, port } = parseServerArgs(process.argv.slice(2));
const sse = mode === 'sse';
const sessions = new Map<string, BareSession>();

/** The `Date` line, remade at most once a second as Node does. */
let dateLine = '';
let dateSecond = -1;
function date(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateLine = 'Date: ' + new Date(now).toUTCString() + '\r\n';
  }
  return dateLine;
}

/** One connection: its socket, and whether it ends after the reply being written. */
interface Conn {
  readonly socket: Socket;
  closing: boolean;
}

function write(conn: Conn, status: number, headers: string, body: string): void {
  const length = body.length === 0 ? 0 : Buffer.byteLength(body);
  const head =
    'HTTP/1.1 ' +
    status +
    ' ' +
    (STATUS_CODES[status] ?? '') +
    '\r\n' +
    headers +
    'content-length: ' +
    length +
    '\r\n' +
    date() +
    (conn.closing ? 'Connection: close\r\n\r\n' : 'Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n');
  if (conn.closing) conn.socket.end(head + body);
  else conn.socket.write(head + body);
}

function send(conn: Conn, status: number, json: string, sessionId?: string): void {
  const asEvent = sse && status === 200;
  let headers = asEvent ? 'content-type: text/event-stream\r\n' : 'content-type: application/json\r\n';
  if (sessionId !== undefined) headers += 'mcp-session-id: ' + sessionId + '\r\n';
  write(conn, status, headers, asEvent ? 'event: message\ndata: ' + json + '\n\n' : json);
}

function accepted(conn: Conn): void {
  write(conn, 202, '', '');
}

/** Answers and ends the connection: the reader cannot go on after this. */
function refuse(conn: Conn, status: number, message: string): void {
  conn.closing = true;
  send(conn, status, errorJson(message));
}

/** Answers one whole request. */
function handle(conn: Conn, method: string, sessionId: string | undefined, body: string): void {
  if (sessionId !== undefined && !sessions.has(sessionId)) {
    send(conn, 404, errorJson('Session not found'));
    return;
  }
  switch (method) {
    case 'POST': {
      let msg: unknown;
      try {
        msg = JSON.parse(Buffer.from(body, 'latin1').toString('utf8'));
      } catch {
        send(conn, 400, errorJson('Parse error'));
        return;
      }
      answerEcho(msg, sessions, sessionId, conn, send, accepted);
      return;
    }
    case 'DELETE':
      if (sessionId !== undefined) sessions.delete(sessionId);
      write(conn, sessionId === undefined ? 400 : 200, '', '');
      return;
    default:
      write(conn, 405, 'allow: POST, DELETE\r\n', '');
  }
}

/**
 * Answers every whole request at the start of `text`; returns what is left (a partial
 * request), or undefined once the connection is refused.
 */
function consume(conn: Conn, text: string): string | undefined {
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end < 0) {
      if (text.length - at > MAX_HEAD) return void refuse(conn, 431, 'Request header fields too large');
      return text.slice(at);
    }
    if (end - at > MAX_HEAD) return void refuse(conn, 431, 'Request header fields too large');
    const lineEnd = text.indexOf('\r\n', at);
    const method = text.slice(at, text.indexOf(' ', at));
    let length = 0;
    let sessionId: string | undefined;
    let pos = lineEnd + 2;
    while (pos < end) {
      const eol = text.indexOf('\r\n', pos);
      const colon = text.indexOf(':', pos);
      if (colon > pos && colon < eol) {
        const name = text.slice(pos, colon).toLowerCase();
        if (name === 'content-length') length = Number(text.slice(colon + 1, eol).trim());
        else if (name === 'mcp-session-id') sessionId = text.slice(colon + 1, eol).trim();
        else if (name === 'connection')
          conn.closing =
            text
              .slice(colon + 1, eol)
              .trim()
              .toLowerCase() === 'close';
        else if (name === 'transfer-encoding') return void refuse(conn, 501, 'Transfer-Encoding is not read by this server');
      }
      pos = eol + 2;
    }
    if (!Number.isSafeInteger(length) || length < 0) return void refuse(conn, 400, 'Bad Content-Length');
    if (length > MAX_BODY) return void refuse(conn, 413, 'Payload Too Large');
    const bodyStart = end + 4;
    if (text.length < bodyStart + length) return text.slice(at);
    handle(conn, method, sessionId, text.slice(bodyStart, bodyStart + length));
    if (conn.closing) return undefined;
    at = bodyStart + length;
  }
}

const server = createServer((socket) => {
  const conn: Conn = { socket, closing: false };
  let pending = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    if (conn.closing) return;
    // the connection's text is latin1, so one char is one byte (Content-Length counts bytes)
    const left = consume(conn, pending.length === 0 ? chunk : pending + chunk);
    pending = left ?? '';
  });
  socket.on('error', () => socket.destroy());
});

server.listen(port, BENCH_HOST, () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('bare-net-http: no TCP address');
  announce(address.port, () => new Promise<void>((resolve) => server.close(() => resolve())));
});
