/**
 * Decodes a stream of UTF-8 byte chunks to text, chunk by chunk, with whole-buffer
 * `TextDecoder.decode` calls instead of `{ stream: true }` ones.
 *
 * Why: on Node 20 and 22 a streaming `decode` goes through ICU's converter and a UTF-16
 * scratch buffer: 54–70 µs per 64 KiB of ASCII, against 8–11 µs for a whole-buffer call
 * (simdutf), and a 1 MiB stdio message arrives as sixteen such chunks.
 *
 * How: a chunk that ends inside a multi-byte sequence has that sequence's first bytes (at
 * most three) held back; the next chunk's leading continuation bytes complete it, and that
 * short piece is decoded on its own. Each split is made just before a byte that is not a
 * continuation byte, where the WHATWG UTF-8 decoder has no sequence open (a pending one ends
 * there with one U+FFFD, the same as at the end of input). So the text is exactly what one
 * streaming `TextDecoder('utf-8')` would produce, invalid bytes included (U+FFFD), and a
 * byte-order mark is dropped only as the first character after construction or a
 * {@link Utf8Chunks.flush}, as that decoder drops it.
 *
 * Runtime-neutral: only `TextDecoder` and `Uint8Array`.
 */

/** Length of the sequence lead byte `b` opens, as the WHATWG decoder reads it (1 for ASCII and invalid leads). */
function sequenceLength(b: number): number {
  if (b < 0xc2) return 1;
  if (b < 0xe0) return 2;
  if (b < 0xf0) return 3;
  return b < 0xf5 ? 4 : 1;
}

/**
 * Index in `chunk` (at or after `from`) where a multi-byte sequence starts that the chunk's
 * end cuts short, or -1 when the chunk ends on a sequence boundary.
 */
function cutSequenceStart(chunk: Uint8Array, from: number): number {
  const end = chunk.length;
  const stop = Math.max(from, end - 4);
  for (let i = end - 1; i >= stop; i--) {
    const b = chunk[i]!;
    if ((b & 0xc0) !== 0x80) return sequenceLength(b) > end - i ? i : -1;
  }
  return -1;
}

/** See the module note. Not reentrant; one instance per byte stream. */
export class Utf8Chunks {
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  /** The first bytes of a sequence the last chunk cut short, or null. */
  #held: Uint8Array | null = null;
  /** True until the stream has produced text: a leading U+FEFF is dropped then. */
  #start = true;

  /** The text of `chunk`, plus that of a sequence the previous chunk cut short; holds back a sequence this chunk cuts short. */
  decode(chunk: Uint8Array): string {
    let from = 0;
    let head = '';
    const held = this.#held;
    if (held !== null) {
      const need = sequenceLength(held[0]!) - held.length;
      while (from < need && from < chunk.length && (chunk[from]! & 0xc0) === 0x80) from++;
      const piece = new Uint8Array(held.length + from);
      piece.set(held);
      piece.set(chunk.subarray(0, from), held.length);
      if (from < need && from === chunk.length) {
        // a tiny chunk of continuation bytes only: the sequence is still open
        this.#held = piece;
        return '';
      }
      this.#held = null;
      head = this.#decoder.decode(piece);
    }
    let end = chunk.length;
    const cut = cutSequenceStart(chunk, from);
    if (cut !== -1) {
      this.#held = chunk.slice(cut);
      end = cut;
    }
    let text = from === end ? '' : this.#decoder.decode(from === 0 && end === chunk.length ? chunk : chunk.subarray(from, end));
    if (head !== '') text = head + text;
    if (this.#start && text.length !== 0) {
      this.#start = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return text;
  }

  /**
   * Ends the stream: the text of a held, unfinished sequence (U+FFFD) or ''. The next
   * chunk starts a new stream (a byte-order mark at its start is dropped again).
   */
  flush(): string {
    const held = this.#held;
    this.#held = null;
    this.#start = true;
    // an unfinished sequence is never a byte-order mark
    return held === null ? '' : this.#decoder.decode(held);
  }
}
