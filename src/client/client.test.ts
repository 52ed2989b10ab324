/**
 * Client behaviour against a scripted server: the transcript plays the server side
 * (S→C sends, C→S expectations), so each test shows exactly what the client put on the
 * wire and how it judged the answers.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runTranscript, type TranscriptStep } from '../../test/transcripts/transcript.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { recordTransport } from '../testing/recording-transport.js';
import { InMemoryTransport } from '../transport/memory.js';
import { Client, type ClientOptions } from './client.js';

const initResult = (protocolVersion = '2025-11-25', capabilities: object = { tools: { listChanged: true } }) => ({
  jsonrpc: '2.0',
  id: 1,
  result: { protocolVersion, capabilities, serverInfo: { name: 'scripted', version: '1' } },
});

/** A client connected to a scripted server end; `server` plays the server's part. */
function setup(options: ClientOptions = {}) {
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  const client = new Client({ name: 'unit', version: '1' }, options);
  const wire = recordTransport(clientEnd, { side: 'client', revision: () => client.protocolVersion });
  const server = (steps: TranscriptStep[]) => runTranscript(serverEnd, steps, { side: 'server' });
  return { client, wire, server, serverEnd };
}

const handshake: TranscriptStep[] = [
  { expect: { jsonrpc: '2.0', id: 1, method: 'initialize' } },
  { send: initResult() },
  { expect: { jsonrpc: '2.0', method: 'notifications/initialized' } },
];

const localCode = (code: string) => (e: unknown) => e instanceof LocalError && e.code === code;

test('a listener added before connect can be removed after it', async () => {
  const { client, server, wire } = setup();
  const seen: string[] = [];
  const off = client.on('notifications/tools/list_changed', () => seen.push('changed'));
  const connected = client.connect(wire);
  await server([...handshake, { send: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } }]);
  await connected;
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(seen, ['changed']);
  off();
  await server([{ send: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } }, { expectSilence: 10 }]);
  assert.deepEqual(seen, ['changed']);
  await client.close();
  assert.deepEqual(wire.violations(), []);
});

// Lifecycle › Version Negotiation: "If the client does not support the version in the
// server's response, it SHOULD disconnect."
test('an answer with an unsupported version fails the connect and disconnects', async () => {
  const { client, server, wire } = setup();
  const connected = client.connect(wire);
  const { transcript } = await server([
    { expect: { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } } },
    { send: initResult('1999-01-01') },
    { expectSilence: 20 },
  ]);
  await assert.rejects(connected, localCode('unsupported_protocol_version'));
  assert.match(transcript, /connection closed/);
  assert.doesNotMatch(transcript, /notifications\/initialized/);
});

test('a client proposing an older revision accepts it and speaks it', async () => {
  const { client, server, wire } = setup({ protocolVersion: '2025-03-26' });
  const connected = client.connect(wire);
  await server([
    { expect: { id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26' } } },
    { send: initResult('2025-03-26') },
    { expect: { method: 'notifications/initialized' } },
  ]);
  await connected;
  assert.equal(client.protocolVersion, '2025-03-26');
  assert.equal(client.supports('2025-06-18'), false);
  await client.close();
  assert.deepEqual(wire.violations(), []);
});

// A tool that tools/list does not show has no schema to check; the client lists once, not on
// every call.
test('callTool lists tools once for a tool the list does not show', async () => {
  const { client, server, wire } = setup();
  const connected = client.connect(wire);
  await server(handshake);
  await connected;
  const first = client.callTool({ name: 'hidden' });
  await server([
    { expect: { id: 2, method: 'tools/call', params: { name: 'hidden' } } },
    { send: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'a' }] } } },
    { expect: { id: 3, method: 'tools/list' } },
    { send: { jsonrpc: '2.0', id: 3, result: { tools: [{ name: 'add', inputSchema: { type: 'object' } }] } } },
  ]);
  assert.equal(((await first).content[0] as { text: string }).text, 'a');
  const second = client.callTool({ name: 'hidden' });
  await server([
    { expect: { id: 4, method: 'tools/call', params: { name: 'hidden' } } },
    { send: { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'b' }] } } },
    { expectSilence: 20 },
  ]);
  assert.equal(((await second).content[0] as { text: string }).text, 'b');
  await client.close();
  assert.deepEqual(wire.violations(), []);
});

// 2025-06-18 › Tools › Output Schema: "Clients SHOULD validate structured results against
// this schema." The client learns the schema from tools/list when it does not know it yet.
test('callTool validates structuredContent against the declared output schema', async () => {
  const { client, server, wire } = setup();
  const connected = client.connect(wire);
  await server(handshake);
  await connected;
  const call = client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  await server([
    { expect: { id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } } },
    { send: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '3' }], structuredContent: { sum: 'three' } } } },
    { expect: { id: 3, method: 'tools/list' } },
    {
      send: {
        jsonrpc: '2.0',
        id: 3,
        result: {
          tools: [
            { name: 'add', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } },
          ],
        },
      },
    },
  ]);
  await assert.rejects(call, (e) => localCode('invalid_result')(e) && /sum/.test((e as Error).message));
  // known schema now: a valid answer passes without listing again; an error result is not checked
  const ok = client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  const failed = client.callTool({ name: 'add', arguments: {} });
  await server([
    { expect: { id: 4, method: 'tools/call' } },
    { send: { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } } } },
    { expect: { id: 5, method: 'tools/call' } },
    { send: { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'bad input' }], isError: true } } },
    { expectSilence: 10 },
  ]);
  assert.deepEqual((await ok).structuredContent, { sum: 3 });
  assert.equal((await failed).isError, true);
  await client.close();
  assert.deepEqual(wire.violations(), []);
});

// Utilities › Pagination: a server that hands out a cursor it already gave must not make
// the client loop forever.
test('listAllTools stops on a repeated cursor', async () => {
  const { client, server, wire } = setup();
  const connected = client.connect(wire);
  await server(handshake);
  await connected;
  const all = client.listAllTools();
  await server([
    { expect: { id: 2, method: 'tools/list', params: undefined } },
    { send: { jsonrpc: '2.0', id: 2, result: { tools: [], nextCursor: 'c1' } } },
    { expect: { id: 3, method: 'tools/list', params: { cursor: 'c1' } } },
    { send: { jsonrpc: '2.0', id: 3, result: { tools: [], nextCursor: 'c1' } } },
  ]);
  await assert.rejects(all, localCode('invalid_result'));
  await client.close();
});

// 2025-11-25 › Elicitation › URL mode: only https URLs are offered to the user; a URL
// that does not parse is an invalid-params error.
test('URL elicitation: non-https URLs are declined without asking, bad URLs are -32602', async () => {
  let asked = 0;
  const { client, server, wire } = setup({ elicitation: { url: async () => (asked++, 'accept') } });
  const connected = client.connect(wire);
  await server(handshake);
  await connected;
  const elicit = (id: number, url: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'elicitation/create',
    params: { mode: 'url', message: 'm', url, elicitationId: `e${id}` },
  });
  await server([
    { send: elicit(1, 'javascript:alert(1)') },
    { expect: { id: 1, result: { action: 'decline' } } },
    { send: elicit(2, 'file:///etc/passwd') },
    { expect: { id: 2, result: { action: 'decline' } } },
    { send: elicit(3, 'not a url') },
    { expect: { id: 3, error: { code: -32602 } } },
    { send: elicit(4, 'https://example.com/ok') },
    { expect: { id: 4, result: { action: 'accept' } } },
  ]);
  assert.equal(asked, 1);
  await client.close();
  assert.deepEqual(wire.violations(), []);
});

test('an error answer rejects with McpError carrying code and data', async () => {
  const { client, server, wire } = setup();
  const connected = client.connect(wire);
  await server(handshake);
  await connected;
  const read = client.request('tools/list');
  await server([
    { expect: { id: 2, method: 'tools/list' } },
    { send: { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'busy', data: { retry: true } } } },
  ]);
  await assert.rejects(read, (e) => e instanceof McpError && e.code === -32000 && (e.data as { retry: boolean }).retry === true);
  await client.close();
});
