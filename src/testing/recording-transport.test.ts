import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '../jsonrpc/types.js';
import type { Transport, TransportReceiver } from '../transport/types.js';
import { formatWireLine, recordTransport } from './recording-transport.js';

/** A minimal connected pair: text is delivered to the other end on a microtask, in order. */
class Pipe implements Transport {
  #peer: Pipe | undefined;
  #receiver: TransportReceiver | undefined;
  #queue: string[] = [];
  #closed = false;
  readonly sessionId: string | undefined;

  constructor(sessionId?: string) {
    this.sessionId = sessionId;
  }

  static pair(sessionId?: string): [Pipe, Pipe] {
    const a = new Pipe(sessionId);
    const b = new Pipe(sessionId);
    a.#peer = b;
    b.#peer = a;
    return [a, b];
  }

  start(receiver: TransportReceiver): void {
    this.#receiver = receiver;
    for (const text of this.#queue.splice(0)) receiver.message(text);
  }

  send(message: JSONRPCMessage | JSONRPCMessage[] | string): Promise<void> {
    const peer = this.#peer;
    if (this.#closed || peer === undefined) return Promise.reject(new Error('closed'));
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    queueMicrotask(() => peer.#deliver(text));
    return Promise.resolve();
  }

  #deliver(text: string): void {
    if (this.#closed) return;
    if (this.#receiver) this.#receiver.message(text);
    else this.#queue.push(text);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#receiver?.closed();
    await this.#peer?.close();
  }
}

/** Starts `t` with a receiver that keeps messages (parsed when JSON) in the returned array. */
function collect(t: Transport): unknown[] {
  const got: unknown[] = [];
  void t.start({
    message: (data) => {
      try {
        got.push(typeof data === 'string' ? JSON.parse(data) : data);
      } catch {
        got.push(data);
      }
    },
    error: () => {},
    closed: () => {},
  });
  return got;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const clientInfo = { name: 'c', version: '1' };
const serverInfo = { name: 's', version: '1' };

describe('recordTransport', () => {
  it('records both directions, forwards everything, and formats a transcript', async () => {
    const [a, b] = Pipe.pair('sess-1');
    let revision: string | undefined;
    const rec = recordTransport(a, { revision: () => revision, side: 'client' });
    const { transport, transcript } = rec;
    assert.equal(transport, rec);
    assert.equal(rec.sessionId, 'sess-1');
    const delivered: unknown[] = [];
    let closed = 0;
    await rec.start({ message: (d) => delivered.push(d), error: () => {}, closed: () => closed++ });
    const server = collect(b);

    await rec.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo } });
    await settle();
    assert.equal(server.length, 1);
    await b.send({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo } });
    await settle();
    assert.equal(delivered.length, 1);
    assert.equal(typeof delivered[0], 'string', 'the receiver gets the data unchanged');
    revision = '2024-11-05';
    await rec.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await settle();

    assert.deepEqual(
      transcript.map((e) => [e.dir, e.revision]),
      [
        ['send', '2024-11-05'],
        ['recv', '2024-11-05'],
        ['send', '2024-11-05'],
      ],
    );
    assert.deepEqual(transcript[2]!.message, { jsonrpc: '2.0', method: 'notifications/initialized' }, 'text is parsed back');
    assert.deepEqual(rec.violations(), []);
    rec.assertNoViolations();
    const lines = rec.formatTranscript().split('\n');
    assert.equal(lines.length, 3);
    assert.ok(lines[0]!.startsWith('C→S {"jsonrpc":"2.0","id":0,"method":"initialize"'), lines[0]);
    assert.ok(lines[1]!.startsWith('S→C {"jsonrpc":"2.0","id":0,"result":'), lines[1]);
    assert.equal(lines[2], 'C→S {"jsonrpc":"2.0","method":"notifications/initialized"}');
    assert.equal(rec.formatTranscript({ maxLineLength: 10 }).split('\n')[2], 'C→S {"jso…');

    await rec.close();
    assert.equal(closed, 1);
    await assert.rejects(Promise.resolve(rec.send({ jsonrpc: '2.0', method: 'notifications/initialized' })), /closed/);
  });

  it('checks each message under the revision current when it was sent', async () => {
    const [a, b] = Pipe.pair();
    let revision: string | undefined;
    const rec = recordTransport(a, { revision: () => revision, side: 'client' });
    collect(rec);
    collect(b);
    const call = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { name: 'echo' } };
    await rec.send(call); // before negotiation: 2025-11-25, no _meta needed
    revision = '2026-07-28';
    await rec.send({ ...call, id: 2 });
    revision = '2025-06-18';
    const found = rec.violations();
    assert.equal(rec.transcript[0]!.revision, '2025-11-25');
    assert.equal(rec.transcript[1]!.revision, '2026-07-28');
    assert.ok(found.length > 0);
    assert.ok(
      found.every((v) => v.startsWith('#2 C→S [2026-07-28] tools/call request (CallToolRequest): /params')),
      found.join('\n'),
    );
    assert.throws(
      () => rec.assertNoViolations(),
      (e: Error) => e.name === 'AssertionError' && e.message.includes('--- transcript ---\nC→S {"jsonrpc"'),
    );
  });

  it('checks sent results against the method of the received request', async () => {
    const [a, b] = Pipe.pair();
    const rec = recordTransport(a, { revision: () => '2025-11-25', side: 'server' });
    collect(rec);
    collect(b);
    await b.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } });
    await b.send({ jsonrpc: '2.0', id: 'q', method: 'ping' });
    await b.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', task: { ttl: 1000 } } });
    await settle();
    await rec.send({ jsonrpc: '2.0', id: 1, result: { isError: true } });
    await rec.send({ jsonrpc: '2.0', id: 'q', result: {} });
    const now = '2025-11-25T00:00:00Z';
    await rec.send({ jsonrpc: '2.0', id: 2, result: { task: { taskId: 't', status: 'working', createdAt: now, lastUpdatedAt: now, ttl: 1000 } } });
    await rec.send({ jsonrpc: '2.0', id: 1, result: { content: [] } }); // answered already
    await rec.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    await rec.send('{not json');
    await rec.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await rec.send({ jsonrpc: '2.0', id: 5, method: 'tools/list' }); // servers do not send this

    assert.deepEqual(rec.violations(), [
      "#4 S→C [2025-11-25] tools/call result (CallToolResult): /result must have required property 'content'",
      '#7 S→C [2025-11-25] response to id 1, which no received request carries (or it was answered already)',
      '#9 S→C [2025-11-25] sent text is not valid JSON',
      '#11 S→C [2025-11-25] "tools/list" is a client-to-server request in revision 2025-11-25; a server must not send it',
    ]);
    assert.equal(rec.transcript[8]!.message, '{not json');
    assert.deepEqual(rec.peerViolations(), []);
  });

  it('validates initialize under the revision it names or negotiates', async () => {
    const [a, b] = Pipe.pair();
    const rec = recordTransport(a, { revision: () => undefined, side: 'server' });
    collect(rec);
    collect(b);
    await b.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2099-01-01', capabilities: {}, clientInfo } });
    await settle();
    await rec.send({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo } });
    await b.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo } });
    await settle();
    await rec.send({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unsupported protocol version' } });
    assert.deepEqual(
      rec.transcript.map((e) => e.revision),
      ['2025-11-25', '2025-03-26', '2025-06-18', '2025-06-18'],
    );
    assert.deepEqual(rec.violations(), []);
  });

  it('answers a 2026-07-28 request under the revision its _meta names', async () => {
    const [a, b] = Pipe.pair();
    const rec = recordTransport(a, { revision: () => undefined, side: 'server' });
    collect(rec);
    collect(b);
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': clientInfo,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    await b.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta } });
    await b.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', _meta } });
    await settle();
    await rec.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } }, { relatedRequestId: 1 });
    await rec.send({ jsonrpc: '2.0', id: 1, result: { content: [], resultType: 'complete' } });
    await rec.send({ jsonrpc: '2.0', id: 2, result: { content: [] } });
    assert.deepEqual(
      rec.transcript.map((e) => e.revision),
      ['2026-07-28', '2026-07-28', '2026-07-28', '2026-07-28', '2026-07-28'],
    );
    assert.deepEqual(rec.violations(), ["#5 S→C [2026-07-28] tools/call result (CallToolResult): /result must have required property 'resultType'"]);
  });

  it('checks batches element by element and what the peer sent', async () => {
    const [a, b] = Pipe.pair();
    const rec = recordTransport(a, { revision: () => '2025-03-26', side: 'server' });
    collect(rec);
    collect(b);
    await b.send([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'prompts/get', params: {} },
    ]);
    await settle();
    await rec.send([
      { jsonrpc: '2.0', id: 1, result: { tools: [] } },
      { jsonrpc: '2.0', id: 2, result: { messages: 'none' } },
    ]);
    assert.deepEqual(rec.violations(), ['#2 S→C [2025-03-26] [1] prompts/get result (GetPromptResult): /result/messages must be array']);
    assert.deepEqual(rec.peerViolations(), ["#1 C→S [2025-03-26] [1] prompts/get request (GetPromptRequest): /params must have required property 'name'"]);
  });

  it('reports a revision it has no schema for', async () => {
    const [a, b] = Pipe.pair();
    const rec = recordTransport(a, { revision: () => '2030-01-01', side: 'client' });
    collect(rec);
    collect(b);
    await rec.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const found = rec.violations();
    assert.equal(found.length, 1);
    assert.match(found[0]!, /^#1 C→S \[2030-01-01\] cannot validate: wire-schema: no schema for revision 2030-01-01/);
  });
});

describe('formatWireLine', () => {
  it('draws the arrow from the given side', () => {
    assert.equal(formatWireLine('client', 'send', { a: 1 }), 'C→S {"a":1}');
    assert.equal(formatWireLine('client', 'recv', { a: 1 }), 'S→C {"a":1}');
    assert.equal(formatWireLine('server', 'send', 'raw'), 'S→C "raw"');
    assert.equal(formatWireLine('server', 'recv', [1, 2]), 'C→S [1,2]');
  });
});
