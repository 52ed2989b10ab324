/**
 * Property tests of the SSE parser (WHATWG HTML, Server-sent events, "Parsing an event
 * stream"), whose input a possibly hostile HTTP server controls.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { check, cut, offsets } from '../../test/abuse/chunk-splits.js';
import { encodeSseEvent, type SseEvent, SseParser } from './sse.js';

interface Output {
  events: SseEvent[];
  retries: number[];
  oversized: number;
  lastEventId: string;
  peak: number;
}

function parse(chunks: Array<string | Uint8Array>, maxEventChars?: number): Output {
  const out: Output = { events: [], retries: [], oversized: 0, lastEventId: '', peak: 0 };
  const parser = new SseParser(
    { event: (e) => out.events.push(e), retry: (ms) => out.retries.push(ms), oversized: () => out.oversized++ },
    maxEventChars === undefined ? {} : { maxEventChars },
  );
  for (const chunk of chunks) {
    parser.push(chunk);
    out.peak = Math.max(out.peak, parser.bufferedChars);
  }
  parser.end();
  out.lastEventId = parser.lastEventId;
  return out;
}

const enc = new TextEncoder();

/** Text built from SSE's own vocabulary plus noise, so fields, line ends and blank lines are common. */
const streamText = fc
  .array(
    fc.oneof(
      fc.constantFrom('data', 'id', 'event', 'retry', ':', ': ', ' ', '\n', '\r', '\r\n', '\n\n', '0', '12', '\u0000', 'é', '😀', '\ufeff'),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));

test('arbitrary text or bytes in arbitrary chunks: never throws, the held line stays within maxEventChars + 8, no event is over the bound', () => {
  check(
    fc.property(streamText, offsets(), fc.integer({ min: 1, max: 40 }), (text, cuts, max) => {
      const out = parse(cut(text, cuts), max);
      assert.ok(out.peak <= max + 8);
      for (const e of out.events) assert.ok(e.data.length <= max);
      parse(cut(enc.encode(text), cuts), max);
      parse(cut(fc.sample(fc.uint8Array({ maxLength: 200 }), 1)[0]!, cuts), max);
    }),
    300,
  );
});

test('chunking independence: the same events, retries, reports and last id however the bytes are split', () => {
  check(
    fc.property(streamText, offsets(), fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }), (text, cuts, max) => {
      const bytes = enc.encode(text);
      const { peak: _a, ...whole } = parse([bytes], max);
      const { peak: _b, ...split } = parse(cut(bytes, cuts), max);
      const { peak: _c, ...asText } = parse(cut(text, cuts), max);
      assert.deepEqual(split, whole);
      assert.deepEqual(asText, whole);
    }),
    300,
  );
});

/** Fields an encoder may be given: no CR/LF in id or event name, no NUL in an id. */
const eventInit = fc.record({
  id: fc.option(
    fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replace(/[\r\n\u0000]/g, '')),
    { nil: undefined },
  ),
  event: fc.option(
    fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, '')),
    { nil: undefined },
  ),
  data: fc.string({ unit: 'binary', maxLength: 40 }),
  retry: fc.option(fc.nat(), { nil: undefined }),
});

test('round trip: encodeSseEvent then parse gives back every event (data line ends normalised to LF)', () => {
  check(
    fc.property(fc.array(eventInit, { minLength: 1, maxLength: 6 }), offsets(), (inits, cuts) => {
      const out = parse(cut(enc.encode(inits.map((init) => encodeSseEvent(init)).join('')), cuts));
      let lastId = '';
      const expected = inits.map((init) => {
        if (init.id !== undefined) lastId = init.id;
        return { event: init.event === undefined || init.event === '' ? 'message' : init.event, data: init.data.replace(/\r\n|\r/g, '\n'), id: lastId };
      });
      assert.deepEqual(out.events, expected);
      assert.deepEqual(
        out.retries,
        inits.flatMap((init) => (init.retry === undefined ? [] : [init.retry])),
      );
      assert.equal(out.oversized, 0);
    }),
  );
});

test('bounded output: events over maxEventChars are dropped and reported, the others delivered intact', () => {
  check(
    fc.property(
      fc.array(
        fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, '')),
        { minLength: 1, maxLength: 10 },
      ),
      fc.integer({ min: 1, max: 20 }),
      offsets(),
      (datas, max, cuts) => {
        const out = parse(cut(datas.map((data) => encodeSseEvent({ data })).join(''), cuts), max);
        // A data value of `max` characters is within the bound; one more is not.
        assert.deepEqual(
          out.events.map((e) => e.data),
          datas.filter((d) => d.length <= max),
        );
        assert.equal(out.oversized, datas.filter((d) => d.length > max).length);
      },
    ),
  );
});
