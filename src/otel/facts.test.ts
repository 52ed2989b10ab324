/**
 * The pure parts of the conventions (conventions.ts): span names and method attributes,
 * how a failure becomes `error.type` and `rpc.response.status_code`; and a client timeout
 * recorded as `error.type` `timeout` by a real client span.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureServer, sdk, viewOf, w3c } from '../../test/helpers/otel.js';
import { LocalError, McpError } from '../jsonrpc/errors.js';
import { connectInMemory } from '../testing/in-memory.js';
import { createdTaskId, failureOf, isToolError, methodFacts } from './conventions.js';
import { instrument } from './index.js';

describe('otel conventions: names and attributes', () => {
  it('names a span by method and tool or prompt; the resource URI joins the name only when opted in', () => {
    assert.deepEqual(methodFacts('tools/call', { name: 'w' }, false), {
      name: 'tools/call w',
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'w' },
    });
    assert.deepEqual(methodFacts('prompts/get', { name: 'p' }, false), {
      name: 'prompts/get p',
      attributes: { 'mcp.method.name': 'prompts/get', 'gen_ai.prompt.name': 'p' },
    });
    assert.deepEqual(methodFacts('resources/read', { uri: 'test://a' }, false), {
      name: 'resources/read',
      attributes: { 'mcp.method.name': 'resources/read', 'mcp.resource.uri': 'test://a' },
    });
    assert.equal(methodFacts('resources/read', { uri: 'test://a' }, true).name, 'resources/read test://a');
    assert.deepEqual(methodFacts('notifications/resources/updated', { uri: 'u' }, false).attributes['mcp.resource.uri'], 'u');
    assert.deepEqual(
      methodFacts('tools/call', { name: 7 } as never, false),
      { name: 'tools/call', attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool' } },
      'a non-string name is no target',
    );
    assert.deepEqual(methodFacts('tools/list', undefined, false), { name: 'tools/list', attributes: { 'mcp.method.name': 'tools/list' } });
  });

  it('turns failures into error.type and rpc.response.status_code', () => {
    assert.deepEqual(failureOf(new McpError(-32602, 'bad'), undefined), { type: '-32602', statusCode: '-32602', message: 'bad' });
    assert.deepEqual(failureOf(new LocalError('timeout', 'slow'), undefined), { type: 'timeout', statusCode: undefined, message: 'slow' });
    assert.deepEqual(
      failureOf(new RangeError('oops'), -32603),
      { type: '-32603', statusCode: '-32603', message: 'oops' },
      'a handler throw is answered -32603',
    );
    assert.deepEqual(failureOf(new RangeError('oops'), undefined), { type: 'RangeError', statusCode: undefined, message: 'oops' });
    assert.equal(failureOf('text', undefined).type, '_OTHER');
    assert.equal(isToolError('tools/call', { content: [], isError: true }), true);
    assert.equal(isToolError('tools/call', { content: [], isError: 'yes' }), false);
    assert.equal(isToolError('prompts/get', { isError: true }), false);
    assert.equal(createdTaskId({ task: { taskId: 't1', status: 'working' } }), 't1');
    assert.equal(createdTaskId({ task: { taskId: 1 } }), undefined);
    assert.equal(createdTaskId(null), undefined);
  });

  it('records a client timeout as error.type timeout on the client span and its metric', async () => {
    const clientSdk = sdk();
    const server = fixtureServer();
    server.registerTool(
      'stall',
      { description: 'never answers in time' },
      (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('late'))),
    );
    const pair = await connectInMemory(server, {
      onClient: (c) => void instrument(c, { tracerProvider: clientSdk.tracerProvider, meterProvider: clientSdk.meterProvider, propagator: w3c }),
    });
    await assert.rejects(pair.client.callTool({ name: 'stall' }, { timeoutMs: 50 }), { code: 'timeout' });
    await pair.close();
    const span = clientSdk
      .spans()
      .map(viewOf)
      .find((s) => s.name === 'tools/call stall');
    assert.equal(span?.attributes['error.type'], 'timeout');
    assert.equal(span?.attributes['rpc.response.status_code'], undefined, 'no JSON-RPC code: the peer did not answer');
    assert.equal(span?.error, true);
    const point = (await clientSdk.histograms()).get('mcp.client.operation.duration')!.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'stall');
    assert.equal(point?.attributes['error.type'], 'timeout');
    await clientSdk.shutdown();
  });
});
