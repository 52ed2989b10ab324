import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpError } from '../../jsonrpc/errors.js';
import { tableFor } from '../table.js';
import { claimedRevision, claimsStatelessEra, readRequestMeta, subscriptionIdOf } from './wire.js';

const V = '2026-07-28';
const KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

describe('stateless era: per-request metadata', () => {
  it('recognizes the claim by the protocol-version key alone', () => {
    assert.ok(claimsStatelessEra({ _meta: { [KEY]: V } }));
    assert.ok(claimsStatelessEra({ _meta: { [KEY]: 7 } }), 'a malformed claim is still a claim');
    assert.ok(!claimsStatelessEra({ _meta: { progressToken: 1 } }));
    assert.ok(!claimsStatelessEra(undefined));
    assert.equal(claimedRevision({ _meta: { [KEY]: V } }), V);
    assert.equal(claimedRevision({ _meta: { [KEY]: 7 } }), undefined);
  });

  it('reads valid metadata and refuses the rest', () => {
    const meta = readRequestMeta(
      {
        _meta: {
          [KEY]: V,
          [CAPS]: { sampling: {} },
          'io.modelcontextprotocol/logLevel': 'info',
          'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
        },
      },
      [V],
    );
    assert.deepEqual(meta, { revision: V, clientCapabilities: { sampling: {} }, clientInfo: { name: 'c', version: '1' }, logLevel: 'info' });
    const code = (params: unknown) => {
      try {
        readRequestMeta(params as never, [V]);
      } catch (e) {
        assert.ok(e instanceof McpError);
        return e.code;
      }
      return 0;
    };
    assert.equal(code(undefined), -32602);
    assert.equal(code({ _meta: { [CAPS]: {} } }), -32602);
    assert.equal(code({ _meta: { [KEY]: V } }), -32602);
    assert.equal(code({ _meta: { [KEY]: V, [CAPS]: [] } }), -32602);
    assert.equal(code({ _meta: { [KEY]: V, [CAPS]: {}, 'io.modelcontextprotocol/logLevel': 'verbose' } }), -32602);
    assert.equal(code({ _meta: { [KEY]: '2025-11-25', [CAPS]: {} } }), -32022);
  });

  it('reads subscription ids', () => {
    assert.equal(subscriptionIdOf({ _meta: { 'io.modelcontextprotocol/subscriptionId': 3 } }), 3);
    assert.equal(subscriptionIdOf({}), undefined);
  });
});

describe('stateless era: the 2026-07-28 method table', () => {
  const table = tableFor(V)!;
  it('has discover and listen, and none of the removed methods', () => {
    for (const m of ['server/discover', 'subscriptions/listen', 'tools/call', 'prompts/get', 'resources/read', 'completion/complete'])
      assert.ok(table.methods.has(m), m);
    for (const m of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
      'sampling/createMessage',
      'elicitation/create',
      'roots/list',
      'notifications/initialized',
      'notifications/roots/list_changed',
      'notifications/elicitation/complete',
    ]) {
      assert.ok(!table.methods.has(m), m);
    }
    assert.equal(table.batches, false);
    assert.ok(
      [...table.methods.values()].every((s) => s.beforeInit),
      'nothing waits for initialization',
    );
  });
});

it('a repeated reading of the same _meta sees a change made in between, and a narrower revision list', () => {
  const meta: Record<string, unknown> = { [KEY]: V, [CAPS]: {}, 'io.modelcontextprotocol/logLevel': 'info' };
  const params = { _meta: meta };
  assert.equal(readRequestMeta(params, [V]).logLevel, 'info');
  assert.equal(readRequestMeta(params, [V]).logLevel, 'info');
  meta['io.modelcontextprotocol/logLevel'] = 'error';
  assert.equal(readRequestMeta(params, [V]).logLevel, 'error');
  meta['io.modelcontextprotocol/logLevel'] = 'loud';
  assert.throws(
    () => readRequestMeta(params, [V]),
    (e: McpError) => e.code === -32602,
  );
  delete meta['io.modelcontextprotocol/logLevel'];
  meta[CAPS] = { roots: {} };
  assert.deepEqual(readRequestMeta(params, [V]).clientCapabilities, { roots: {} });
  assert.throws(
    () => readRequestMeta(params, ['2099-01-01']),
    (e: McpError) => e.code === -32022,
  );
});
