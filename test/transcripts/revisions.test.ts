/**
 * Every revision, every simple demo feature: lists, reads, prompts and the tools that
 * need nothing from the client, played in each stateful revision. The harness checks
 * each emitted message against that revision's official schema, so a shape a revision
 * does not have (a content type, a field) shows up here.
 * Spec: 2025-03-26 › Basic › Lifecycle › Version Negotiation; the per-revision schemas.
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { harnessTest, request, result } from './harness.js';

const SIMPLE_TOOLS = [
  'echo',
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_error_handling',
  'add',
  'link_resource',
  'json_schema_2020_12_tool',
];

const ARGS: Record<string, object> = { echo: { message: 'm' }, add: { a: 1, b: 2 }, json_schema_2020_12_tool: { name: 'n' } };

describe('every revision', () => {
  for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    harnessTest(`lists, reads, prompts and simple tools in ${revision}`, async (h) => {
      const c = await h.raw();
      await c.init(revision);
      let id = 1;
      const { received } = await c.run([
        { send: request(id, 'tools/list') },
        { expect: result(id++) },
        { send: request(id, 'resources/list') },
        { expect: result(id++) },
        { send: request(id, 'resources/templates/list') },
        { expect: result(id++) },
        { send: request(id, 'prompts/list') },
        { expect: result(id++) },
        ...['test://static-text', 'test://static-binary', 'test://watched-resource', 'test://template/7/data'].flatMap((uri) => [
          { send: request(id, 'resources/read', { uri }) },
          { expect: result(id++) },
        ]),
        ...[
          ['test_simple_prompt', {}],
          ['test_prompt_with_arguments', { arg1: 'a', arg2: 'b' }],
          ['test_prompt_with_embedded_resource', { resourceUri: 'test://static-text' }],
          ['test_prompt_with_image', {}],
        ].flatMap(([name, args]) => [{ send: request(id, 'prompts/get', { name: name as string, arguments: args as object }) }, { expect: result(id++) }]),
        ...SIMPLE_TOOLS.flatMap((name) => [{ send: request(id, 'tools/call', { name, arguments: ARGS[name] ?? {} }) }, { expect: result(id++) }]),
        {
          send: request(id, 'completion/complete', { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 't' } }),
        },
        { expect: result(id++, { completion: { values: ['test', 'testValue1'] } }) },
      ]);
      assert.equal(received.length, id - 1);
    });
  }
});

describe('content a revision cannot carry', () => {
  // Audio content entered in 2025-03-26 and resource links in 2025-06-18: older clients
  // get a text block instead of a block their schema does not have.
  harnessTest('resource links and audio become text for older clients', async (h) => {
    const server = h.demo();
    server.registerPrompt('linked', {}, () => ({
      messages: [
        { role: 'user', content: { type: 'resource_link', uri: 'test://static-text', name: 'static-text', title: 'Static text' } },
        { role: 'user', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' } },
      ],
    }));
    const old = await h.raw(server);
    await old.init('2024-11-05');
    await old.run([
      { send: request(1, 'tools/call', { name: 'test_audio_content', arguments: {} }) },
      { expect: result(1, { content: [{ type: 'text', text: '[audio/wav audio omitted: protocol revision 2024-11-05 has no audio content]' }] }) },
      { send: request(2, 'tools/call', { name: 'link_resource', arguments: {} }) },
      { expect: result(2, { content: [{ type: 'text', text: 'Resource link: static-text <test://static-text>' }] }) },
      { send: request(3, 'prompts/get', { name: 'linked' }) },
      {
        expect: result(3, {
          messages: [
            { role: 'user', content: { type: 'text', text: 'Resource link: Static text <test://static-text>' } },
            { role: 'user', content: { type: 'text', text: (t: string) => t.startsWith('[audio/wav audio omitted') } },
          ],
        }),
      },
    ]);
    const mid = await h.raw(server);
    await mid.init('2025-03-26');
    await mid.run([
      { send: request(1, 'tools/call', { name: 'test_audio_content', arguments: {} }) },
      { expect: result(1, { content: [{ type: 'audio', mimeType: 'audio/wav' }] }) },
      { send: request(2, 'tools/call', { name: 'link_resource', arguments: {} }) },
      { expect: result(2, { content: [{ type: 'text', text: 'Resource link: static-text <test://static-text>' }] }) },
    ]);
    const current = await h.raw(server);
    await current.init('2025-06-18');
    await current.run([
      { send: request(1, 'tools/call', { name: 'link_resource', arguments: {} }) },
      { expect: result(1, { content: [{ type: 'resource_link', uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' }] }) },
      { send: request(2, 'prompts/get', { name: 'linked' }) },
      { expect: result(2, { messages: [{ content: { type: 'resource_link' } }, { content: { type: 'audio' } }] }) },
    ]);
  });
});
