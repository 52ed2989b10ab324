/**
 * RFC 6570 URI templates (https://www.rfc-editor.org/rfc/rfc6570): parse once, expand at
 * level 4, and match concrete URIs back to variables. MCP resource templates
 * (`resources/templates/list`, spec "Resource Templates") are such templates.
 *
 * Design note
 * -----------
 * Parsing turns the template into literal parts (stored already percent-encoded the way
 * expansion emits them) and expressions (operator + varspecs). Expansion follows the RFC's
 * algorithm (Appendix A). Associative-array values (the RFC's `keys` examples) are not
 * supported: variables are strings or lists of strings.
 *
 * Matching is the security-sensitive half: other SDKs compiled templates into regular
 * expressions, and a template with several adjacent variables then backtracked
 * exponentially on a crafted URI (a ReDoS). Here no regular expression is ever built.
 * A single left-to-right scanner walks the template's steps and never backtracks, so the
 * work is linear in the URI length plus the template size:
 *
 * - A literal must appear verbatim at the current position.
 * - An expression whose operator has a leading character (`#` `.` `/` `;` `?` `&`) is
 *   absent when that character is not at the current position, and also when the next
 *   literal begins right there (so `x{/a}/end` matches `x/end` with `a` undefined).
 * - Otherwise the expression extends up to its *boundary*, the earliest of:
 *   1. the operator's stop characters: a simple `{id}`, `{.x}` and `{;x}` never contain
 *      `/` `?` `#`; `{/x}` never contains `?` `#`; `{?x}`/`{&x}` never contain `#`;
 *      `{+x}` and `{#x}` have none (so `{+path}` may contain `/`);
 *   2. the first delimiter of what follows, looked up in template order: the leading
 *      character of the next expression (if that expression's leading character does
 *      not occur in range, the one after it is tried, and so on), or the *first
 *      occurrence* of the next literal. The template's final literal is anchored at the
 *      end of the URI instead, so `file:///{+path}/meta` matches `file:///a/meta/meta`
 *      with `path = "a/meta"`. A next expression without a leading character (`{x}{y}`),
 *      or one whose leading character is this expression's own separator (`{/a}{/b}`),
 *      gives no delimiter: the earlier expression is greedy.
 *   If the next literal does not occur before the stop character, the URI does not match.
 * - Inside its range an expression splits values on its separator. Non-final varspecs end
 *   at the first separator. The final varspec of `{x}`, `{+x}`, `{#x}` and `{.x}` takes the
 *   rest of the range (values of those operators may contain the separator, and a
 *   non-exploded list arrives as one comma-joined string); `{/x}` takes one segment and
 *   leaves the rest to what follows. An exploded varspec (`*`) takes every remaining item
 *   as a list. Named operators (`;` `?` `&`) read `name=value` pairs in any order (a bare
 *   `name` reads as `""`, empty pairs are skipped); adjacent `{?a}{&b}` (and `{;a}{;b}`)
 *   expressions are read as one group. A pair naming a variable the group does not have,
 *   or repeating a non-exploded variable with a different value, makes the URI not match.
 * - An empty range gives `""` (`[""]` when exploded) for a `{x}`/`{+x}` expression's first
 *   variable. Values are percent-decoded as UTF-8 (`+` stays `+`); malformed escapes make
 *   the URI not match. A prefix varspec `{x:3}` only matches values of at most 3
 *   characters, and a variable that appears twice must capture consistent values.
 *
 * Cost: delimiter lookups go through per-match caches of "next occurrence at or after
 * position p" for the six delimiter characters and a resumable KMP search per literal.
 * Positions only move forward, so each cache scans a URI character at most once, literal
 * searches cover disjoint spans, and value parsing reads each character of its range a
 * bounded number of times. The per-expression boundary chains cost O(expressions²) at
 * most, a constant bounded by the template limits. `UriTemplate.measureMatch` exposes the
 * count of character inspections so tests can pin the bound down.
 */

/** Templates longer than this many UTF-16 code units are refused (8 KiB). */
export const MAX_TEMPLATE_LENGTH = 8192;

/** Templates with more expressions than this are refused. */
export const MAX_TEMPLATE_EXPRESSIONS = 64;

/** Default {@link UriTemplateOptions.maxUriLength}: 64 KiB. */
export const DEFAULT_MAX_URI_LENGTH = 65536;

/** Construction options of {@link UriTemplate}. */
export interface UriTemplateOptions {
  /**
   * URIs longer than this many UTF-16 code units never match: {@link UriTemplate.match}
   * returns `null` without scanning them. A positive integer; default 65536.
   */
  maxUriLength?: number;
}

/** Variables for {@link UriTemplate.expand}: a string, a list of strings, or undefined (omitted). */
export type UriTemplateVariables = Record<string, string | readonly string[] | undefined>;

/** The variables {@link UriTemplate.match} extracted: percent-decoded strings, lists for exploded varspecs. */
export type UriTemplateMatch = Record<string, string | string[]>;

/** The six characters the scanner tracks, as bits: `/ ? # . ; &`. */
const SLASH = 1;
const QUERY = 2;
const HASH = 4;
const DOT = 8;
const SEMI = 16;
const AMP = 32;
const TRACKED_CODES = [0x2f, 0x3f, 0x23, 0x2e, 0x3b, 0x26];
const TRACKED_COUNT = 6;

/** The tracked-character bit of a char code, or 0. */
function trackedBit(code: number): number {
  switch (code) {
    case 0x2f:
      return SLASH;
    case 0x3f:
      return QUERY;
    case 0x23:
      return HASH;
    case 0x2e:
      return DOT;
    case 0x3b:
      return SEMI;
    case 0x26:
      return AMP;
    default:
      return 0;
  }
}

/** One RFC 6570 operator (RFC 6570 Appendix A table) plus what the matcher needs to know. */
interface Operator {
  readonly key: string;
  readonly first: string;
  readonly sep: string;
  readonly sepCode: number;
  readonly named: boolean;
  readonly ifemp: string;
  readonly allowReserved: boolean;
  /** Tracked characters this expression never contains when matching. */
  readonly stopMask: number;
  /** Bit of the leading character; 0 for `{x}` and `{+x}`. */
  readonly startMask: number;
  /** Bit of the separator when it is a tracked character, else 0. */
  readonly sepMask: number;
  /** Whether the final non-exploded varspec takes the rest of the range, separators included. */
  readonly lastTakesRest: boolean;
}

function operator(
  key: string,
  first: string,
  sep: string,
  named: boolean,
  ifemp: string,
  allowReserved: boolean,
  stopMask: number,
  lastTakesRest: boolean,
): Operator {
  return {
    key,
    first,
    sep,
    sepCode: sep.charCodeAt(0),
    named,
    ifemp,
    allowReserved,
    stopMask,
    lastTakesRest,
    startMask: first === '' ? 0 : trackedBit(first.charCodeAt(0)),
    sepMask: trackedBit(sep.charCodeAt(0)),
  };
}

const SIMPLE = operator('', '', ',', false, '', false, SLASH | QUERY | HASH, true);
const OPERATORS: ReadonlyMap<string, Operator> = new Map([
  ['+', operator('+', '', ',', false, '', true, 0, true)],
  ['#', operator('#', '#', ',', false, '', true, 0, true)],
  ['.', operator('.', '.', '.', false, '', false, SLASH | QUERY | HASH, true)],
  ['/', operator('/', '/', '/', false, '', false, QUERY | HASH, false)],
  [';', operator(';', ';', ';', true, '', false, SLASH | QUERY | HASH, false)],
  ['?', operator('?', '?', '&', true, '=', false, HASH, false)],
  ['&', operator('&', '&', '&', true, '=', false, HASH, false)],
]);
/** Operator characters RFC 6570 reserves for future extensions (section 2.2). */
const RESERVED_OPERATORS = '=,!@|';

interface VarSpec {
  readonly name: string;
  /** Index of the distinct variable name, in order of first appearance. */
  readonly slot: number;
  /** Prefix length from `:N`, or 0. */
  readonly prefix: number;
  readonly explode: boolean;
}

interface Expression {
  readonly op: Operator;
  readonly specs: readonly VarSpec[];
}

const BOUNDARY_GREEDY = 0;
const BOUNDARY_CHARS = 1;
const BOUNDARY_LITERAL = 2;
const BOUNDARY_TAIL = 3;

/** One candidate delimiter in an expression's boundary chain. */
interface Boundary {
  readonly kind: number;
  /** Tracked-character bits (BOUNDARY_CHARS). */
  readonly mask: number;
  /** Index of the literal's search state (BOUNDARY_LITERAL). */
  readonly lit: number;
  /** Literal text (BOUNDARY_LITERAL, BOUNDARY_TAIL). */
  readonly text: string;
}

interface LiteralStep {
  readonly kind: 0;
  readonly text: string;
}

interface ExpressionStep {
  readonly kind: 1;
  readonly op: Operator;
  readonly specs: VarSpec[];
  /** Accepted leading characters (a merged `{?a}{&b}` group accepts `?` and `&`); 0 = none. */
  startMask: number;
  /** Name → index into `specs`, for named operators. */
  byName: Map<string, number> | null;
  chain: Boundary[];
}

type MatchStep = LiteralStep | ExpressionStep;

// ---------------------------------------------------------------------------------------
// Character classes and percent-encoding.

const UNRESERVED = 1;
const RESERVED = 2;
const CHAR_CLASS = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) CHAR_CLASS[c] = UNRESERVED;
for (let c = 0x41; c <= 0x5a; c++) CHAR_CLASS[c] = UNRESERVED;
for (let c = 0x61; c <= 0x7a; c++) CHAR_CLASS[c] = UNRESERVED;
for (const ch of '-._~') CHAR_CLASS[ch.charCodeAt(0)] = UNRESERVED;
for (const ch of ":/?#[]@!$&'()*+,;=") CHAR_CLASS[ch.charCodeAt(0)] = RESERVED;

const PCT: string[] = [];
for (let b = 0; b < 256; b++) PCT.push('%' + b.toString(16).toUpperCase().padStart(2, '0'));

function isHexCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Whether `s` has a pct-encoded triplet at index `i` (which holds `%`). */
function isTriplet(s: string, i: number): boolean {
  return i + 2 < s.length && isHexCode(s.charCodeAt(i + 1)) && isHexCode(s.charCodeAt(i + 2));
}

/** UTF-8 percent-encoding of one code point. */
function encodeCodePoint(cp: number): string {
  if (cp < 0x80) return PCT[cp]!;
  if (cp < 0x800) return PCT[0xc0 | (cp >> 6)]! + PCT[0x80 | (cp & 0x3f)]!;
  if (cp < 0x10000) return PCT[0xe0 | (cp >> 12)]! + PCT[0x80 | ((cp >> 6) & 0x3f)]! + PCT[0x80 | (cp & 0x3f)]!;
  return PCT[0xf0 | (cp >> 18)]! + PCT[0x80 | ((cp >> 12) & 0x3f)]! + PCT[0x80 | ((cp >> 6) & 0x3f)]! + PCT[0x80 | (cp & 0x3f)]!;
}

/**
 * Percent-encodes everything outside the unreserved set (and, with `allowReserved`, outside
 * unreserved + reserved + existing pct-encoded triplets). Non-ASCII is encoded as UTF-8; a
 * lone surrogate is encoded as U+FFFD.
 */
function encode(s: string, allowReserved: boolean): string {
  let out = '';
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let piece: string;
    if (c < 0x80) {
      const cls = CHAR_CLASS[c]!;
      if (cls === UNRESERVED || (allowReserved && cls === RESERVED)) continue;
      if (allowReserved && c === 0x25 && isTriplet(s, i)) {
        i += 2;
        continue;
      }
      piece = PCT[c]!;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      piece = encodeCodePoint(0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(i + 1) - 0xdc00));
      out += s.slice(run, i) + piece;
      i++;
      run = i + 1;
      continue;
    } else {
      piece = encodeCodePoint(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
    }
    out += s.slice(run, i) + piece;
    run = i + 1;
  }
  return run === 0 ? s : out + s.slice(run);
}

/**
 * The first `max` characters of `s` (code points; with `allowReserved`, a pct-encoded
 * triplet counts as one character so it is never split, RFC 6570 section 2.4.1).
 */
function truncate(s: string, max: number, allowReserved: boolean): string {
  let count = 0;
  let i = 0;
  while (i < s.length && count < max) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i += 2;
    else if (allowReserved && c === 0x25 && isTriplet(s, i)) i += 3;
    else i++;
    count++;
  }
  return i >= s.length ? s : s.slice(0, i);
}

/** Number of code points in `s`. */
function codePointLength(s: string): number {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    count++;
  }
  return count;
}

// ---------------------------------------------------------------------------------------
// Parsing.

function syntaxError(message: string, offset: number): TypeError {
  return new TypeError(`Invalid URI template: ${message} at offset ${offset}`);
}

function isVarchar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** Checks an RFC 6570 varname: varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded. */
function checkVarname(name: string, offset: number): void {
  if (name === '') throw syntaxError('empty variable name', offset);
  let afterDot = true;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) {
      if (afterDot) throw syntaxError('misplaced "." in variable name', offset + i);
      afterDot = true;
    } else if (isVarchar(c)) {
      afterDot = false;
    } else if (c === 0x25 && isTriplet(name, i)) {
      i += 2;
      afterDot = false;
    } else {
      throw syntaxError(`invalid character ${JSON.stringify(name[i])} in variable name`, offset + i);
    }
  }
  if (afterDot) throw syntaxError('variable name ends with "."', offset + name.length - 1);
}

/** Parses a `:N` prefix length (1..9999). */
function parsePrefix(text: string, offset: number): number {
  if (text.length < 1 || text.length > 4 || text.charCodeAt(0) === 0x30) throw syntaxError('prefix length must be 1..9999', offset);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) throw syntaxError('prefix length must be 1..9999', offset + i);
    n = n * 10 + (c - 0x30);
  }
  return n;
}

interface Parsed {
  parts: (string | Expression)[];
  names: string[];
}

function parseTemplate(template: string): Parsed {
  const parts: (string | Expression)[] = [];
  const names: string[] = [];
  const slots = new Map<string, number>();
  let expressions = 0;
  let literalStart = 0;
  let i = 0;
  const pushLiteral = (end: number): void => {
    if (end > literalStart) parts.push(encode(template.slice(literalStart, end), true));
  };
  while (i < template.length) {
    const c = template.charCodeAt(i);
    if (c === 0x7d) throw syntaxError('unmatched "}"', i);
    if (c !== 0x7b) {
      i++;
      continue;
    }
    pushLiteral(i);
    let close = -1;
    for (let j = i + 1; j < template.length; j++) {
      const d = template.charCodeAt(j);
      if (d === 0x7d) {
        close = j;
        break;
      }
      if (d === 0x7b) throw syntaxError('"{" inside an expression', j);
    }
    if (close < 0) throw syntaxError('unclosed "{"', i);
    if (++expressions > MAX_TEMPLATE_EXPRESSIONS) throw syntaxError(`more than ${MAX_TEMPLATE_EXPRESSIONS} expressions`, i);
    parts.push(parseExpression(template.slice(i + 1, close), i + 1, names, slots));
    i = close + 1;
    literalStart = i;
  }
  pushLiteral(template.length);
  return { parts, names };
}

function parseExpression(body: string, offset: number, names: string[], slots: Map<string, number>): Expression {
  if (body === '') throw syntaxError('empty expression', offset - 1);
  let op = OPERATORS.get(body[0]!);
  let listStart = 0;
  if (op !== undefined) listStart = 1;
  else if (RESERVED_OPERATORS.includes(body[0]!)) throw syntaxError(`reserved operator ${JSON.stringify(body[0])}`, offset);
  else op = SIMPLE;
  if (listStart === body.length) throw syntaxError('operator without variables', offset);
  const specs: VarSpec[] = [];
  let start = listStart;
  while (start <= body.length) {
    let end = body.indexOf(',', start);
    if (end < 0) end = body.length;
    let text = body.slice(start, end);
    const at = offset + start;
    if (text === '') throw syntaxError('empty variable', at);
    let explode = false;
    let prefix = 0;
    if (text.endsWith('*')) {
      explode = true;
      text = text.slice(0, -1);
    }
    const colon = text.indexOf(':');
    if (colon >= 0) {
      if (explode) throw syntaxError('prefix and explode modifiers cannot be combined', at + colon);
      prefix = parsePrefix(text.slice(colon + 1), at + colon + 1);
      text = text.slice(0, colon);
    }
    checkVarname(text, at);
    let slot = slots.get(text);
    if (slot === undefined) {
      slot = names.length;
      slots.set(text, slot);
      names.push(text);
    }
    specs.push({ name: text, slot, prefix, explode });
    start = end + 1;
  }
  return { op, specs };
}

/** Merges adjacent `;`/`;` and `?`|`&`/`&` expressions, then computes boundary chains. */
function buildSteps(parts: readonly (string | Expression)[]): { steps: MatchStep[]; kmp: Int32Array[] } {
  const steps: MatchStep[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      steps.push({ kind: 0, text: part });
      continue;
    }
    const prev = steps[steps.length - 1];
    if (prev !== undefined && prev.kind === 1 && canMerge(prev.op, part.op)) {
      prev.specs.push(...part.specs);
      prev.startMask |= part.op.startMask;
      continue;
    }
    steps.push({ kind: 1, op: part.op, specs: [...part.specs], startMask: part.op.startMask, byName: null, chain: [] });
  }
  const kmp: Int32Array[] = [];
  const litIndex = new Map<number, number>();
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (step.kind === 0) continue;
    if (step.op.named) {
      step.byName = new Map();
      for (let k = 0; k < step.specs.length; k++) if (!step.byName.has(step.specs[k]!.name)) step.byName.set(step.specs[k]!.name, k);
    }
    let j = i + 1;
    for (; j < steps.length; j++) {
      const next = steps[j]!;
      if (next.kind === 0) {
        if (j === steps.length - 1) {
          step.chain.push({ kind: BOUNDARY_TAIL, mask: 0, lit: -1, text: next.text });
        } else {
          let lit = litIndex.get(j);
          if (lit === undefined) {
            lit = kmp.length;
            litIndex.set(j, lit);
            kmp.push(failureTable(next.text));
          }
          step.chain.push({ kind: BOUNDARY_LITERAL, mask: 0, lit, text: next.text });
        }
        break;
      }
      if (next.startMask === 0 || (next.startMask & step.op.sepMask) !== 0) {
        step.chain.push({ kind: BOUNDARY_GREEDY, mask: 0, lit: -1, text: '' });
        break;
      }
      step.chain.push({ kind: BOUNDARY_CHARS, mask: next.startMask, lit: -1, text: '' });
    }
    if (j === steps.length) step.chain.push({ kind: BOUNDARY_GREEDY, mask: 0, lit: -1, text: '' });
  }
  return { steps, kmp };
}

function canMerge(a: Operator, b: Operator): boolean {
  return (a.key === ';' && b.key === ';') || ((a.key === '?' || a.key === '&') && b.key === '&');
}

/** KMP failure function: fail[k] = length of the longest proper border of pattern[0..k]. */
function failureTable(pattern: string): Int32Array {
  const fail = new Int32Array(pattern.length);
  let k = 0;
  for (let i = 1; i < pattern.length; i++) {
    const c = pattern.charCodeAt(i);
    while (k > 0 && pattern.charCodeAt(k) !== c) k = fail[k - 1]!;
    if (pattern.charCodeAt(k) === c) k++;
    fail[i] = k;
  }
  return fail;
}

// ---------------------------------------------------------------------------------------
// Matching.

/**
 * Scanner state for one match call (kept by its template and reset for the next call): the
 * URI, the captured values, the monotone delimiter caches and the literal search states,
 * plus a count of character inspections (`steps`) that the linear-time guarantee bounds.
 */
class Scan {
  uri = '';
  n = 0;
  steps = 0;
  readonly values: (string | string[] | undefined)[];
  /**
   * Layout: [0,6) query origin per tracked char; [6,12) next occurrence per tracked char;
   * then 4 ints per literal (query origin, scan position, KMP state, found start);
   * then one prefix length per slot (0 = captured in full).
   */
  readonly #ints: Int32Array;
  readonly #prefixBase: number;
  #tail = -2;

  constructor(slots: number, literals: number) {
    this.values = new Array<string | string[] | undefined>(slots).fill(undefined);
    this.#prefixBase = 2 * TRACKED_COUNT + 4 * literals;
    this.#ints = new Int32Array(this.#prefixBase + slots);
  }

  /** Prepares for scanning `uri`, forgetting everything from a previous scan. */
  reset(uri: string): void {
    this.uri = uri;
    this.n = uri.length;
    this.steps = 0;
    this.#tail = -2;
    const ints = this.#ints;
    for (let idx = 0; idx < TRACKED_COUNT; idx++) ints[idx] = -1;
    for (let at = 2 * TRACKED_COUNT; at < this.#prefixBase; at += 4) ints[at] = -1;
  }

  /** Drops the reference to the last URI and its captures (the scan is kept for reuse). */
  release(): void {
    this.uri = '';
    const values = this.values;
    for (let slot = 0; slot < values.length; slot++) values[slot] = undefined;
  }

  /** First index ≥ q holding any tracked character of `mask`, or n. */
  nextOf(mask: number, q: number): number {
    let best = this.n;
    for (let idx = 0; idx < TRACKED_COUNT; idx++) {
      if ((mask & (1 << idx)) === 0) continue;
      const f = this.#nextChar(idx, q);
      if (f < best) best = f;
    }
    return best;
  }

  #nextChar(idx: number, q: number): number {
    const ints = this.#ints;
    const from = ints[idx]!;
    const at = ints[TRACKED_COUNT + idx]!;
    if (from !== -1 && q >= from && at >= q) return at;
    const code = TRACKED_CODES[idx]!;
    const uri = this.uri;
    const n = this.n;
    let i = q;
    while (i < n && uri.charCodeAt(i) !== code) i++;
    this.steps += i - q + 1;
    ints[idx] = q;
    ints[TRACKED_COUNT + idx] = i;
    return i;
  }

  /** Start of the first occurrence of literal `lit` (text `text`) at or after q, or -1. */
  findLiteral(lit: number, text: string, fail: Int32Array, q: number): number {
    const ints = this.#ints;
    const base = 2 * TRACKED_COUNT + 4 * lit;
    const from = ints[base]!;
    const found = ints[base + 3]!;
    if (from !== -1 && q >= from && (found === -1 || found >= q)) return found;
    let i: number;
    let k: number;
    if (from !== -1 && q >= from && ints[base + 1]! >= q) {
      i = ints[base + 1]!;
      k = ints[base + 2]!;
    } else {
      i = q;
      k = 0;
    }
    const uri = this.uri;
    const n = this.n;
    const m = text.length;
    let steps = 0;
    let result = -1;
    while (i < n) {
      const c = uri.charCodeAt(i);
      while (k > 0 && text.charCodeAt(k) !== c) {
        k = fail[k - 1]!;
        steps++;
      }
      if (text.charCodeAt(k) === c) k++;
      i++;
      steps++;
      if (k === m) {
        k = fail[m - 1]!;
        if (i - m >= q) {
          result = i - m;
          break;
        }
      }
    }
    this.steps += steps + 1;
    ints[base] = q;
    ints[base + 1] = i;
    ints[base + 2] = k;
    ints[base + 3] = result;
    return result;
  }

  /** Where the template's final literal must start (it is anchored at the end), or -1. */
  tailStart(text: string): number {
    if (this.#tail === -2) {
      this.steps += text.length;
      this.#tail = this.n >= text.length && this.uri.endsWith(text) ? this.n - text.length : -1;
    }
    return this.#tail;
  }

  /** The percent-decoded text of [a, b), or null when malformed or longer than `prefix` (if > 0). */
  decode(a: number, b: number, prefix: number): string | null {
    const raw = this.uri.slice(a, b);
    this.steps += 2 * (b - a);
    let value = raw;
    if (raw.indexOf('%') !== -1) {
      this.steps += b - a;
      try {
        value = decodeURIComponent(raw);
      } catch {
        return null;
      }
    }
    if (prefix > 0 && value.length > prefix) {
      this.steps += value.length;
      if (codePointLength(value) > prefix) return null;
    }
    return value;
  }

  /** Records a captured value, checking consistency with an earlier capture of the same variable. */
  assign(spec: VarSpec, value: string | string[]): boolean {
    const slot = spec.slot;
    const prev = this.values[slot];
    const ints = this.#ints;
    const at = this.#prefixBase + slot;
    if (prev === undefined) {
      this.values[slot] = value;
      ints[at] = spec.prefix;
      return true;
    }
    if (typeof prev === 'string' && typeof value === 'string') {
      this.steps += prev.length + value.length;
      const prevPrefix = ints[at]!;
      const prefix = spec.prefix;
      if (prevPrefix === 0 && prefix === 0) return prev === value;
      // A prefix capture with limit N equals the first N characters of the other capture.
      if (prevPrefix === 0) return truncate(prev, prefix, false) === value;
      if (prefix === 0 || prefix > prevPrefix) {
        if (truncate(value, prevPrefix, false) !== prev) return false;
        this.values[slot] = value;
        ints[at] = prefix;
        return true;
      }
      return truncate(prev, prefix, false) === value;
    }
    if (Array.isArray(prev) && Array.isArray(value)) {
      if (prev.length !== value.length) return false;
      for (let i = 0; i < prev.length; i++) {
        this.steps += value[i]!.length;
        if (prev[i] !== value[i]) return false;
      }
      return true;
    }
    return false;
  }
}

/** Matches one expression at `pos`; returns the position after it, or -1 for no match. */
function matchExpression(step: ExpressionStep, scan: Scan, pos: number, kmp: readonly Int32Array[]): number {
  const uri = scan.uri;
  const n = scan.n;
  const op = step.op;
  let start = pos;
  if (step.startMask !== 0) {
    if (pos >= n || (trackedBit(uri.charCodeAt(pos)) & step.startMask) === 0) return pos;
    start = pos + 1;
  }
  scan.steps++;
  const stop = op.stopMask === 0 ? n : scan.nextOf(op.stopMask, start);
  let end = stop;
  for (const b of step.chain) {
    if (b.kind === BOUNDARY_GREEDY) break;
    if (b.kind === BOUNDARY_CHARS) {
      const f = scan.nextOf(b.mask, start);
      if (f < n && f <= stop) {
        end = f;
        break;
      }
      continue;
    }
    const f = b.kind === BOUNDARY_TAIL ? scan.tailStart(b.text) : scan.findLiteral(b.lit, b.text, kmp[b.lit]!, pos);
    if (f === pos && start !== pos) return pos;
    if (f < start || f > stop) return -1;
    end = f;
    break;
  }
  return step.byName !== null ? matchNamed(step, scan, start, end) : matchUnnamed(step, scan, start, end);
}

function matchUnnamed(step: ExpressionStep, scan: Scan, start: number, end: number): number {
  const uri = scan.uri;
  const op = step.op;
  const sep = op.sepCode;
  const specs = step.specs;
  let cur = start;
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    if (spec.explode) {
      const items: string[] = [];
      for (;;) {
        let ve = cur;
        while (ve < end && uri.charCodeAt(ve) !== sep) ve++;
        scan.steps += ve - cur + 1;
        const item = scan.decode(cur, ve, 0);
        if (item === null) return -1;
        items.push(item);
        if (ve >= end) break;
        cur = ve + 1;
      }
      return scan.assign(spec, items) ? end : -1;
    }
    const last = i === specs.length - 1;
    let ve = end;
    if (!last || !op.lastTakesRest) {
      ve = cur;
      while (ve < end && uri.charCodeAt(ve) !== sep) ve++;
      scan.steps += ve - cur + 1;
    }
    const value = scan.decode(cur, ve, spec.prefix);
    if (value === null || !scan.assign(spec, value)) return -1;
    if (ve >= end) return end;
    if (last) return ve;
    cur = ve + 1;
  }
  return cur;
}

function matchNamed(step: ExpressionStep, scan: Scan, start: number, end: number): number {
  const uri = scan.uri;
  const sep = step.op.sepCode;
  const specs = step.specs;
  const byName = step.byName!;
  const local = new Array<string | string[] | undefined>(specs.length);
  let cur = start;
  while (cur < end) {
    let pe = cur;
    let eq = -1;
    for (; pe < end; pe++) {
      const c = uri.charCodeAt(pe);
      if (c === sep) break;
      if (c === 0x3d && eq < 0) eq = pe;
    }
    scan.steps += 2 * (pe - cur) + 1;
    if (pe > cur) {
      const idx = byName.get(uri.slice(cur, eq < 0 ? pe : eq));
      if (idx === undefined) return -1;
      const spec = specs[idx]!;
      const value = eq < 0 ? '' : scan.decode(eq + 1, pe, spec.prefix);
      if (value === null) return -1;
      const prev = local[idx];
      if (spec.explode) {
        if (prev === undefined) local[idx] = [value];
        else (prev as string[]).push(value);
      } else if (prev === undefined) {
        local[idx] = value;
      } else if (prev !== value) {
        return -1;
      }
    }
    cur = pe + 1;
  }
  for (let i = 0; i < specs.length; i++) {
    const value = local[i];
    if (value !== undefined && !scan.assign(specs[i]!, value)) return -1;
  }
  return end;
}

// ---------------------------------------------------------------------------------------
// Expansion.

function expandExpression(expr: Expression, variables: UriTemplateVariables): string {
  const op = expr.op;
  let out = '';
  let any = false;
  for (const spec of expr.specs) {
    const value: unknown = Object.hasOwn(variables, spec.name) ? variables[spec.name] : undefined;
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') {
      out += any ? op.sep : op.first;
      any = true;
      if (op.named) {
        out += spec.name;
        if (value === '') {
          out += op.ifemp;
          continue;
        }
        out += '=';
      }
      out += encode(spec.prefix > 0 ? truncate(value, spec.prefix, op.allowReserved) : value, op.allowReserved);
      continue;
    }
    if (!Array.isArray(value)) throw new TypeError(`URI template variable "${spec.name}" must be a string, an array of strings, or undefined`);
    if (spec.prefix > 0) throw new TypeError(`URI template variable "${spec.name}" is a list; the prefix modifier applies to strings only`);
    if (value.length === 0) continue;
    out += any ? op.sep : op.first;
    any = true;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'string') throw new TypeError(`URI template variable "${spec.name}" must be a string, an array of strings, or undefined`);
      if (!spec.explode) {
        if (i === 0 && op.named) out += spec.name + '=';
        else if (i > 0) out += ',';
        out += encode(item, op.allowReserved);
        continue;
      }
      if (i > 0) out += op.sep;
      if (op.named) {
        out += spec.name;
        out += item === '' ? op.ifemp : '=' + encode(item, op.allowReserved);
      } else {
        out += encode(item, op.allowReserved);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------

/**
 * A parsed RFC 6570 URI template (see the module design note for the matching rules).
 *
 * Created by the resource registry for each registered resource template, and usable on its
 * own. Observably immutable after construction; `expand` and `match` are synchronous and may be called
 * any number of times, from any caller, concurrently with nothing to coordinate.
 */
export class UriTemplate {
  readonly #template: string;
  readonly #parts: readonly (string | Expression)[];
  readonly #names: readonly string[];
  readonly #steps: readonly MatchStep[];
  readonly #kmp: readonly Int32Array[];
  readonly #maxUriLength: number;
  /** The whole template when it has no expressions (encoded as expansion emits it). */
  readonly #literal: string | null;
  /** A reusable scanner; taken while a match runs (matching never re-enters, but stay safe). */
  #spare: Scan | null = null;

  /**
   * Parses `template` once.
   * @throws TypeError when the template is malformed: an unclosed or unmatched brace, a
   *   nested `{`, an empty expression or variable, a reserved or unknown operator
   *   character, an invalid variable name, a bad `:N` prefix (1..9999), prefix combined
   *   with explode, more than {@link MAX_TEMPLATE_LENGTH} characters or more than
   *   {@link MAX_TEMPLATE_EXPRESSIONS} expressions. The message names the offset.
   * @throws RangeError when `options.maxUriLength` is not a positive integer.
   */
  constructor(template: string, options: UriTemplateOptions = {}) {
    if (typeof template !== 'string') throw new TypeError('URI template must be a string');
    if (template.length > MAX_TEMPLATE_LENGTH) throw new TypeError(`Invalid URI template: longer than ${MAX_TEMPLATE_LENGTH} characters`);
    const max = options.maxUriLength ?? DEFAULT_MAX_URI_LENGTH;
    if (!Number.isSafeInteger(max) || max <= 0) throw new RangeError('maxUriLength must be a positive integer');
    const { parts, names } = parseTemplate(template);
    const { steps, kmp } = buildSteps(parts);
    this.#template = template;
    this.#parts = parts;
    this.#names = names;
    this.#steps = steps;
    this.#kmp = kmp;
    this.#maxUriLength = max;
    this.#literal = parts.every((p) => typeof p === 'string') ? (parts as string[]).join('') : null;
  }

  /**
   * The distinct variable names in order of first appearance (a fresh array each call),
   * e.g. for offering completions of template arguments.
   */
  get variableNames(): string[] {
    return [...this.#names];
  }

  /** The template text exactly as given to the constructor. */
  toString(): string {
    return this.#template;
  }

  /**
   * RFC 6570 level 4 expansion. Undefined (or null) variables and empty lists are omitted;
   * values are percent-encoded per operator (unreserved only, or unreserved + reserved +
   * existing pct-triplets for `+` and `#`), non-ASCII as UTF-8.
   * @throws TypeError when a variable is neither a string, an array of strings nor
   *   undefined, or when a list variable has a prefix modifier (RFC 6570 section 2.4.1).
   */
  expand(variables: UriTemplateVariables): string {
    let out = '';
    for (const part of this.#parts) out += typeof part === 'string' ? part : expandExpression(part, variables);
    return out;
  }

  /**
   * Extracts the variables from `uri`, or returns `null` when it does not match (or is
   * longer than `maxUriLength`). Values are percent-decoded: a `{x}` value may therefore
   * contain `/` or `..` after decoding, so callers that build paths from it must validate.
   * Variables the URI leaves undefined are absent from the result. Never throws; runs in
   * time linear in the URI length plus the template size.
   */
  match(uri: string): UriTemplateMatch | null {
    return this.#match(uri, null);
  }

  /**
   * Diagnostic twin of {@link match} for tests and benchmarks: also reports `steps`, the
   * number of character inspections the scanner made (the quantity the linear-time bound
   * is about). Never throws.
   */
  measureMatch(uri: string): { result: UriTemplateMatch | null; steps: number } {
    const counter = { steps: 0 };
    const result = this.#match(uri, counter);
    return { result, steps: counter.steps };
  }

  #match(uri: string, counter: { steps: number } | null): UriTemplateMatch | null {
    if (typeof uri !== 'string' || uri.length > this.#maxUriLength) return null;
    if (this.#literal !== null) {
      if (counter !== null) counter.steps = Math.min(uri.length, this.#literal.length) + 1;
      return uri === this.#literal ? {} : null;
    }
    const scan = this.#spare ?? new Scan(this.#names.length, this.#kmp.length);
    this.#spare = null;
    scan.reset(uri);
    const matched = this.#run(scan);
    if (counter !== null) counter.steps = scan.steps;
    let result: UriTemplateMatch | null = null;
    if (matched) {
      result = {};
      for (let slot = 0; slot < this.#names.length; slot++) {
        const value = scan.values[slot];
        if (value === undefined) continue;
        const name = this.#names[slot]!;
        if (name === '__proto__') Object.defineProperty(result, name, { value, enumerable: true, writable: true, configurable: true });
        else result[name] = value;
      }
    }
    scan.release();
    this.#spare = scan;
    return result;
  }

  #run(scan: Scan): boolean {
    const uri = scan.uri;
    const kmp = this.#kmp;
    let pos = 0;
    for (const step of this.#steps) {
      if (step.kind === 0) {
        scan.steps += step.text.length;
        if (!uri.startsWith(step.text, pos)) return false;
        pos += step.text.length;
      } else {
        pos = matchExpression(step, scan, pos, kmp);
        if (pos < 0) return false;
      }
    }
    return pos === scan.n;
  }
}
