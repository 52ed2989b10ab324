/**
 * Capability gating transcripts: a side only serves, and only sends, what the
 * negotiated capabilities allow.
 * Spec: 2025-03-26 › Basic › Lifecycle › Capability Negotiation ("Both parties SHOULD
 * respect capability negotiation"), and the Capabilities sections of Tools, Resources,
 * Prompts, Completion, Sampling, Roots; 2025-06-18 › Client › Elicitation › Capabilities.
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/server.js';
import { error, harnessTest, matches, request, result } from './harness.js';

function toolsOnly(): McpServer {
  const server = new McpServer({ name: 'tools-only', version: '1.0.0' });
  server.registerTool('hello', { description: 'Says hello' }, () => 'hello');
  return server;
}

const localCode = (code: string) => (e: unknown) => e instanceof LocalError && e.code === code;

describe('capability gating', () => {
  // Capability Negotiation: the server declares only what it offers; a method of a
  // capability it did not declare does not exist for this client (-32601).
  harnessTest('methods of undeclared server capabilities are -32601', async (h) => {
    const c = await h.raw(toolsOnly());
    await c.run([
      { send: request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }) },
      { expect: result(0, { capabilities: { tools: { listChanged: true }, logging: {}, resources: undefined, prompts: undefined, completions: undefined } }) },
      { send: { jsonrpc: '2.0', method: 'notifications/initialized' } },
      { send: request(1, 'resources/list') },
      { expect: error(1, -32601) },
      { send: request(2, 'resources/read', { uri: 'test://x' }) },
      { expect: error(2, -32601) },
      { send: request(3, 'prompts/list') },
      { expect: error(3, -32601) },
      { send: request(4, 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }) },
      { expect: error(4, -32601) },
      { send: request(5, 'tools/list') },
      { expect: result(5, { tools: [{ name: 'hello' }] }) },
    ]);
  });

  // Resources › Capabilities: `subscribe` is optional; without it resources/subscribe
  // does not exist.
  harnessTest('resources/subscribe without the subscribe sub-capability is -32601', async (h) => {
    const server = new McpServer({ name: 'no-subscribe', version: '1.0.0' }, { capabilities: { resources: { listChanged: true } } });
    server.registerResource('test://a', { name: 'a' }, (uri) => ({ uri, text: 'a' }));
    const c = await h.raw(server);
    await c.init();
    await c.run([
      { send: request(1, 'resources/subscribe', { uri: 'test://a' }) },
      { expect: error(1, -32601) },
      { send: request(2, 'resources/read', { uri: 'test://a' }) },
      { expect: result(2, { contents: [{ uri: 'test://a', text: 'a' }] }) },
    ]);
    assert.equal(c.session.endpoint.canSend('notifications/resources/updated'), false);
  });

  // Capability Negotiation, client side: the client does not send requests the server
  // did not declare; it fails locally without touching the wire.
  harnessTest('the client refuses locally to call what the server did not declare', async (h) => {
    const { client, clientWire } = await h.client(toolsOnly());
    const before = clientWire.transcript.length;
    await assert.rejects(client.listResources(), localCode('capability_missing'));
    await assert.rejects(client.listPrompts(), localCode('capability_missing'));
    await assert.rejects(client.complete({ type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' }), localCode('capability_missing'));
    await assert.rejects(client.request('sampling/createMessage', { messages: [], maxTokens: 1 }), localCode('method_unsupported'));
    assert.equal(clientWire.transcript.length, before, 'nothing was sent');
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['hello'],
    );
  });

  // Sampling / Roots / Elicitation › Capabilities: the server sends these requests only
  // to a client that declared them; otherwise mcpkit refuses locally with LocalError
  // `capability_missing` and nothing goes on the wire.
  harnessTest('server requests to a client without the capability fail locally', async (h) => {
    const { session, serverWire } = await h.client(h.demo());
    const before = serverWire.transcript.length;
    await assert.rejects(
      session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 }),
      localCode('capability_missing'),
    );
    await assert.rejects(
      session.elicitForm({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }),
      localCode('capability_missing'),
    );
    await assert.rejects(session.elicitUrl({ message: 'visit', url: 'https://example.com/' }), localCode('capability_missing'));
    await assert.rejects(session.listRoots(), localCode('capability_missing'));
    assert.equal(serverWire.transcript.length, before, 'nothing was sent');
  });

  // The same refusal seen through a tool: the tool fails with isError, nothing is asked.
  harnessTest('a tool needing sampling fails with isError when the client lacks it', async (h) => {
    const c = await h.raw();
    await c.init('2025-11-25', { roots: {} });
    await c.run([
      { send: request(1, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'hi' } }) },
      { expect: result(1, { isError: true, content: [{ type: 'text', text: matches(/"sampling"/) }] }) },
      { send: request(2, 'tools/call', { name: 'test_elicitation', arguments: { message: 'who?' } }) },
      { expect: result(2, { isError: true, content: [{ type: 'text', text: matches(/"elicitation"/) }] }) },
    ]);
  });

  // Elicitation exists from 2025-06-18: in 2025-03-26 the server cannot send it at all.
  harnessTest('elicitation is not sent in 2025-03-26 even if the client claims it', async (h) => {
    const c = await h.raw();
    await c.init('2025-03-26', { elicitation: {} });
    await c.run([
      { send: request(1, 'tools/call', { name: 'test_elicitation', arguments: { message: 'who?' } }) },
      { expect: result(1, { isError: true, content: [{ type: 'text', text: matches(/elicitation\/create/) }] }) },
    ]);
  });
});
