/**
 * Property tests of the NDJSON decoder (the stdio wire format, spec: Transports → stdio:
 * one message per line, no embedded newlines). The input is what a peer controls.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { check, cut, offsets } from '../../test/abuse/chunk-splits.js';
import type { EnvelopeSummary } from './envelope-scan.js';
import { encodeLine, NdjsonDecoder } from './ndjson.js';

interface Output {
  lines: string[];
  oversized: number[];
  envelopes: EnvelopeSummary[];
  peak: number;
}

function decode(chunks: Array<string | Uint8Array>, maxLineBytes: number): Output {
  const out: Output = { lines: [], oversized: [], envelopes: [], peak: 0 };
  const decoder = new NdjsonDecoder(
    { line: (text) => out.lines.push(text), oversized: (e) => out.oversized.push(e.limit), oversizedEnd: (e) => out.envelopes.push(e) },
    { maxLineBytes },
  );
  for (const chunk of chunks) {
    decoder.push(chunk);
    out.peak = Math.max(out.peak, decoder.bufferedBytes);
  }
  decoder.end();
  return out;
}

/** Bytes that are mostly line-ish: LF, CR, spaces, braces, quotes, ASCII and UTF-8 fragments. */
const wireBytes = fc
  .array(fc.oneof(fc.constantFrom(0x0a, 0x0d, 0x20, 0x7b, 0x7d, 0x22, 0x5c, 0xe2, 0x82, 0xac, 0xf0, 0x9f), fc.integer({ min: 0, max: 255 })), {
    maxLength: 400,
  })
  .map((bytes) => Uint8Array.from(bytes));

test('arbitrary bytes in arbitrary chunks: never throws, no line holds a line break, the held tail stays within the limit', () => {
  check(
    fc.property(wireBytes, offsets(), fc.integer({ min: 1, max: 64 }), (bytes, cuts, max) => {
      const out = decode(cut(bytes, cuts), max);
      for (const line of out.lines) assert.ok(!line.includes('\n'));
      assert.ok(out.peak <= max + 1, `held ${out.peak} bytes with a limit of ${max}`);
      assert.equal(out.envelopes.length, out.oversized.length, 'every oversized line gets exactly one envelope');
    }),
    300,
  );
});

test('chunking independence: the same lines, reports and envelopes however the bytes are split', () => {
  check(
    fc.property(wireBytes, offsets(), fc.integer({ min: 1, max: 64 }), (bytes, cuts, max) => {
      const { peak: _split, ...split } = decode(cut(bytes, cuts), max);
      const { peak: _whole, ...whole } = decode([bytes], max);
      assert.deepEqual(split, whole);
    }),
    300,
  );
});

test('the lines are those of the whole input decoded by one TextDecoder: split at LF, a CR before the LF dropped, blank lines skipped', () => {
  const withBom = wireBytes.chain((bytes) => fc.boolean().map((bom) => (bom ? Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes]) : bytes)));
  check(
    fc.property(withBom, offsets(), (bytes, cuts) => {
      const expected = new TextDecoder('utf-8')
        .decode(bytes)
        .split('\n')
        .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
        .filter((line) => !/^[ \t\r\n]*$/.test(line));
      assert.deepEqual(decode(cut(bytes, cuts), 1 << 20).lines, expected);
    }),
    500,
  );
});

test('string input and byte input of the same text decode alike', () => {
  check(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), offsets(), (text, cuts) => {
      const bytes = new TextEncoder().encode(text);
      const fromText = decode(cut(text, cuts), 1 << 20);
      const fromBytes = decode(cut(bytes, cuts), 1 << 20);
      assert.deepEqual(fromText.lines, fromBytes.lines);
    }),
  );
});

test('round trip: encodeLine for each message (an object), any chunking, gives the messages back in order', () => {
  check(
    fc.property(fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { minLength: 1, maxLength: 8 }), offsets(), (values, cuts) => {
      const bytes = new TextEncoder().encode(values.map((v) => encodeLine(v)).join(''));
      const out = decode(cut(bytes, cuts), 1 << 20);
      assert.deepEqual(
        out.lines.map((line) => JSON.parse(line)),
        values.map((v) => JSON.parse(JSON.stringify(v))),
      );
      assert.deepEqual(out.oversized, []);
    }),
  );
});

test('bounded output: a flood of blank lines or of one endless line yields nothing and holds nothing', () => {
  check(
    fc.property(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 32 }), (count, max) => {
      const blank = decode(['\r\n \t\n'.repeat(count)], max);
      assert.deepEqual(blank.lines, []);
      const endless = decode(
        Array.from({ length: 20 }, () => 'a'.repeat(count)),
        max,
      );
      assert.ok(endless.peak <= max + 1);
      assert.equal(endless.oversized.length, 20 * count > max ? 1 : 0);
    }),
    50,
  );
});
