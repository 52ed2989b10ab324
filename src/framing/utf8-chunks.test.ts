/**
 * Utf8Chunks (utf8-chunks.ts) gives exactly the text of a streaming `TextDecoder('utf-8')`
 * however the bytes are cut: split sequences, invalid bytes (U+FFFD), byte-order marks at
 * the start of a stream and after a flush. The stdio transport's framing depends on it
 * (spec: Transports → stdio, messages are UTF-8).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { check, cut, offsets } from '../../test/abuse/chunk-splits.js';
import { Utf8Chunks } from './utf8-chunks.js';

/** Bytes rich in what makes UTF-8 hard: leads of every length, continuations, invalid leads, BOM bytes, surrogate encodings. */
const utf8ish = fc
  .array(
    fc.oneof(
      fc.constantFrom(0x41, 0x0a, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xbb, 0xf0, 0xf4, 0xf5, 0xff),
      fc.integer({ min: 0, max: 255 }),
    ),
    { maxLength: 120 },
  )
  .map((bytes) => Uint8Array.from(bytes));

/** What one streaming TextDecoder makes of `streams` (each a list of chunks, ended by a flush). */
function reference(streams: readonly Uint8Array[][]): string {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for (const chunks of streams) {
    for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
    text += decoder.decode();
  }
  return text;
}

function decodeAll(streams: readonly Uint8Array[][]): string {
  const utf8 = new Utf8Chunks();
  let text = '';
  for (const chunks of streams) {
    for (const chunk of chunks) text += utf8.decode(chunk);
    text += utf8.flush();
  }
  return text;
}

test('any bytes cut anywhere: the same text as a streaming TextDecoder', () => {
  check(
    fc.property(utf8ish, offsets(16), (bytes, cuts) => {
      const chunks = cut(bytes, cuts);
      assert.equal(decodeAll([chunks]), reference([chunks]));
    }),
    2000,
  );
});

test('several streams, each ended by a flush: a byte-order mark is dropped at the start of each, as TextDecoder drops it', () => {
  const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
  check(
    fc.property(fc.array(fc.tuple(fc.boolean(), utf8ish, offsets(6)), { minLength: 1, maxLength: 4 }), (parts) => {
      const streams = parts.map(([withBom, bytes, cuts]) => cut(withBom ? Uint8Array.from([...bom, ...bytes]) : bytes, cuts));
      assert.equal(decodeAll(streams), reference(streams));
    }),
    500,
  );
});

test('fixed cases: an emoji cut at every byte, a BOM cut in two, an invalid sequence held at a chunk end, one byte at a time', () => {
  const emoji = new TextEncoder().encode('a😀b€c');
  for (let at = 0; at <= emoji.length; at++) assert.equal(decodeAll([[emoji.slice(0, at), emoji.slice(at)]]), 'a😀b€c', `cut at ${at}`);
  assert.equal(decodeAll([Array.from(emoji, (b) => Uint8Array.of(b))]), 'a😀b€c');
  // a BOM cut in two is still the stream's first character, and dropped; a second one is text
  assert.equal(decodeAll([[Uint8Array.of(0xef), Uint8Array.of(0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41)]]), '\ufeffA');
  // E0 80 is invalid (E0 needs A0..BF next): two U+FFFD, whichever chunk they end up in
  assert.equal(decodeAll([[Uint8Array.of(0x41, 0xe0, 0x80), Uint8Array.of(0x80, 0x42)]]), 'A\ufffd\ufffd\ufffdB');
  // a sequence the stream ends inside is one U+FFFD
  assert.equal(decodeAll([[Uint8Array.of(0x41, 0xf0, 0x9f, 0x98)]]), 'A\ufffd');
  // a held sequence ended by a byte that is not a continuation: one U+FFFD, then that byte
  assert.equal(decodeAll([[Uint8Array.of(0xe2, 0x82), Uint8Array.of(0x41)]]), '\ufffdA');
});

test('an ASCII chunk is decoded whole, and a chunk ending inside a sequence holds at most three bytes', () => {
  const utf8 = new Utf8Chunks();
  const ascii = new TextEncoder().encode('{"jsonrpc":"2.0"}\n'.repeat(1000));
  assert.equal(utf8.decode(ascii), '{"jsonrpc":"2.0"}\n'.repeat(1000));
  // 'é€😀' is 2 + 3 + 4 bytes; keep all but the emoji's last byte
  const text = new TextEncoder().encode('é€😀');
  assert.equal(utf8.decode(text.subarray(0, text.length - 1)), 'é€');
  assert.equal(utf8.decode(text.subarray(text.length - 1)), '😀');
  assert.equal(utf8.flush(), '');
});
