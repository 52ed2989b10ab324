/**
 * One stdio server, both eras: `mcpkit demo` as a child process serves a dual-era client in
 * the stateless era (probe, per-request `_meta`, multi round-trip requests, a subscription
 * on the shared channel) and a 2025-era client with `initialize`. Every message the clients
 * send is checked against the schema of the revision it names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MCPKIT_BIN } from '../../test/helpers/repo.js';
import { ALL_REVISIONS, Client } from '../client/index.js';
import { recordTransport } from '../testing/recording-transport.js';
import { StdioClientTransport } from './index.js';

const BIN = MCPKIT_BIN;

function demo(): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: [BIN, 'demo'], stderr: 'pipe', closeTimeouts: { stdinMs: 1000, termMs: 1000 } });
}

describe('mcpkit demo over stdio serves both eras', () => {
  it('a dual-era client goes stateless; inputs are answered by its handlers', async () => {
    const client = new Client(
      { name: 'dual', version: '1.0.0' },
      {
        protocolVersions: ALL_REVISIONS,
        elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
        sampling: { createMessage: () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'Hi' } }) },
        roots: { list: () => [{ uri: 'file:///w' }] },
      },
    );
    const recorder = recordTransport(demo(), { side: 'client', revision: () => client.protocolVersion });
    await client.connect(recorder, { timeoutMs: 10_000 });
    try {
      assert.equal(client.era, 'stateless');
      assert.equal(client.serverInfo?.name, 'mcpkit-demo');
      const r = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Hi Ada (1 root)' }]);
      const seen: string[] = [];
      const sub = await client.listen({ toolsListChanged: true }, { onNotification: (m) => seen.push(m) });
      await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
      const deadline = Date.now() + 2000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(seen, ['notifications/tools/list_changed']);
      sub.close();
      await sub.ended.catch(() => {});
      recorder.assertNoViolations();
    } finally {
      await client.close();
    }
  });

  it('a 2025-era client initializes as before', async () => {
    const client = new Client({ name: 'legacy', version: '1.0.0' });
    await client.connect(demo(), { timeoutMs: 10_000 });
    try {
      assert.equal(client.era, 'stateful');
      assert.equal(client.protocolVersion, '2025-11-25');
      await client.ping();
    } finally {
      await client.close();
    }
  });
});
