import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type AnsweredRequest, hasRevisionSchema, loadRevisionSchema, specSchemaRoot, validateDefinition, validateWireMessage } from './wire-schema.js';

const ALL = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const STATEFUL = ALL.slice(0, 4);

/** 2026-07-28 requests carry version, client info and capabilities in `_meta`. */
const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

function includesText(errors: string[], text: string): boolean {
  return errors.some((e) => e.includes(text));
}

describe('loadRevisionSchema', () => {
  it('reads every revision with its dialect and definitions key, once', () => {
    for (const r of ALL) {
      const s = loadRevisionSchema(r);
      assert.equal(s.revision, r);
      assert.ok(s.definitions['JSONRPCRequest'], `${r} has JSONRPCRequest`);
      assert.equal(loadRevisionSchema(r), s, 'cached');
    }
    assert.equal(loadRevisionSchema('2024-11-05').defsKey, 'definitions');
    assert.match(loadRevisionSchema('2024-11-05').dialect, /draft-07/);
    assert.equal(loadRevisionSchema('2025-11-25').defsKey, '$defs');
    assert.match(loadRevisionSchema('2025-11-25').dialect, /2020-12/);
  });

  it('finds the spec in the repository (spec/schema)', () => {
    assert.ok(specSchemaRoot().endsWith(join('spec', 'schema')));
    assert.ok(existsSync(join(specSchemaRoot(), '2026-07-28', 'schema.json')));
  });

  it('rejects unknown and non-date revisions', () => {
    assert.throws(() => loadRevisionSchema('1999-01-01'), /no schema for revision 1999-01-01/);
    assert.throws(() => loadRevisionSchema('../../etc'), /not a protocol revision/);
    assert.throws(() => validateWireMessage('latest', { jsonrpc: '2.0', id: 1, method: 'ping' }), /not a protocol revision/);
    assert.equal(hasRevisionSchema('2025-06-18'), true);
    assert.equal(hasRevisionSchema('2099-01-01'), false);
    assert.equal(hasRevisionSchema('x/../2025-06-18'), false);
  });
});

describe('validateWireMessage: requests', () => {
  it('accepts a 2025-11-25 tools/call and names what is missing when params are wrong', () => {
    const ok = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } };
    assert.deepEqual(validateWireMessage('2025-11-25', ok), []);
    const bad = validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } });
    assert.deepEqual(bad, ["tools/call request (CallToolRequest): /params must have required property 'name'"]);
  });

  it('checks the envelope before the method', () => {
    const errors = validateWireMessage('2025-06-18', { jsonrpc: '1.0', id: 1, method: 'ping' });
    assert.ok(includesText(errors, 'JSONRPCRequest: /jsonrpc must be equal to constant ("2.0")'), errors.join('\n'));
    const nullId = validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: null, method: 'ping' });
    assert.ok(includesText(nullId, 'JSONRPCRequest: /id'), nullId.join('\n'));
    const fractional = validateWireMessage('2024-11-05', { jsonrpc: '2.0', id: 1.5, method: 'ping' });
    assert.ok(includesText(fractional, '/id must be'), fractional.join('\n'));
  });

  it('reports a method the revision does not have', () => {
    const elicit = {
      jsonrpc: '2.0',
      id: 7,
      method: 'elicitation/create',
      params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    };
    assert.deepEqual(validateWireMessage('2024-11-05', elicit), ['unknown request method "elicitation/create" in revision 2024-11-05']);
    assert.deepEqual(validateWireMessage('2025-03-26', elicit), ['unknown request method "elicitation/create" in revision 2025-03-26']);
    assert.deepEqual(validateWireMessage('2025-06-18', elicit), []);
    assert.deepEqual(validateWireMessage('2026-07-28', { jsonrpc: '2.0', id: 1, method: 'ping' }), ['unknown request method "ping" in revision 2026-07-28']);
    assert.deepEqual(validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }), [
      'unknown request method "server/discover" in revision 2025-11-25',
    ]);
  });

  it('checks the direction when the sender is known', () => {
    const sampling = {
      jsonrpc: '2.0',
      id: 3,
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 },
    };
    assert.deepEqual(validateWireMessage('2025-11-25', sampling, { sender: 'server' }), []);
    assert.deepEqual(validateWireMessage('2025-11-25', sampling, { sender: 'client' }), [
      '"sampling/createMessage" is a server-to-client request in revision 2025-11-25; a client must not send it',
    ]);
    // Both sides may ping.
    for (const sender of ['client', 'server'] as const) {
      assert.deepEqual(validateWireMessage('2025-03-26', { jsonrpc: '2.0', id: 'p', method: 'ping' }, { sender }), []);
    }
  });

  it('requires the 2026-07-28 per-request _meta', () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } };
    assert.deepEqual(validateWireMessage('2025-11-25', call), []);
    const errors = validateWireMessage('2026-07-28', call);
    assert.ok(errors.length > 0 && errors.every((e) => e.startsWith('tools/call request (CallToolRequest): /params')), errors.join('\n'));
    assert.deepEqual(validateWireMessage('2026-07-28', { ...call, params: { name: 'echo', _meta: META_2026 } }), []);
  });

  it('accepts initialize under every stateful revision', () => {
    for (const r of STATEFUL) {
      const init = {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: r, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      };
      assert.deepEqual(validateWireMessage(r, init, { sender: 'client' }), [], r);
      const noInfo = validateWireMessage(r, { ...init, params: { protocolVersion: r, capabilities: {} } });
      assert.ok(includesText(noInfo, "/params must have required property 'clientInfo'"), `${r}: ${noInfo.join('\n')}`);
    }
  });
});

describe('validateWireMessage: notifications', () => {
  it('validates by method and reports unknown ones', () => {
    for (const r of STATEFUL) {
      assert.deepEqual(validateWireMessage(r, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sender: 'client' }), [], r);
    }
    const log = { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x' } };
    assert.ok(includesText(validateWireMessage('2025-06-18', log), "/params must have required property 'level'"));
    assert.deepEqual(validateWireMessage('2025-06-18', { ...log, params: { level: 'info', data: 'x' } }, { sender: 'server' }), []);
    assert.deepEqual(validateWireMessage('2025-06-18', { jsonrpc: '2.0', method: 'notifications/tasks/status', params: {} }), [
      'unknown notification method "notifications/tasks/status" in revision 2025-06-18',
    ]);
    assert.deepEqual(validateWireMessage('2026-07-28', { jsonrpc: '2.0', method: 'notifications/initialized' }, { sender: 'client' }), [
      'unknown notification method "notifications/initialized" in revision 2026-07-28',
    ]);
  });

  it('reads the inlined 2026-07-28 ClientNotification', () => {
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: 'user' } };
    assert.deepEqual(validateWireMessage('2026-07-28', cancel, { sender: 'client' }), []);
    assert.deepEqual(
      validateWireMessage('2026-07-28', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, { sender: 'client' }),
      ['"notifications/progress" is a server-to-client notification in revision 2026-07-28; a client must not send it'],
    );
  });
});

describe('validateWireMessage: results', () => {
  const text = { content: [{ type: 'text', text: 'hi' }] };

  it('checks a result as the result of the method it answers', () => {
    for (const r of STATEFUL) {
      assert.deepEqual(validateWireMessage(r, { jsonrpc: '2.0', id: 1, result: text }, { method: 'tools/call' }), [], r);
      assert.deepEqual(
        validateWireMessage(r, { jsonrpc: '2.0', id: 1, result: { isError: true } }, { method: 'tools/call' }),
        ["tools/call result (CallToolResult): /result must have required property 'content'"],
        r,
      );
    }
    const init = { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 's', version: '1' } };
    assert.deepEqual(validateWireMessage('2024-11-05', { jsonrpc: '2.0', id: 0, result: init }, { method: 'initialize' }), []);
    const noVersion = validateWireMessage(
      '2024-11-05',
      { jsonrpc: '2.0', id: 0, result: { capabilities: {}, serverInfo: init.serverInfo } },
      { method: 'initialize' },
    );
    assert.deepEqual(noVersion, ["initialize result (InitializeResult): /result must have required property 'protocolVersion'"]);
  });

  it('uses EmptyResult for methods without their own result', () => {
    for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']) {
      assert.deepEqual(validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: {} }, { method }), [], method);
    }
    const bad = validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: { _meta: 5 } }, { method: 'ping' });
    assert.ok(includesText(bad, 'ping result (EmptyResult): /result/_meta must be object'), bad.join('\n'));
  });

  it('looks the answered method up by id for batches and by side', () => {
    const requests = new Map<string | number, AnsweredRequest>([
      [1, { method: 'tools/list' }],
      ['a', { method: 'tools/call' }],
    ]);
    const batch = [
      { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] } },
      { jsonrpc: '2.0', id: 'a', result: {} },
    ];
    assert.deepEqual(validateWireMessage('2025-03-26', batch, { requests, sender: 'server' }), [
      "[1] tools/call result (CallToolResult): /result must have required property 'content'",
    ]);
    // A client answers server requests: tools/call is not one of them.
    assert.deepEqual(validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: text }, { method: 'tools/call', sender: 'client' }), [
      'cannot check the result: unknown request method "tools/call" in revision 2025-11-25',
    ]);
    assert.deepEqual(
      validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: { roots: [{ uri: 'file:///tmp' }] } }, { method: 'roots/list', sender: 'client' }),
      [],
    );
  });

  it('checks only the generic Result when the answered method is unknown', () => {
    assert.deepEqual(validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 9, result: {} }), []);
    const errors = validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 9, result: 'done' });
    assert.ok(includesText(errors, '/result must be object'), errors.join('\n'));
  });

  it('accepts CreateTaskResult for a task-augmented 2025-11-25 request', () => {
    const task = {
      task: { taskId: 't1', status: 'working', createdAt: '2025-11-25T00:00:00Z', lastUpdatedAt: '2025-11-25T00:00:00Z', ttl: null },
    };
    const response = { jsonrpc: '2.0', id: 2, result: task };
    assert.deepEqual(validateWireMessage('2025-11-25', response, { method: 'tools/call', taskAugmented: true }), []);
    assert.ok(includesText(validateWireMessage('2025-11-25', response, { method: 'tools/call' }), "must have required property 'content'"));
    const broken = validateWireMessage(
      '2025-11-25',
      { jsonrpc: '2.0', id: 2, result: { task: { taskId: 't1' } } },
      { method: 'tools/call', taskAugmented: true },
    );
    assert.ok(includesText(broken, 'tools/call result (CreateTaskResult): /result/task'), broken.join('\n'));
  });

  it('handles 2026-07-28 resultType: complete, input_required and task', () => {
    const ok = { jsonrpc: '2.0', id: 1, result: { ...text, resultType: 'complete' } };
    assert.deepEqual(validateWireMessage('2026-07-28', ok, { method: 'tools/call' }), []);
    assert.deepEqual(validateWireMessage('2026-07-28', { jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }, { method: 'tools/call' }), [
      "tools/call result (CallToolResult): /result must have required property 'content'",
    ]);
    assert.deepEqual(validateWireMessage('2026-07-28', { jsonrpc: '2.0', id: 1, result: text }, { method: 'tools/call' }), [
      "tools/call result (CallToolResult): /result must have required property 'resultType'",
    ]);
    const input = { jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', requestState: 'opaque' } };
    assert.deepEqual(validateWireMessage('2026-07-28', input, { method: 'tools/call' }), []);
    const badInput = validateWireMessage(
      '2026-07-28',
      { jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', requestState: 5 } },
      { method: 'tools/call' },
    );
    assert.ok(includesText(badInput, 'tools/call result (InputRequiredResult): /result/requestState must be string'), badInput.join('\n'));
    // server/discover never asks for input: its result is always DiscoverResult.
    const discover = validateWireMessage('2026-07-28', input, { method: 'server/discover' });
    assert.ok(includesText(discover, 'server/discover result (DiscoverResult)'), discover.join('\n'));
    // The tasks extension's result is outside the core schema.
    assert.deepEqual(validateWireMessage('2026-07-28', { jsonrpc: '2.0', id: 1, result: { resultType: 'task', taskId: 'x' } }, { method: 'tools/call' }), []);
  });
});

describe('validateWireMessage: readable union errors', () => {
  it('reports only the alternative a content block names, or that it names none', () => {
    const result = (content: unknown) => ({ jsonrpc: '2.0', id: 1, result: { content } });
    assert.deepEqual(validateWireMessage('2025-11-25', result([{ type: 'text' }]), { method: 'tools/call' }), [
      "tools/call result (CallToolResult): /result/content/0 must have required property 'text'",
    ]);
    assert.deepEqual(validateWireMessage('2024-11-05', result([{ type: 'text', text: 'ok' }, { type: 'video' }]), { method: 'tools/call' }), [
      'tools/call result (CallToolResult): /result/content/1 must be one of TextContent, ImageContent, EmbeddedResource (its "type" is "video")',
    ]);
    assert.deepEqual(validateWireMessage('2025-06-18', result([{ type: 'image', data: '!!', mimeType: 'image/png' }]), { method: 'tools/call' }), [
      'tools/call result (CallToolResult): /result/content/0/data must match format "byte"',
    ]);
  });

  it('treats an absent optional discriminator as naming its alternative', () => {
    const elicit = (params: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params });
    const form = { message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } };
    assert.deepEqual(validateWireMessage('2025-11-25', elicit(form)), []);
    assert.deepEqual(validateWireMessage('2025-11-25', elicit({ message: 'm' })), [
      "elicitation/create request (ElicitRequest): /params must have required property 'requestedSchema'",
    ]);
    assert.deepEqual(validateWireMessage('2025-11-25', elicit({ mode: 'url', message: 'm', url: 'https://example.com/x' })), [
      "elicitation/create request (ElicitRequest): /params must have required property 'elicitationId'",
    ]);
  });
});

describe('validateWireMessage: errors', () => {
  it('accepts id: null and either error definition name', () => {
    for (const r of ALL) {
      const parseError = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      assert.deepEqual(validateWireMessage(r, parseError), [], r);
      assert.deepEqual(validateWireMessage(r, { jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'nope', data: { m: 'x' } } }), [], r);
    }
    assert.deepEqual(validateWireMessage('2024-11-05', { jsonrpc: '2.0', id: 5, error: { code: -32601 } }), [
      "error response (JSONRPCError): /error must have required property 'message'",
    ]);
    assert.deepEqual(validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 5, error: { code: 1.5, message: 'x' } }), [
      'error response (JSONRPCErrorResponse): /error/code must be integer',
    ]);
  });

  it('rejects a response with both result and error', () => {
    const errors = validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } });
    assert.ok(includesText(errors, 'must not carry both result and error'), errors.join('\n'));
  });
});

describe('validateWireMessage: batches and garbage', () => {
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const note = { jsonrpc: '2.0', method: 'notifications/initialized' };

  it('validates each element of a batch where batches exist', () => {
    assert.deepEqual(validateWireMessage('2025-03-26', [ping, note]), []);
    assert.deepEqual(validateWireMessage('2025-03-26', [ping, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: {} }]), [
      "[1] tools/call request (CallToolRequest): /params must have required property 'name'",
    ]);
    assert.deepEqual(validateWireMessage('2025-03-26', []), ['batch: an empty array is not a valid batch']);
    assert.ok(includesText(validateWireMessage('2025-03-26', [ping, { jsonrpc: '2.0', id: 9, result: {} }]), 'batch: mixes'));
  });

  it('reports batches in revisions without them', () => {
    for (const r of ['2024-11-05', '2025-06-18', '2025-11-25', '2026-07-28']) {
      const errors = validateWireMessage(r, [ping]);
      assert.ok(includesText(errors, `batch: JSON-RPC batches are not part of revision ${r}`), `${r}: ${errors.join('\n')}`);
    }
  });

  it('reports values that are not messages', () => {
    assert.deepEqual(validateWireMessage('2025-11-25', 'hello'), ['not a JSON-RPC message: expected an object, got string']);
    assert.deepEqual(validateWireMessage('2025-11-25', null), ['not a JSON-RPC message: expected an object, got null']);
    const empty = validateWireMessage('2025-11-25', { jsonrpc: '2.0', id: 1 });
    assert.equal(empty[0], 'not a JSON-RPC message: no method, result or error');
  });
});

describe('validateDefinition', () => {
  it('accepts every example shipped with the 2026-07-28 schema', () => {
    const root = join(specSchemaRoot(), '2026-07-28', 'examples');
    let count = 0;
    for (const name of readdirSync(root)) {
      for (const file of readdirSync(join(root, name))) {
        const value: unknown = JSON.parse(readFileSync(join(root, name, file), 'utf8'));
        assert.deepEqual(validateDefinition('2026-07-28', name, value), [], `${name}/${file}`);
        count++;
      }
    }
    assert.ok(count > 50, `only ${count} examples`);
  });

  it('checks whole example messages through validateWireMessage too', () => {
    const root = join(specSchemaRoot(), '2026-07-28', 'examples');
    const read = (dir: string): unknown[] => readdirSync(join(root, dir)).map((f) => JSON.parse(readFileSync(join(root, dir, f), 'utf8')) as unknown);
    for (const request of read('CallToolRequest')) assert.deepEqual(validateWireMessage('2026-07-28', request, { sender: 'client' }), []);
    for (const response of read('CallToolResultResponse')) {
      assert.deepEqual(validateWireMessage('2026-07-28', response, { method: 'tools/call', sender: 'server' }), []);
    }
  });

  it('reports bad values and unknown definitions', () => {
    assert.deepEqual(validateDefinition('2025-06-18', 'Tool', { name: 't', inputSchema: { type: 'object' } }), []);
    assert.deepEqual(validateDefinition('2025-06-18', 'Tool', { inputSchema: { type: 'object' } }), ["Tool: / must have required property 'name'"]);
    assert.throws(() => validateDefinition('2024-11-05', 'ElicitRequest', {}), /has no definition ElicitRequest/);
  });
});
