import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LocalError } from '../jsonrpc/errors.js';
import { DEFAULT_MAX_LINE_BYTES, encodeLine, NdjsonDecoder, OversizedLineError } from './ndjson.js';

const enc = new TextEncoder();

function collect(maxLineBytes?: number) {
  const lines: string[] = [];
  const errors: OversizedLineError[] = [];
  const decoder = new NdjsonDecoder(
    { line: (text) => lines.push(text), oversized: (error) => errors.push(error) },
    maxLineBytes === undefined ? {} : { maxLineBytes },
  );
  return { decoder, lines, errors };
}

/** Feeds `bytes` split at the given offsets. */
function feedSplit(decoder: NdjsonDecoder, bytes: Uint8Array, cuts: number[]): void {
  let prev = 0;
  for (const cut of [...cuts, bytes.length]) {
    decoder.push(bytes.subarray(prev, cut));
    prev = cut;
  }
}

test('splits LF and CRLF lines and skips empty and blank ones', () => {
  const { decoder, lines, errors } = collect();
  decoder.push('{"a":1}\n\n{"b":2}\r\n\r\n  \t\r\n[3]\n');
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '[3]']);
  assert.equal(errors.length, 0);
  assert.equal(decoder.bufferedBytes, 0);
});

test('every possible two-way and three-way byte split yields the same lines', () => {
  const text = '{"x":"héllo"}\r\n{"y":"😀 ok"}\n\n{"z":"€"}\r\n';
  const bytes = enc.encode(text);
  const expected = ['{"x":"héllo"}', '{"y":"😀 ok"}', '{"z":"€"}'];
  for (let i = 0; i <= bytes.length; i++) {
    const { decoder, lines, errors } = collect();
    feedSplit(decoder, bytes, [i]);
    assert.deepEqual(lines, expected, `split at ${i}`);
    assert.equal(errors.length, 0);
  }
  for (let i = 0; i <= bytes.length; i += 3) {
    for (let j = i; j <= bytes.length; j += 2) {
      const { decoder, lines } = collect();
      feedSplit(decoder, bytes, [i, j]);
      assert.deepEqual(lines, expected, `split at ${i},${j}`);
    }
  }
});

test('byte-at-a-time feeding, including an emoji split across three chunks', () => {
  const emoji = enc.encode('😀'); // 4 bytes
  assert.equal(emoji.length, 4);
  const { decoder, lines } = collect();
  decoder.push(enc.encode('{"e":"'));
  decoder.push(emoji.subarray(0, 1));
  decoder.push(emoji.subarray(1, 3));
  decoder.push(emoji.subarray(3));
  decoder.push(enc.encode('"}\n'));
  assert.deepEqual(lines, ['{"e":"😀"}']);

  const all = enc.encode('{"a":"ü😀"}\r\n{"b":1}\n');
  const second = collect();
  for (let i = 0; i < all.length; i++) second.decoder.push(all.subarray(i, i + 1));
  assert.deepEqual(second.lines, ['{"a":"ü😀"}', '{"b":1}']);
});

test('a CR at the end of one chunk and the LF at the start of the next form one terminator', () => {
  const { decoder, lines } = collect();
  decoder.push(enc.encode('{"a":1}\r'));
  decoder.push(enc.encode('\n{"b":2}\r'));
  decoder.push('\n');
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
});

test('string and byte chunks can be mixed; a dangling partial sequence becomes U+FFFD', () => {
  const { decoder, lines } = collect();
  decoder.push('{"a":');
  decoder.push(enc.encode('"é"}\n{"b":"'));
  decoder.push(new Uint8Array([0xe2, 0x82])); // first two bytes of "€"
  decoder.push('x"}\n');
  assert.deepEqual(lines, ['{"a":"é"}', '{"b":"\ufffdx"}']);
});

test('end() delivers a final unterminated line and resets', () => {
  const { decoder, lines } = collect();
  decoder.push('{"a":1}\n{"b":');
  decoder.push(enc.encode('2}'));
  assert.equal(lines.length, 1);
  decoder.end();
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  assert.equal(decoder.bufferedBytes, 0);
  decoder.push('{"c":3}\n');
  assert.deepEqual(lines.at(-1), '{"c":3}');
});

test('the byte limit is exact: a line of maxLineBytes passes, one more byte is refused', () => {
  const max = 10;
  const ok = 'é'.repeat(5); // 10 bytes, 5 UTF-16 units
  const tooLong = 'é'.repeat(5) + 'x'; // 11 bytes
  for (const split of [false, true]) {
    const { decoder, lines, errors } = collect(max);
    const bytes = enc.encode(`${ok}\r\n${tooLong}\n${ok}\n`);
    if (split) for (let i = 0; i < bytes.length; i++) decoder.push(bytes.subarray(i, i + 1));
    else decoder.push(bytes);
    assert.deepEqual(lines, [ok, ok], `split=${split}`);
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof OversizedLineError);
    assert.ok(errors[0] instanceof LocalError);
    assert.equal(errors[0].code, 'message_too_large');
    assert.equal(errors[0].limit, max);
    assert.ok(errors[0].bytes > max);
    if (!split) assert.equal(errors[0].bytes, 11);
  }
  // String input is measured in UTF-8 bytes too.
  const { decoder, lines, errors } = collect(max);
  decoder.push(`${ok}\n${tooLong}\n`);
  assert.deepEqual(lines, [ok]);
  assert.equal(errors.length, 1);
});

test('a 64 MiB line is skipped with bounded memory and the next line still arrives', () => {
  const max = 1024 * 1024;
  const { decoder, lines, errors } = collect(max);
  const chunk = new Uint8Array(64 * 1024).fill(0x61); // 'a', reused: the decoder must not keep it
  decoder.push('{"before":1}\n{"big":"');
  let peak = 0;
  for (let i = 0; i < 1024; i++) {
    decoder.push(chunk);
    peak = Math.max(peak, decoder.bufferedBytes);
  }
  assert.ok(peak <= max + 1, `held ${peak} bytes`);
  assert.equal(errors.length, 1, 'reported once, as soon as the limit is crossed');
  assert.ok(errors[0]!.bytes > max && errors[0]!.bytes <= max + chunk.length + 16);
  decoder.push(enc.encode('"}\n{"after":2}\n'));
  assert.deepEqual(lines, ['{"before":1}', '{"after":2}']);
  assert.equal(errors.length, 1);
  assert.equal(decoder.bufferedBytes, 0);
});

test('an oversized line inside a single chunk, and one completing a held tail, are both skipped', () => {
  const { decoder, lines, errors } = collect(100);
  decoder.push(`{"a":1}\n${'x'.repeat(500)}\n{"b":2}\n`);
  decoder.push('y'.repeat(60));
  decoder.push(enc.encode('y'.repeat(41) + '\n{"c":3}\n'));
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  assert.deepEqual(
    errors.map((e) => e.bytes),
    [500, 101],
  );
});

test('oversized string input is skipped until the next newline', () => {
  const { decoder, lines, errors } = collect(16);
  decoder.push('{"x":"' + 'z'.repeat(20));
  decoder.push('z'.repeat(100));
  decoder.push('zz"}\r\n{"ok":true}\n');
  assert.deepEqual(lines, ['{"ok":true}']);
  assert.equal(errors.length, 1);
});

test('maxLineBytes is validated; the default is 4 MiB', () => {
  assert.equal(DEFAULT_MAX_LINE_BYTES, 4 * 1024 * 1024);
  assert.equal(collect().decoder.maxLineBytes, DEFAULT_MAX_LINE_BYTES);
  for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) assert.throws(() => collect(bad), RangeError);
});

test('encodeLine produces one line; pre-serialized strings with line breaks are refused', () => {
  assert.equal(encodeLine({ jsonrpc: '2.0', method: 'x', params: { s: 'a\nb\r\u2028' } }), '{"jsonrpc":"2.0","method":"x","params":{"s":"a\\nb\\r\u2028"}}\n');
  assert.equal(encodeLine([{ jsonrpc: '2.0', id: 1, result: {} }]), '[{"jsonrpc":"2.0","id":1,"result":{}}]\n');
  assert.equal(encodeLine('{"jsonrpc":"2.0","method":"y"}'), '{"jsonrpc":"2.0","method":"y"}\n');
  for (const bad of ['{"a":\n1}', '{"a":1}\r', '\n', '']) {
    assert.throws(
      () => encodeLine(bad),
      (e: unknown) => e instanceof LocalError && e.code === 'invalid_message',
    );
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(
    () => encodeLine(cyclic),
    (e: unknown) => e instanceof LocalError && e.code === 'invalid_message' && e.cause instanceof TypeError,
  );
  assert.throws(
    () => encodeLine(undefined),
    (e: unknown) => e instanceof LocalError && e.code === 'invalid_message',
  );
  assert.throws(
    () => encodeLine({ n: 1n }),
    (e: unknown) => e instanceof LocalError && e.code === 'invalid_message',
  );
});

test('encode → decode round trip across arbitrary chunking', () => {
  const messages = [
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'línea 1\nlínea 2 🎉' } } },
    { jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: '\r\n\u2029' }] } },
  ];
  const bytes = enc.encode(messages.map(encodeLine).join(''));
  for (const size of [1, 2, 3, 5, 7, 64]) {
    const { decoder, lines } = collect();
    for (let i = 0; i < bytes.length; i += size) decoder.push(bytes.subarray(i, i + size));
    assert.deepEqual(
      lines.map((l) => JSON.parse(l)),
      messages,
      `chunk size ${size}`,
    );
  }
});

test('the module is runtime-neutral (no node: imports)', () => {
  const source = readFileSync(fileURLToPath(new URL('./ndjson.js', import.meta.url)), 'utf8');
  assert.doesNotMatch(source, /from\s+['"]node:|require\(/);
});

test('oversizedEnd gets the envelope of every oversized line, however it was cut, once the line ends', () => {
  const seen: Array<{ kind: string; id: unknown }> = [];
  const lines: string[] = [];
  const decoder = new NdjsonDecoder(
    { line: (text) => lines.push(text), oversized: () => seen.push({ kind: 'oversized', id: null }), oversizedEnd: (e) => seen.push(e) },
    { maxLineBytes: 64 },
  );
  const pad = 'p'.repeat(100);
  // Whole line in one chunk; a held tail that overflows (the id comes after the skipped part); a tail completed over the limit.
  decoder.push(`{"id":1,"method":"m","params":{"p":"${pad}"}}\n`);
  decoder.push(enc.encode(`{"method":"m","params":{"p":"${pad}`));
  assert.deepEqual(seen.at(-1), { kind: 'oversized', id: null }, 'reported when crossed; the envelope waits for the end of the line');
  decoder.push(enc.encode(`"},"id":"two"}\r\n{"ok":1}\n`));
  decoder.push(`{"jsonrpc":"2.0","id":3,"result":{"p":"${'q'.repeat(40)}`);
  decoder.push(`${'q'.repeat(20)}"}}\n`);
  decoder.push(`not json ${pad}`);
  decoder.end();
  assert.deepEqual(seen, [
    { kind: 'oversized', id: null },
    { kind: 'request', id: 1 },
    { kind: 'oversized', id: null },
    { kind: 'request', id: 'two' },
    { kind: 'oversized', id: null },
    { kind: 'response', id: 3 },
    { kind: 'oversized', id: null },
    { kind: 'not-json', id: null },
  ]);
  assert.deepEqual(lines, ['{"ok":1}']);
});

test('a line with invalid UTF-8 is measured in raw bytes whether or not it arrives in one chunk', () => {
  // Found by the property test: U+FFFD (3 bytes) stands for each invalid byte, so measuring
  // the decoded text made a 3-byte line "oversized" only when it came in one chunk.
  const bytes = Uint8Array.from([0x61, 0x80, 0x62, 0x0a]);
  for (const chunks of [[bytes], [bytes.subarray(0, 1), bytes.subarray(1)]]) {
    const { decoder, lines, errors } = collect(3);
    for (const chunk of chunks) decoder.push(chunk);
    assert.deepEqual(lines, ['a\ufffdb']);
    assert.equal(errors.length, 0);
  }
});
