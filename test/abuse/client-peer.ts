/**
 * Test support for the client abuse tests: a real `node:http` server on 127.0.0.1 (port 0)
 * that records every request it receives (method, path, headers, body) and every connection
 * it saw closed, with a hand-written answer for the 2025 handshake so a real `Client` can
 * connect before the test's own behaviour starts. Not a test file itself; not shipped.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the peer received. */
export interface PeerRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed JSON body, or undefined when it was empty or not JSON. */
  message: { id?: unknown; method?: string; params?: Record<string, unknown> } | undefined;
  /** True once the server saw this request's response connection close (either side). */
  closed: boolean;
}

/** Answers one request; `res` is still open (the handler ends it, or keeps it for a stream). */
export type PeerHandler = (request: PeerRequest, res: ServerResponse) => void;

/** The session id the handshake hands out. */
export const PEER_SESSION_ID = 'abuse-peer-session-0001';

/** A recording HTTP server on 127.0.0.1. */
export class HttpPeer {
  readonly requests: PeerRequest[] = [];
  /** TCP connections accepted so far. */
  connections = 0;
  readonly #server: Server;
  #handler: PeerHandler;

  private constructor(handler: PeerHandler) {
    this.#handler = handler;
    this.#server = createServer((req, res) => this.#receive(req, res));
    this.#server.on('connection', () => this.connections++);
  }

  /** Starts a peer listening on an ephemeral port of 127.0.0.1. */
  static async listen(handler: PeerHandler): Promise<HttpPeer> {
    const peer = new HttpPeer(handler);
    await new Promise<void>((resolve) => peer.#server.listen(0, '127.0.0.1', resolve));
    return peer;
  }

  /** `http://127.0.0.1:<port>`. */
  get origin(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** An absolute URL on this peer. */
  url(path: string): string {
    return this.origin + path;
  }

  /** Requests whose JSON-RPC method is `method`. */
  withMethod(method: string): PeerRequest[] {
    return this.requests.filter((r) => r.message?.method === method);
  }

  /** Stops listening and destroys every connection still open. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let message: PeerRequest['message'];
      try {
        message = body.length > 0 ? JSON.parse(body) : undefined;
      } catch {
        message = undefined;
      }
      const recorded: PeerRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, message, closed: false };
      this.requests.push(recorded);
      res.on('close', () => {
        recorded.closed = true;
      });
      this.#handler(recorded, res);
    });
  }
}

/**
 * Answers the 2025 handshake: `initialize` (JSON, with {@link PEER_SESSION_ID}),
 * `notifications/initialized` (202), any GET (405: no standalone stream), DELETE (200).
 * Returns false for anything else, which the caller then answers.
 */
export function answerHandshake(r: PeerRequest, res: ServerResponse): boolean {
  if (r.method === 'GET') {
    res.writeHead(405).end();
    return true;
  }
  if (r.method === 'DELETE') {
    res.writeHead(200).end();
    return true;
  }
  const m = r.message;
  if (m?.method === 'initialize') {
    const result = { protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'abuse-peer', version: '1' } };
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': PEER_SESSION_ID }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    return true;
  }
  if (m !== undefined && !Array.isArray(m) && m.id === undefined) {
    // notifications (initialized, cancelled) and nothing else
    res.writeHead(202).end();
    return true;
  }
  return false;
}

/** Opens an SSE response with a priming event (an id, empty data) and leaves it open. */
export function openSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write('id: prime-0\ndata:\n\n');
}

/** Writes one JSON-RPC message as an SSE `message` event. */
export function writeSse(res: ServerResponse, message: unknown): void {
  res.write(`data: ${JSON.stringify(message)}\n\n`);
}
