/**
 * Tools transcripts against the demo server.
 * Spec: 2025-03-26 › Server Features › Tools (Listing Tools, Calling Tools, Error
 * Handling); structured output from 2025-06-18 › Server › Tools › Structured Content /
 * Output Schema; SEP-1303 (input validation errors are tool execution errors).
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { error, harnessTest, includes, isText, matches, named, request, result } from './harness.js';

describe('tools', () => {
  // Tools › Listing Tools: each tool has a name, a description and an inputSchema.
  harnessTest('tools/list lists the demo tools with their schemas and annotations', async (h) => {
    const c = await h.raw();
    await c.init();
    const { received } = await c.run([
      { send: request(1, 'tools/list') },
      {
        expect: result(1, {
          tools: includes(
            (t) => t.name === 'echo' && t.inputSchema.required[0] === 'message' && t.annotations.readOnlyHint === true,
            (t) => t.name === 'add' && t.title === 'Add two numbers' && t.outputSchema.required[0] === 'sum',
            named('test_simple_text'),
          ),
          nextCursor: undefined,
        }),
      },
    ]);
    const tools = (received[0] as { result: { tools: Array<{ name: string }> } }).result.tools;
    assert.equal(new Set(tools.map((t) => t.name)).size, tools.length, 'tool names are unique');
  });

  // Tools › Calling Tools.
  harnessTest('tools/call returns the tool content', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'echo', arguments: { message: 'hello' } }) },
      { expect: result(1, { content: [{ type: 'text', text: 'hello' }], isError: undefined }) },
      { send: request(2, 'tools/call', { name: 'test_image_content', arguments: {} }) },
      { expect: result(2, { content: [{ type: 'image', mimeType: 'image/png', data: isText }] }) },
    ]);
  });

  // SEP-1303: arguments that fail the input schema are a tool execution error
  // (isError: true, readable message), not a protocol error.
  harnessTest('invalid arguments are an isError result naming the field (SEP-1303)', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'echo', arguments: { message: 42 } }) },
      { expect: result(1, { isError: true, content: [{ type: 'text', text: matches(/message/) }] }) },
      { send: request(2, 'tools/call', { name: 'echo', arguments: {} }) },
      { expect: result(2, { isError: true, content: [{ type: 'text', text: matches(/message/) }] }) },
    ]);
  });

  // Tools › Error Handling: "Unknown tools" are protocol errors (-32602).
  harnessTest('an unknown tool is -32602', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'no_such_tool', arguments: {} }) },
      { expect: error(1, -32602, { message: matches(/no_such_tool/) }) },
    ]);
  });

  // Tools › Error Handling: a failing tool reports isError: true with the message.
  harnessTest('a throwing tool is an isError result', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'test_error_handling', arguments: {} }) },
      { expect: result(1, { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }) },
    ]);
  });

  // 2025-06-18 › Tools › Structured Content: "a tool that returns structured content
  // SHOULD also return the serialized JSON in a TextContent block."
  harnessTest('structured output carries structuredContent and a text fallback', async (h) => {
    const c = await h.raw();
    await c.init('2025-06-18');
    await c.run([
      { send: request(1, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }) },
      { expect: result(1, { structuredContent: { sum: 5 }, content: [{ type: 'text', text: '{"sum":5}' }] }) },
    ]);
  });

  // 2025-06-18 › Tools › Output Schema: "Servers MUST provide structured results that
  // conform to this schema." A result that does not is turned into a tool error.
  harnessTest('structuredContent violating the output schema becomes an isError result', async (h) => {
    const server = h.demo();
    server.registerTool(
      'bad_output',
      {
        description: 'Returns a string where the schema wants a number',
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      },
      // the types catch this at compile time; the test is about what the server does at run time
      // @ts-expect-error structuredContent.sum must be a number
      () => ({ structuredContent: { sum: 'five' } }),
    );
    server.registerTool(
      'no_structured',
      {
        description: 'Declares an output schema but returns text',
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
      },
      // @ts-expect-error a tool with an output schema returns structuredContent (or isError: true)
      () => ({ content: [{ type: 'text', text: 'five' }] }),
    );
    const c = await h.raw(server);
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'bad_output', arguments: {} }) },
      { expect: result(1, { isError: true, structuredContent: undefined, content: [{ type: 'text', text: matches(/output schema/) }] }) },
      { send: request(2, 'tools/call', { name: 'no_structured', arguments: {} }) },
      { expect: result(2, { isError: true, content: [{ type: 'text', text: matches(/structuredContent/) }] }) },
    ]);
  });

  // 2025-06-18 › Tools › resource_link content.
  harnessTest('a resource link result', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'tools/call', { name: 'link_resource' }) },
      { expect: result(1, { content: [{ type: 'resource_link', uri: 'test://static-text', name: 'static-text' }] }) },
    ]);
  });
});
