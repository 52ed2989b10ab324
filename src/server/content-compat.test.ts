import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallToolResult, ContentBlock, GetPromptResult } from '../types.js';
import { contentForRevision, promptResultForRevision, toolResultForRevision } from './content-compat.js';

const link: ContentBlock = { type: 'resource_link', uri: 'file:///a.txt', name: 'a' };
const audio: ContentBlock = { type: 'audio', data: 'AAAA', mimeType: 'audio/ogg' };
const text: ContentBlock = { type: 'text', text: 't' };

test('current revisions get the content unchanged and uncopied', () => {
  const content = [text, link, audio];
  for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28', undefined]) assert.equal(contentForRevision(content, revision), content);
  const unaffected = [text];
  assert.equal(contentForRevision(unaffected, '2024-11-05'), unaffected);
});

test('resource links become text before 2025-06-18, audio before 2025-03-26', () => {
  const content = [text, link, audio];
  assert.deepEqual(contentForRevision(content, '2025-03-26'), [text, { type: 'text', text: 'Resource link: a <file:///a.txt>' }, audio]);
  assert.deepEqual(contentForRevision(content, '2024-11-05'), [
    text,
    { type: 'text', text: 'Resource link: a <file:///a.txt>' },
    { type: 'text', text: '[audio/ogg audio omitted: protocol revision 2024-11-05 has no audio content]' },
  ]);
  assert.deepEqual(content, [text, link, audio], 'the input is not mutated');
});

test('tool and prompt results keep their other members', () => {
  const result: CallToolResult = { content: [link], structuredContent: { a: 1 }, isError: false, _meta: { k: 'v' } };
  assert.deepEqual(toolResultForRevision(result, '2025-03-26'), {
    content: [{ type: 'text', text: 'Resource link: a <file:///a.txt>' }],
    structuredContent: { a: 1 },
    isError: false,
    _meta: { k: 'v' },
  });
  assert.equal(toolResultForRevision(result, '2025-06-18'), result);
  const prompt: GetPromptResult = {
    description: 'd',
    messages: [
      { role: 'user', content: text },
      { role: 'assistant', content: audio },
    ],
  };
  assert.equal(promptResultForRevision(prompt, '2025-03-26'), prompt);
  assert.deepEqual(promptResultForRevision(prompt, '2024-11-05'), {
    description: 'd',
    messages: [
      { role: 'user', content: text },
      { role: 'assistant', content: { type: 'text', text: '[audio/ogg audio omitted: protocol revision 2024-11-05 has no audio content]' } },
    ],
  });
});
