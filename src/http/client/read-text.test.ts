/**
 * readText (common.ts): a body decoded as UTF-8 within a bound on characters, whether it
 * comes as one chunk (decoded once, by the shared decoder) or as several (a streaming
 * decoder, since a character may be split between chunks).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ChunkRead, type ChunkSource, readText } from './common.js';

/** A body delivering `chunks` in order. */
function body(chunks: readonly Uint8Array[]): ChunkSource & { cancelled: boolean } {
  let next = 0;
  const source = {
    cancelled: false,
    getReader: () => ({
      read: (): Promise<ChunkRead> => Promise.resolve(next < chunks.length ? { done: false, value: chunks[next++]! } : { done: true, value: undefined }),
      cancel: async () => {
        source.cancelled = true;
      },
    }),
    cancel: async () => {
      source.cancelled = true;
    },
  };
  return source;
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const never = new AbortController().signal;

test('one chunk: decoded whole', async () => {
  const got = await readText(body([bytes('{"a":"é€😀"}')]), 100, never);
  assert.deepEqual(got, { text: '{"a":"é€😀"}', truncated: false, end: 'end' });
});

test('a character split between chunks is decoded once both halves arrived', async () => {
  const all = bytes('ab😀cd€');
  for (let cut = 1; cut < all.length; cut++) {
    const got = await readText(body([all.subarray(0, cut), all.subarray(cut)]), 100, never);
    assert.equal(got.text, 'ab😀cd€', `cut at byte ${cut}`);
    assert.equal(got.truncated, false);
  }
  const three = await readText(body([all.subarray(0, 3), all.subarray(3, 5), all.subarray(5)]), 100, never);
  assert.equal(three.text, 'ab😀cd€');
});

test('a single chunk with more bytes than allowed characters is kept when its characters fit', async () => {
  // 4 characters in 12 bytes, bound 5 characters
  const got = await readText(body([bytes('€€€€')]), 5, never);
  assert.deepEqual(got, { text: '€€€€', truncated: false, end: 'end' });
});

test('past the bound the text is cut and the body cancelled, one chunk or several', async () => {
  const one = body([bytes('0123456789')]);
  const cut = await readText(one, 4, never);
  assert.deepEqual(cut, { text: '0123', truncated: true, end: 'stopped' });
  assert.equal(one.cancelled, true);

  const several = body([bytes('012'), bytes('345'), bytes('678')]);
  const cut2 = await readText(several, 4, never);
  assert.deepEqual(cut2, { text: '0123', truncated: true, end: 'stopped' });
  assert.equal(several.cancelled, true);
});

test('an incomplete character at the end becomes U+FFFD, as a whole decode makes it', async () => {
  const euro = bytes('€');
  const one = await readText(body([euro.subarray(0, 2)]), 10, never);
  assert.equal(one.text, '\ufffd');
  const two = await readText(body([bytes('a'), euro.subarray(0, 2)]), 10, never);
  assert.equal(two.text, 'a\ufffd');
});

test('no body and an empty body are empty text', async () => {
  assert.deepEqual(await readText(null, 10, never), { text: '', truncated: false, end: 'end' });
  assert.deepEqual(await readText(body([]), 10, never), { text: '', truncated: false, end: 'end' });
});
