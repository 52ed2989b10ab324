/**
 * The JSON-RPC side of the bare Streamable HTTP ceilings (`bare-http.ts` on `node:http`,
 * `bare-net-http.ts` on `node:net`): `initialize`, `tools/list`, `tools/call echo` and
 * `ping` answered with no validation at all, notifications accepted. Each server passes its
 * own reply target and two module-level writers, so a call allocates nothing here.
 */
import { randomUUID } from 'node:crypto';

/** What a bare server keeps per session: the floor of the idle-session comparison. */
export interface BareSession {
  readonly protocolVersion: string;
  initialized: boolean;
}

const ECHO_TOOL = {
  name: 'echo',
  description: 'Returns the message it was given.',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
};

/** Writes a 200 carrying `json` (with `sessionId` as `Mcp-Session-Id` when given). */
export type SendJson<T> = (target: T, status: number, json: string, sessionId?: string) => void;
/** Writes a 202 with no body. */
export type SendAccepted<T> = (target: T) => void;

/** A parsed message, read without checks. */
// biome-ignore lint/suspicious/noExplicitAny: unvalidated on purpose: the ceiling does no checking
type Unchecked = any;

/**
 * Answers one parsed message. `msg` is deliberately unvalidated: this is the ceiling.
 * `initialize` creates a session (a random id and a tiny record in `sessions`).
 */
export function answerEcho<T>(
  msg: Unchecked,
  sessions: Map<string, BareSession>,
  sessionId: string | undefined,
  target: T,
  send: SendJson<T>,
  accepted: SendAccepted<T>,
): void {
  switch (msg.method) {
    case 'initialize': {
      const id = randomUUID();
      sessions.set(id, { protocolVersion: msg.params.protocolVersion, initialized: false });
      const result = { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare-echo', version: '1.0.0' } };
      send(target, 200, JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }), id);
      return;
    }
    case 'tools/call':
      send(target, 200, JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: msg.params.arguments.message }] } }));
      return;
    case 'tools/list':
      send(target, 200, JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [ECHO_TOOL] } }));
      return;
    case 'ping':
      send(target, 200, JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }));
      return;
    default:
      if (msg.id === undefined) {
        if (msg.method === 'notifications/initialized' && sessionId !== undefined) sessions.get(sessionId)!.initialized = true;
        accepted(target);
        return;
      }
      send(target, 200, JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
  }
}

/** The JSON of a transport-level error reply. */
export function errorJson(message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });
}
