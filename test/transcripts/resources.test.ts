/**
 * Resources transcripts against the demo server.
 * Spec: 2025-03-26 › Server Features › Resources (Listing Resources, Reading Resources,
 * Resource Templates, Subscriptions, Error Handling).
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { error, harnessTest, includes, isText, matches, notification, request, result } from './harness.js';

describe('resources', () => {
  // Resources › Listing Resources / Resource Templates.
  harnessTest('resources/list and resources/templates/list', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'resources/list') },
      {
        expect: result(1, {
          resources: includes(
            (r) => r.uri === 'test://static-text' && r.name === 'static-text' && r.mimeType === 'text/plain',
            (r) => r.uri === 'test://static-binary' && r.mimeType === 'image/png',
            (r) => r.uri === 'test://watched-resource',
          ),
        }),
      },
      { send: request(2, 'resources/templates/list') },
      { expect: result(2, { resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', mimeType: 'application/json' }] }) },
    ]);
  });

  // Resources › Reading Resources: text and blob contents.
  harnessTest('resources/read of text and binary resources', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'resources/read', { uri: 'test://static-text' }) },
      { expect: result(1, { contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }) },
      { send: request(2, 'resources/read', { uri: 'test://static-binary' }) },
      { expect: result(2, { contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: isText, text: undefined }] }) },
    ]);
  });

  // Resources › Resource Templates: a URI matching a template is read with its variables.
  harnessTest('resources/read through a template', async (h) => {
    const c = await h.raw();
    await c.init();
    const { received } = await c.run([
      { send: request(1, 'resources/read', { uri: 'test://template/123/data' }) },
      { expect: result(1, { contents: [{ uri: 'test://template/123/data', mimeType: 'application/json', text: isText }] }) },
    ]);
    const text = (received[0] as { result: { contents: Array<{ text: string }> } }).result.contents[0]!.text;
    assert.deepEqual(JSON.parse(text), { id: '123', templateTest: true, data: 'Data for ID: 123' });
  });

  // Resources › Error Handling: "Resource not found: -32002", example with data.uri.
  harnessTest('an unknown URI is -32002 with data.uri', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'resources/read', { uri: 'test://nowhere' }) },
      { expect: error(1, -32002, { message: matches(/not found/i), data: { uri: 'test://nowhere' } }) },
      // a template prefix that does not match the whole URI is not a match
      { send: request(2, 'resources/read', { uri: 'test://template/123/data/extra' }) },
      { expect: error(2, -32002, { data: { uri: 'test://template/123/data/extra' } }) },
      // a missing uri is a params error
      { send: request(3, 'resources/read', {}) },
      { expect: error(3, -32602, { message: matches(/"uri"/) }) },
    ]);
  });

  // Resources › Subscriptions: after resources/subscribe the server sends
  // notifications/resources/updated; after unsubscribe it stops.
  harnessTest('subscribe, updated, unsubscribe', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'resources/subscribe', { uri: 'test://watched-resource' }) },
      { expect: result(1, {}) },
      { send: request(2, 'tools/call', { name: 'touch_watched_resource', arguments: {} }) },
      {
        expectAnyOrder: [
          notification('notifications/resources/updated', { uri: 'test://watched-resource' }),
          result(2, { content: [{ type: 'text', text: 'version 1' }] }),
        ],
      },
      { send: request(3, 'resources/read', { uri: 'test://watched-resource' }) },
      { expect: result(3, { contents: [{ text: 'Watched resource, version 1' }] }) },
      { send: request(4, 'resources/unsubscribe', { uri: 'test://watched-resource' }) },
      { expect: result(4, {}) },
      { send: request(5, 'tools/call', { name: 'touch_watched_resource', arguments: {} }) },
      { expect: result(5, { content: [{ type: 'text', text: 'version 2' }] }) },
      { expectSilence: 30 },
    ]);
  });
});

describe('prompts', () => {
  // Prompts › Listing Prompts.
  harnessTest('prompts/list shows arguments', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'prompts/list') },
      {
        expect: result(1, {
          prompts: includes(
            (p) => p.name === 'test_simple_prompt' && p.arguments === undefined,
            (p) => p.name === 'test_prompt_with_arguments' && p.arguments.length === 2 && p.arguments[0].required === true,
          ),
        }),
      },
    ]);
  });

  // Prompts › Getting a Prompt: arguments are substituted.
  harnessTest('prompts/get with arguments', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'alpha', arg2: 'beta' } }) },
      { expect: result(1, { messages: [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='alpha', arg2='beta'" } }] }) },
      { send: request(2, 'prompts/get', { name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://x' } }) },
      { expect: result(2, { messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'test://x' } } }, { role: 'user' }] }) },
    ]);
  });

  // Prompts › Error Handling: "Missing required arguments: -32602".
  harnessTest('a missing required argument is -32602 naming it', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'alpha' } }) },
      { expect: error(1, -32602, { message: matches(/"arg2"/) }) },
      { send: request(2, 'prompts/get', { name: 'no_such_prompt' }) },
      { expect: error(2, -32602, { message: matches(/no_such_prompt/) }) },
      // prompt arguments are strings
      { send: request(3, 'prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 1, arg2: 'b' } }) },
      { expect: error(3, -32602, { message: matches(/"arguments\.arg1"/) }) },
    ]);
  });
});

describe('completion', () => {
  // Utilities › Completion: prompt argument completion.
  harnessTest('completes a prompt argument', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'completion/complete', { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'pa' } }) },
      { expect: result(1, { completion: { values: ['paris', 'park'], total: 2, hasMore: false } }) },
    ]);
  });

  // Utilities › Completion: resource template variable completion (ref/resource).
  harnessTest('completes a resource template variable', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([
      { send: request(1, 'completion/complete', { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '4' } }) },
      { expect: result(1, { completion: { values: ['456'] } }) },
      { send: request(2, 'completion/complete', { ref: { type: 'ref/resource', uri: 'test://unknown/{x}' }, argument: { name: 'x', value: '' } }) },
      { expect: error(2, -32602, { message: matches(/test:\/\/unknown/) }) },
    ]);
  });

  // 2025-06-18 › Utilities › Completion: `context.arguments` carries already-resolved arguments.
  harnessTest('completion uses context.arguments', async (h) => {
    const c = await h.raw();
    await c.init('2025-06-18');
    await c.run([
      {
        send: request(1, 'completion/complete', {
          ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
          argument: { name: 'arg2', value: '' },
          context: { arguments: { arg1: 'paris' } },
        }),
      },
      { expect: result(1, { completion: { values: ['paris-suffix', 'testValue2'] } }) },
      {
        send: request(2, 'completion/complete', {
          ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
          argument: { name: 'arg2', value: 'p' },
          context: { arguments: { arg1: 'park' } },
        }),
      },
      { expect: result(2, { completion: { values: ['park-suffix'] } }) },
    ]);
  });
});
