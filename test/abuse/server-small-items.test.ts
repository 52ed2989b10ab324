/**
 * Fault and abuse suite, server: small holes found by the attack run, one test each, run
 * against a real McpServer through the recording transport (every message the server sends
 * is checked against the official schema of its revision).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONObject } from '../../src/jsonrpc/types.js';
import { McpServer } from '../../src/server/server.js';
import { TaskServer } from '../../src/tasks/index.js';
import { connectPeer, errorOf } from './server-peer.js';

function textOf(result: JSONObject): string {
  return ((result.content as JSONObject[] | undefined) ?? []).map((c) => String(c.text ?? '')).join('\n');
}

describe('abuse: server small items', () => {
  // JSON (RFC 8259 §6) has no Infinity or NaN: JSON.stringify writes them as null, so a
  // result carrying one would reach the client as something its output schema forbids.
  // 2025-11-25 › Server › Tools › Structured content: servers MUST provide structured
  // results that conform to the output schema; a tool that cannot is a tool error
  // (isError: true), not a protocol error.
  it('a non-finite number in structuredContent is a tool error naming the field, not a silent null', async () => {
    const server = new McpServer({ name: 'abuse', version: '1.0.0' });
    server.registerTool(
      'measure',
      {
        outputSchema: {
          type: 'object',
          properties: { reading: { type: 'object', properties: { value: { type: 'number' } }, required: ['value'] } },
          required: ['reading'],
        },
      },
      () => ({ structuredContent: { reading: { value: Infinity } } }),
    );
    server.registerTool('average', { outputSchema: { type: 'object', properties: { items: { type: 'array', items: { type: 'number' } } } } }, () => ({
      structuredContent: { items: [1, NaN] },
    }));
    server.registerTool('untyped_output', {}, () => ({ structuredContent: { ratio: -Infinity } }));
    const peer = await connectPeer(server);
    for (const [tool, field] of [
      ['measure', '/reading/value'],
      ['average', '/items/1'],
      ['untyped_output', '/ratio'],
    ] as const) {
      const result = await peer.call('tools/call', { name: tool, arguments: {} });
      assert.equal(result.isError, true, `${tool}: ${JSON.stringify(result)}`);
      assert.equal(result.structuredContent, undefined, `${tool}: nothing half-serialized goes out`);
      assert.ok(textOf(result).includes(field), `${tool}: the message names ${field}: ${textOf(result)}`);
    }
    peer.recorder!.assertNoViolations();
    await peer.close();
  });

  // 2025-11-25 schema, CompleteRequest: params.context.arguments is an object whose
  // values are strings; a request that breaks the schema is invalid params (-32602,
  // JSON-RPC 2.0 §5.1), whatever the completer would do with it.
  it('completion/complete with a non-string context argument answers -32602, not -32603', async () => {
    const server = new McpServer({ name: 'abuse', version: '1.0.0' });
    server.registerPrompt(
      'greet',
      {
        arguments: [{ name: 'lang' }, { name: 'name' }],
        complete: { name: (value, context) => [`${context.arguments.lang?.toUpperCase() ?? ''}${value}`] },
      },
      () => ({ messages: [] }),
    );
    const peer = await connectPeer(server);
    const ref = { type: 'ref/prompt', name: 'greet' };
    for (const bad of [5, null, { nested: 'x' }, ['en']]) {
      const e = errorOf(await peer.request('completion/complete', { ref, argument: { name: 'name', value: 'A' }, context: { arguments: { lang: bad } } }));
      assert.equal(e.code, -32602, JSON.stringify(e));
      assert.match(e.message, /context\.arguments\.lang/);
    }
    const ok = await peer.call('completion/complete', { ref, argument: { name: 'name', value: 'A' }, context: { arguments: { lang: 'en' } } });
    assert.deepEqual((ok.completion as JSONObject).values, ['ENA']);
    peer.recorder!.assertNoViolations();
    await peer.close();
  });

  // 2025-11-25 schema, CallToolRequestParams.task is a TaskMetadata object
  // ({ttl?: integer}); anything else is invalid params (-32602), with or without tasks
  // enabled, never a silently ignored member.
  it('tools/call with a non-object params.task answers -32602 (2025-11-25)', async () => {
    for (const withTasks of [false, true]) {
      const server = new McpServer({ name: 'abuse', version: '1.0.0' });
      server.registerTool('slow', { execution: { taskSupport: 'optional' } }, () => 'done');
      if (withTasks) new TaskServer(server, { sweepIntervalMs: 0 });
      const peer = await connectPeer(server);
      for (const bad of [5, 'yes', true, null, [{ ttl: 1000 }]]) {
        const e = errorOf(await peer.request('tools/call', { name: 'slow', arguments: {}, task: bad as never }));
        assert.equal(e.code, -32602, `tasks ${withTasks}, task ${JSON.stringify(bad)}: ${JSON.stringify(e)}`);
        assert.match(e.message, /"task"/);
      }
      const plain = await peer.call('tools/call', { name: 'slow', arguments: {} });
      assert.equal(textOf(plain), 'done');
      peer.recorder!.assertNoViolations();
      await peer.close();
    }
  });
});
