import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '../../src/jsonrpc/types.js';
import { recordTransport } from '../../src/testing/recording-transport.js';
import type { Transport, TransportReceiver } from '../../src/transport/types.js';
import { match, runTranscript } from './transcript.js';

/** A minimal connected pair: text is delivered to the other end on a microtask, in order. */
class Pipe implements Transport {
  #peer: Pipe | undefined;
  #receiver: TransportReceiver | undefined;
  #queue: string[] = [];
  #closed = false;

  static pair(): [Pipe, Pipe] {
    const a = new Pipe();
    const b = new Pipe();
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
    if (this.#closed || peer === undefined) return Promise.reject(new Error('pipe closed'));
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

/**
 * A tiny server under test: answers `ping`; for `tools/call` sends a log notification,
 * then the result; ignores notifications; closes on `bye`.
 */
function fakeServer(t: Transport): void {
  void t.start({
    message: (data) => {
      const m = JSON.parse(data as string) as { id?: number; method?: string; params?: { name?: string } };
      if (m.method === 'ping') void t.send({ jsonrpc: '2.0', id: m.id!, result: {} });
      else if (m.method === 'tools/call') {
        void t.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'calling' } });
        void t.send({ jsonrpc: '2.0', id: m.id!, result: { content: [{ type: 'text', text: m.params?.name ?? '' }] } });
      } else if (m.method === 'bye') void t.close();
    },
    error: () => {},
    closed: () => {},
  });
}

function connected(): Transport {
  const [client, server] = Pipe.pair();
  fakeServer(server);
  return client;
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('runTranscript', () => {
  it('sends, expects in order and in any order, and returns what it consumed', async () => {
    const t = connected();
    const result = await runTranscript(t, [
      { send: ping(1) },
      { expect: { jsonrpc: '2.0', id: 1, result: {}, error: undefined } },
      { send: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo' } } },
      {
        expectAnyOrder: [
          { id: 2, result: { content: [{ type: 'text', text: 'echo' }] } },
          { method: 'notifications/message', params: { level: 'info' } },
        ],
      },
      { send: { jsonrpc: '2.0', method: 'notifications/initialized' } },
      { expectSilence: 20 },
      { send: ping(3) },
      {
        expect: (m: unknown) => {
          assert.equal((m as { id: number }).id, 3);
        },
      },
    ]);
    assert.equal(result.received.length, 4);
    assert.deepEqual(result.transcript.split('\n'), [
      'C→S {"jsonrpc":"2.0","id":1,"method":"ping"}',
      'S→C {"jsonrpc":"2.0","id":1,"result":{}}',
      'C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}',
      'S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"calling"}}',
      'S→C {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"echo"}]}}',
      'C→S {"jsonrpc":"2.0","method":"notifications/initialized"}',
      'C→S {"jsonrpc":"2.0","id":3,"method":"ping"}',
      'S→C {"jsonrpc":"2.0","id":3,"result":{}}',
    ]);
  });

  it('continues on the same transport in a later run, keeping early messages', async () => {
    const t = connected();
    await runTranscript(t, [{ send: ping(1) }, { send: ping(2) }, { expect: { id: 1 } }]);
    const second = await runTranscript(t, [{ expect: { id: 2 } }]);
    assert.deepEqual(second.received, [{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('fails on a mismatch, naming the step and printing the transcript', async () => {
    const t = connected();
    await assert.rejects(runTranscript(t, [{ send: ping(1) }, { expect: { id: 1, result: { ok: true } } }]), (e: Error) => {
      assert.equal(e.name, 'AssertionError');
      assert.match(e.message, /^transcript step 2 of 2 \(expect\) failed: \$\.result\.ok: missing/);
      assert.ok(
        e.message.includes('--- transcript so far ---\nC→S {"jsonrpc":"2.0","id":1,"method":"ping"}\nS→C {"jsonrpc":"2.0","id":1,"result":{}}'),
        e.message,
      );
      return true;
    });
  });

  it('fails when the order is wrong for a plain expect', async () => {
    const t = connected();
    await assert.rejects(
      runTranscript(t, [{ send: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } } }, { expect: { id: 1 } }]),
      /step 2 of 2 \(expect\) failed: \$\.id: missing/,
    );
  });

  it('times out per step', async () => {
    const t = connected();
    const started = Date.now();
    await assert.rejects(
      runTranscript(t, [{ send: { jsonrpc: '2.0', method: 'notifications/initialized' } }, { expect: { id: 1 }, timeoutMs: 50 }]),
      /step 2 of 2 \(expect\) failed: no message within 50 ms; expected \{"id":1\}/,
    );
    assert.ok(Date.now() - started < 1000);
    await assert.rejects(runTranscript(t, [{ expectAnyOrder: [{ id: 1 }, { id: 2 }] }], { timeoutMs: 30 }), /only 0 of 2 messages within 30 ms/);
  });

  it('fails when the peer closes while a message is expected', async () => {
    const t = connected();
    await assert.rejects(runTranscript(t, [{ send: { jsonrpc: '2.0', id: 9, method: 'bye' } }, { expect: { id: 9 } }]), (e: Error) => {
      assert.match(e.message, /step 2 of 2 \(expect\) failed: connection closed; expected/);
      assert.ok(e.message.includes('!! connection closed'), e.message);
      return true;
    });
    await assert.rejects(runTranscript(t, [{ send: ping(1) }]), /step 1 of 1 \(send\) failed: send rejected: pipe closed/);
  });

  it('fails when an any-order group has no complete matching', async () => {
    const t = connected();
    await assert.rejects(
      runTranscript(t, [{ send: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } } }, { expectAnyOrder: [{ id: 1 }, { id: 1 }] }]),
      /step 2 of 2 \(expectAnyOrder\) failed: no match for \{"id":1\}/,
    );
  });

  it('fails when a message arrives during expected silence', async () => {
    const t = connected();
    await assert.rejects(
      runTranscript(t, [{ send: ping(4) }, { expectSilence: 200 }]),
      /\(expectSilence\) failed: received \{"jsonrpc":"2.0","id":4,"result":\{\}\}/,
    );
  });

  it('drives a recorded transport, so the sent side is schema-checked too', async () => {
    const rec = recordTransport(connected(), { revision: () => '2025-06-18', side: 'client' });
    await runTranscript(rec, [{ send: ping(1) }, { expect: { id: 1, result: {} } }, { send: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: {} } }]);
    assert.deepEqual(rec.violations(), ["#3 C→S [2025-06-18] tools/call request (CallToolRequest): /params must have required property 'name'"]);
    assert.deepEqual(rec.peerViolations(), []);
  });
});

describe('match', () => {
  it('matches partially, arrays by length, undefined as absent, functions as predicates', () => {
    const actual = { a: 1, b: { c: [1, { d: 'x', e: true }] }, n: null };
    assert.equal(match({ a: 1 }, actual), undefined);
    assert.equal(match({ b: { c: [1, { d: 'x' }] } }, actual), undefined);
    assert.equal(match({ b: { c: [1] } }, actual), '$.b.c: expected 1 elements, got 2');
    assert.equal(match({ b: { c: [1, { d: 'y' }] } }, actual), '$.b.c[1].d: expected "y", got "x"');
    assert.equal(match({ z: undefined }, actual), undefined);
    assert.equal(match({ a: undefined }, actual), '$.a: expected absent, got 1');
    assert.equal(match({ n: null }, actual), undefined);
    assert.equal(match({ n: {} }, actual), '$.n: expected an object, got null');
    assert.equal(match({ a: (v: unknown) => typeof v === 'number' }, actual), undefined);
    assert.equal(match({ a: (v: unknown) => v === 2 }, actual), '$.a: rejected by predicate');
    assert.equal(match({ a: () => assert.fail('nope') }, actual), '$.a: nope');
    assert.equal(match({ q: (v: unknown) => v === undefined }, actual), undefined, 'a predicate sees a missing key as undefined');
    assert.equal(match({ q: 1 }, actual), '$.q: missing');
    assert.equal(match([1, 2], { 0: 1, 1: 2 }), '$: expected an array, got {"0":1,"1":2}');
    assert.equal(match(Number.NaN, Number.NaN), undefined);
    assert.equal(match('1', 1), '$: expected "1", got 1');
  });
});
