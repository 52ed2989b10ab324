/**
 * The YAML frontmatter of a `SKILL.md`: splitting it from the body, parsing it, and
 * rendering a frontmatter object as YAML.
 *
 * Design note: skills carry small, flat frontmatter (name, description, license, a
 * `metadata` map, an `allowed-tools` list), so this reads the subset of YAML 1.2 such
 * frontmatter uses instead of depending on a YAML library: block mappings and sequences
 * by indentation, flow sequences and mappings, plain / single-quoted / double-quoted
 * scalars (multi-line plain scalars folded), literal (`|`) and folded (`>`) block scalars
 * with chomping indicators, comments, and the core schema's null, booleans and numbers.
 * Anchors, aliases, tags, directives and multiple documents are refused with a
 * {@link FrontmatterError} naming the line, never guessed at: a host that cannot read a
 * frontmatter cannot verify it, and must not load the skill. {@link renderFrontmatter}
 * writes only what {@link parseFrontmatter} reads back identically.
 */

/**
 * Characters the parser has visited (every scan, trim, slice and regular expression run
 * is charged the length it reads), for tests that assert the work grows linearly with
 * the input. Reset it before a parse.
 * @internal
 */
export const parseWork = { steps: 0 };

/** Charges `n` characters (plus one for the call) to {@link parseWork}. */
function visit(n: number): void {
  parseWork.steps += n + 1;
}

/** A frontmatter value: what JSON can hold. */
export type FrontmatterValue = string | number | boolean | null | FrontmatterValue[] | { [key: string]: FrontmatterValue };

/** A YAML frontmatter block that cannot be read (outside the subset, or malformed). `line` is 1-based within the file. */
export class FrontmatterError extends Error {
  readonly line: number | undefined;
  constructor(message: string, line?: number) {
    super(line === undefined ? message : `${message} (line ${line})`);
    this.name = 'FrontmatterError';
    this.line = line;
  }
}

/** A `SKILL.md` split into its frontmatter (the raw YAML between the `---` lines) and the Markdown after it. */
export interface SplitSkillMd {
  yaml: string;
  body: string;
  /** Lines before the YAML (the opening `---`), to report 1-based file lines. */
  offset: number;
}

const OPEN = /^---[ \t]*\r?\n/;

/**
 * Splits a `SKILL.md` (a leading BOM is ignored) into its frontmatter and body; undefined
 * when it does not begin with a `---` line closed by another `---` line. Pure.
 */
export function splitSkillMd(text: string): SplitSkillMd | undefined {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  visit(t.length);
  const open = OPEN.exec(t);
  if (!open) return undefined;
  const rest = t.slice(open[0].length);
  const close = /(^|\r?\n)---[ \t]*(\r?\n|$)/.exec(rest);
  if (!close) return undefined;
  return { yaml: rest.slice(0, close.index), body: rest.slice(close.index + close[0].length), offset: 1 };
}

/**
 * The frontmatter object of a `SKILL.md` and its body. Throws {@link FrontmatterError} when
 * there is no frontmatter block, it is not a mapping, it leaves the supported subset, or it
 * is longer than `maxLength` characters (default {@link MAX_FRONTMATTER_LENGTH}). Pure.
 */
export function parseFrontmatter(text: string, maxLength = MAX_FRONTMATTER_LENGTH): { frontmatter: Record<string, FrontmatterValue>; body: string } {
  const split = splitSkillMd(text);
  if (split === undefined) throw new FrontmatterError('SKILL.md does not begin with a --- delimited YAML frontmatter block');
  const value = parseYamlSubset(split.yaml, split.offset, maxLength);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FrontmatterError('the frontmatter is not a YAML mapping');
  return { frontmatter: value, body: split.body };
}

interface Line {
  indent: number;
  text: string;
  /** 1-based line number in the file. */
  no: number;
}

/** Deepest nesting of collections read (a deeper frontmatter is refused). */
const MAX_DEPTH = 64;

/** Default of `maxLength`: the longest frontmatter read, in characters (64 KiB). */
export const MAX_FRONTMATTER_LENGTH = 65_536;

/**
 * Parses the YAML subset described above; `offset` lines precede `yaml` in the file.
 * Refuses (FrontmatterError) YAML longer than `maxLength` characters (default
 * {@link MAX_FRONTMATTER_LENGTH}) and collections nested deeper than 64 levels, so reading
 * a hostile file stays cheap. Pure.
 */
export function parseYamlSubset(yaml: string, offset = 0, maxLength = MAX_FRONTMATTER_LENGTH): FrontmatterValue {
  if (yaml.length > maxLength) throw new FrontmatterError(`the frontmatter is longer than ${maxLength} characters`);
  visit(yaml.length);
  const raw = yaml.split(/\r?\n/);
  const lines: Line[] = raw.map((text, i) => {
    let indent = 0;
    while (text.charCodeAt(indent) === 32) indent++;
    visit(indent);
    if (text[indent] === '\t') throw new FrontmatterError('tabs cannot indent YAML', i + 1 + offset);
    return { indent, text, no: i + 1 + offset };
  });
  const parser = new Parser(lines);
  parser.skipBlank();
  if (parser.done) return null;
  const value = parser.block(parser.peek().indent);
  parser.skipBlank();
  if (!parser.done) throw new FrontmatterError('unexpected content', parser.peek().no);
  return value;
}

const isBlank = (l: Line) => {
  visit(l.text.length);
  const t = l.text.trimStart();
  return t === '' || t.startsWith('#');
};

class Parser {
  readonly #lines: Line[];
  #i = 0;
  #depth = 0;
  constructor(lines: Line[]) {
    this.#lines = lines;
  }
  get done(): boolean {
    return this.#i >= this.#lines.length;
  }
  peek(): Line {
    return this.#lines[this.#i]!;
  }
  skipBlank(): void {
    while (!this.done && isBlank(this.peek())) this.#i++;
  }

  /** A block node whose lines start at `indent`: a sequence, a mapping, or a lone scalar. */
  block(indent: number): FrontmatterValue {
    if (++this.#depth > MAX_DEPTH) throw new FrontmatterError(`collections nest deeper than ${MAX_DEPTH} levels`, this.peek().no);
    try {
      return this.#node(indent);
    } finally {
      this.#depth--;
    }
  }

  #node(indent: number): FrontmatterValue {
    const first = this.peek();
    const content = first.text.slice(indent);
    visit(content.length);
    if (content === '-' || content.startsWith('- ')) return this.#sequence(indent);
    if (mappingKey(content) !== undefined) return this.#mapping(indent);
    this.#i++;
    return this.#inlineValue(content, first.no, indent - 1);
  }

  #sequence(indent: number): FrontmatterValue[] {
    const out: FrontmatterValue[] = [];
    for (;;) {
      this.skipBlank();
      if (this.done) return out;
      const line = this.peek();
      if (line.indent < indent) return out;
      const content = line.text.slice(indent);
      visit(content.length);
      const isItem = content === '-' || content.startsWith('- ');
      if (line.indent === indent && !isItem) return out; // the enclosing mapping's next key
      if (line.indent !== indent) throw new FrontmatterError('bad indentation in a sequence', line.no);
      let skip = 1;
      while (content.charCodeAt(skip) === 32) skip++;
      const rest = content.slice(skip);
      visit(content.length);
      if (rest === '-' || rest.startsWith('- ')) throw new FrontmatterError("a sequence starting on its parent item's line is not supported", line.no);
      if (rest === '' || rest.startsWith('#')) {
        this.#i++;
        out.push(this.#nested(indent));
      } else if (mappingKey(rest) !== undefined && !/^["'[{]/.test(rest)) {
        // "- key: value": a mapping whose first line shares the dash's line
        const inner = indent + (content.length - rest.length);
        this.#lines[this.#i] = { indent: inner, text: ' '.repeat(inner) + rest, no: line.no };
        out.push(this.#mapping(inner));
      } else {
        this.#i++;
        out.push(this.#inlineValue(rest, line.no, indent));
      }
    }
  }

  #mapping(indent: number): Record<string, FrontmatterValue> {
    const out: Record<string, FrontmatterValue> = {};
    for (;;) {
      this.skipBlank();
      if (this.done) return out;
      const line = this.peek();
      if (line.indent < indent) return out;
      if (line.indent > indent) throw new FrontmatterError('bad indentation in a mapping', line.no);
      const content = line.text.slice(indent);
      visit(content.length);
      const found = mappingKey(content);
      if (found === undefined) throw new FrontmatterError('expected "key: value"', line.no);
      const key = found.key;
      checkKey(key, line.no);
      if (Object.hasOwn(out, key)) throw new FrontmatterError(`duplicate key "${key}"`, line.no);
      this.#i++;
      const rest = found.rest;
      let value: FrontmatterValue;
      if (rest === '' || rest.startsWith('#')) value = this.#nested(indent, true);
      else value = this.#inlineValue(rest, line.no, indent);
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    }
  }

  /** The node after a `key:` or `-` with nothing on its line: more indented lines, else null. */
  #nested(indent: number, allowSameIndentSequence = false): FrontmatterValue {
    this.skipBlank();
    if (this.done) return null;
    const next = this.peek();
    const content = next.text.slice(next.indent);
    visit(content.length);
    if (next.indent > indent) return this.block(next.indent);
    if (allowSameIndentSequence && next.indent === indent && (content === '-' || content.startsWith('- '))) return this.#sequence(indent);
    return null;
  }

  /** A value that starts on a line after `key:` / `- `; continuation lines must be indented past `parent`. */
  #inlineValue(text: string, no: number, parent: number): FrontmatterValue {
    const t = stripComment(text).trim();
    visit(text.length);
    if (/^[&*!]/.test(t)) throw new FrontmatterError('anchors, aliases and tags are not supported', no);
    if (t.startsWith('|') || t.startsWith('>')) return this.#blockScalar(t, no, parent);
    if (t.startsWith('"') || t.startsWith("'")) return this.#quoted(text.trim(), no, parent);
    if (t.startsWith('[') || t.startsWith('{')) {
      const flow = new FlowReader(t, no);
      const value = flow.value();
      flow.end();
      return value;
    }
    // a plain scalar may continue on more indented lines (folded with single spaces)
    const parts = [t];
    while (!this.done) {
      const line = this.peek();
      visit(line.text.length * 3);
      if (line.text.trim() === '') break;
      if (line.indent <= parent || mappingKey(line.text.slice(line.indent)) !== undefined) break;
      parts.push(stripComment(line.text).trim());
      this.#i++;
    }
    return parts.length === 1 ? plainScalar(t) : parts.join(' ');
  }

  #quoted(first: string, no: number, parent: number): string {
    let text = first;
    visit(first.length);
    // a quoted scalar may span lines: gather them until the closing quote
    let scan = scanQuote(text, 1);
    while (scan.end < 0) {
      if (this.done) throw new FrontmatterError('unterminated quoted string', no);
      const line = this.peek();
      visit(line.text.length * 2);
      if (line.text.trim() !== '' && line.indent <= parent) throw new FrontmatterError('unterminated quoted string', no);
      text += '\n' + line.text.trim();
      this.#i++;
      scan = scanQuote(text, scan.next);
    }
    const end = scan.end;
    const after = text.slice(end + 1).trim();
    visit(text.length - end);
    if (after !== '' && !after.startsWith('#')) throw new FrontmatterError('unexpected text after a quoted string', no);
    const inner = foldQuotedLines(text.slice(1, end));
    return text[0] === '"' ? unescapeDouble(inner, no) : unquoteSingle(inner);
  }

  #blockScalar(header: string, no: number, parent: number): string {
    const m = /^([|>])([+-]?)([1-9]?)([+-]?)$/.exec(header);
    if (!m) throw new FrontmatterError('malformed block scalar header', no);
    const folded = m[1] === '>';
    const chomp = m[2] || m[4];
    const body: string[] = [];
    let indent = m[3] ? parent + Number(m[3]) : -1;
    while (!this.done) {
      const line = this.peek();
      visit(line.text.length * 2);
      if (line.text.trim() === '') {
        body.push('');
        this.#i++;
        continue;
      }
      if (indent < 0) indent = line.indent;
      if (line.indent < indent || line.indent <= parent) break;
      body.push(line.text.slice(indent));
      this.#i++;
    }
    // trailing blank lines belong to the chomping, not the content
    let trailing = 0;
    while (body.length > 0 && body[body.length - 1] === '') {
      body.pop();
      trailing++;
    }
    let text: string;
    if (!folded) text = body.join('\n');
    else {
      // folding: a break between two lines of text is a space, each empty line one newline;
      // breaks around more-indented lines are kept
      text = body[0] ?? '';
      for (let i = 1; i < body.length; i++) {
        const line = body[i]!;
        visit(line.length);
        const prev = body[i - 1]!;
        if (line === '') text += '\n';
        else if (line.startsWith(' ') || prev.startsWith(' ')) text += '\n' + line;
        else text += (prev === '' ? '' : ' ') + line;
      }
    }
    if (body.length === 0) return chomp === '+' ? '\n'.repeat(trailing) : '';
    if (chomp === '-') return text;
    if (chomp === '+') return text + '\n' + '\n'.repeat(trailing);
    return text + '\n';
  }
}

/** `key: rest` of a mapping line (plain or quoted key), or undefined when the line is not one. */
function mappingKey(content: string): { key: string; rest: string } | undefined {
  visit(content.length);
  if (content.startsWith('"') || content.startsWith("'")) {
    const end = closingQuote(content);
    if (end < 0 || content[end + 1] !== ':' || !(content.length === end + 2 || content[end + 2] === ' ')) return undefined;
    const inner = content.slice(1, end);
    return { key: content[0] === '"' ? unescapeDouble(inner, undefined) : unquoteSingle(inner), rest: content.slice(end + 2).trim() };
  }
  if (/^[-?:,[\]{}#&*!|>%@`]/.test(content) && !/^-[^ ]/.test(content)) return undefined;
  // the key ends at the first ": " (or a final ":"); a " #" before it starts a comment
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (c === '#' && i > 0 && (content[i - 1] === ' ' || content[i - 1] === '\t')) return undefined;
    if (c === ':' && (i + 1 === content.length || content[i + 1] === ' ' || content[i + 1] === '\t')) {
      const key = content.slice(0, i).trimEnd();
      return key === '' ? undefined : { key, rest: content.slice(i + 1).trim() };
    }
  }
  return undefined;
}

/** Index of the quote closing the quoted scalar `text` starts with; -1 when it is not closed. */
function closingQuote(text: string): number {
  return scanQuote(text, 1).end;
}

/**
 * Scans the quoted scalar `text` starts with from index `from` for its closing quote:
 * `end` is its index (-1 when not found) and `next` where to resume once more text is
 * appended (past an escape that reached the end). Linear in what it scans.
 */
function scanQuote(text: string, from: number): { end: number; next: number } {
  const q = text[0];
  let i = from;
  for (; i < text.length; i++) {
    const c = text[i];
    if (q === '"' && c === '\\') i++;
    else if (c === q) {
      if (q === "'" && text[i + 1] === "'") i++;
      else {
        visit(i - from);
        return { end: i, next: i };
      }
    }
  }
  visit(i - from);
  return { end: -1, next: i };
}

function stripComment(text: string): string {
  visit(text.length);
  const i = text.search(/(^|[ \t])#/);
  return i < 0 ? text : text.slice(0, i);
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};

function unescapeDouble(text: string, no: number | undefined): string {
  visit(text.length);
  return text.replace(/\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/gs, (_m, e: string) => {
    if (e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    const out = ESCAPES[e];
    if (out === undefined) throw new FrontmatterError(`unknown escape \\${e}`, no);
    return out;
  });
}

/** A plain scalar under the core schema: null, booleans, numbers, else the string itself. */
function plainScalar(t: string): FrontmatterValue {
  visit(t.length * 8);
  if (t === '' || t === '~' || t === 'null' || t === 'Null' || t === 'NULL') return null;
  if (t === 'true' || t === 'True' || t === 'TRUE') return true;
  if (t === 'false' || t === 'False' || t === 'FALSE') return false;
  if (/^[-+]?[0-9]+$/.test(t)) return Number(t);
  if (/^0o[0-7]+$/.test(t)) return parseInt(t.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(t)) return parseInt(t.slice(2), 16);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(t)) return Number(t);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(t) || /^\.(nan|NaN|NAN)$/.test(t)) throw new FrontmatterError(`${t} has no JSON form`);
  return t;
}

const PLAIN_FLOW = /[^,[\]{}]*/y;
const FLOW_KEY = /[^:,[\]{}]*/y;

/** The index of the quote closing the quoted scalar starting at `start` of `text`; -1 when none. */
function scanQuoteAt(text: string, start: number): number {
  const q = text[start];
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (q === '"' && c === '\\') i++;
    else if (c === q) {
      if (q === "'" && text[i + 1] === "'") i++;
      else {
        visit(i - start);
        return i;
      }
    }
  }
  visit(text.length - start);
  return -1;
}

/**
 * Folds the line breaks of a multi-line quoted scalar's content (YAML 1.2 § 7.3): the
 * spaces and tabs around a break are dropped, a single break becomes a space and n > 1
 * breaks become n - 1 newlines. One pass, linear.
 */
function foldQuotedLines(text: string): string {
  visit(text.length);
  if (!text.includes('\n')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    // the run of spaces and tabs starting here, and whether a break follows it
    let j = i;
    while (j < text.length && (text[j] === ' ' || text[j] === '\t')) j++;
    if (j < text.length && text[j] === '\n') {
      let breaks = 0;
      while (j < text.length && (text[j] === ' ' || text[j] === '\t' || text[j] === '\n')) {
        if (text[j] === '\n') breaks++;
        j++;
      }
      out += breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
      i = j;
    } else if (j > i) {
      out += text.slice(i, j);
      i = j;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

/** The content of a single-quoted scalar with its doubled quotes undone. */
function unquoteSingle(text: string): string {
  visit(text.length);
  return text.split("''").join("'");
}

/** Reads one flow collection (`[...]` or `{...}`) from a single line. */
class FlowReader {
  #pos = 0;
  #depth = 0;
  constructor(
    readonly text: string,
    readonly no: number,
  ) {}

  #ws(): void {
    const from = this.#pos;
    while (this.text[this.#pos] === ' ' || this.text[this.#pos] === '\t') this.#pos++;
    visit(this.#pos - from);
  }

  end(): void {
    this.#ws();
    if (this.#pos < this.text.length) throw new FrontmatterError('unexpected text after a flow collection', this.no);
  }

  value(): FrontmatterValue {
    this.#ws();
    const c = this.text[this.#pos];
    if (c === '[' || c === '{') {
      if (++this.#depth > MAX_DEPTH) throw new FrontmatterError(`collections nest deeper than ${MAX_DEPTH} levels`, this.no);
      const v = c === '[' ? this.#seq() : this.#map();
      this.#depth--;
      return v;
    }
    if (c === '"' || c === "'") return this.#quoted();
    PLAIN_FLOW.lastIndex = this.#pos;
    const m = PLAIN_FLOW.exec(this.text)!;
    visit(m[0].length);
    this.#pos += m[0].length;
    return plainScalar(m[0].trim());
  }

  #quoted(): string {
    const start = this.#pos;
    const end = scanQuoteAt(this.text, start);
    if (end < 0) throw new FrontmatterError('unterminated quoted string', this.no);
    this.#pos = end + 1;
    const inner = this.text.slice(start + 1, end);
    return this.text[start] === '"' ? unescapeDouble(inner, this.no) : unquoteSingle(inner);
  }

  #seq(): FrontmatterValue[] {
    this.#pos++;
    const out: FrontmatterValue[] = [];
    for (;;) {
      this.#ws();
      if (this.text[this.#pos] === ']') {
        this.#pos++;
        return out;
      }
      out.push(this.value());
      this.#ws();
      const c = this.text[this.#pos++];
      if (c === ']') return out;
      if (c !== ',') throw new FrontmatterError('malformed flow sequence', this.no);
    }
  }

  #map(): Record<string, FrontmatterValue> {
    this.#pos++;
    const out: Record<string, FrontmatterValue> = {};
    for (;;) {
      this.#ws();
      if (this.text[this.#pos] === '}') {
        this.#pos++;
        return out;
      }
      let key: string;
      if (this.text[this.#pos] === '"' || this.text[this.#pos] === "'") key = this.#quoted();
      else {
        FLOW_KEY.lastIndex = this.#pos;
        const m = FLOW_KEY.exec(this.text)!;
        visit(m[0].length);
        this.#pos += m[0].length;
        key = m[0].trim();
      }
      this.#ws();
      if (this.text[this.#pos++] !== ':') throw new FrontmatterError('malformed flow mapping', this.no);
      // a key given twice is refused, as in block mappings (a later value must not silently win)
      checkKey(key, this.no);
      if (Object.hasOwn(out, key)) throw new FrontmatterError(`duplicate key "${key}"`, this.no);
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.#ws();
      const c = this.text[this.#pos++];
      if (c === '}') return out;
      if (c !== ',') throw new FrontmatterError('malformed flow mapping', this.no);
    }
  }
}

// ───────────── rendering ─────────────

const SAFE_PLAIN = /^[A-Za-z_\p{L}][\p{L}\p{N} _.,;()/+=@$%^~-]*$/u;

function renderScalar(value: string | number | boolean | null): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('frontmatter numbers must be finite');
    return String(value);
  }
  // plain when it reads back as this very string; JSON's double-quoted form otherwise
  if (SAFE_PLAIN.test(value) && !value.endsWith(' ') && plainScalar(value) === value) return value;
  return JSON.stringify(value).replace(/[\u2028\u2029\u0085]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function renderKey(key: string): string {
  return SAFE_PLAIN.test(key) && !key.endsWith(' ') && plainScalar(key) === key ? key : renderScalar(key).replace(/^(?!")(.*)$/, '"$1"');
}

function renderNode(value: FrontmatterValue, indent: string, out: string[], prefix: string): void {
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push(`${prefix} []`);
      return;
    }
    out.push(prefix);
    for (const item of value) {
      if (item !== null && typeof item === 'object') renderNode(item, indent + '  ', out, `${indent}-`);
      else out.push(`${indent}- ${renderScalar(item)}`);
    }
    return;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) {
      out.push(`${prefix} {}`);
      return;
    }
    out.push(prefix);
    for (const key of keys) renderEntry(key, value[key]!, indent, out);
    return;
  }
  out.push(`${prefix} ${renderScalar(value)}`);
}

function renderEntry(key: string, value: FrontmatterValue, indent: string, out: string[]): void {
  renderNode(value, indent + '  ', out, `${indent}${renderKey(key)}:`);
}

/**
 * The frontmatter object as YAML lines (no `---` delimiters), each member in insertion
 * order; {@link parseFrontmatter} reads it back deep-equal. Throws TypeError for a value
 * JSON cannot hold (non-finite numbers, undefined). Pure.
 */
export function renderFrontmatter(frontmatter: Readonly<Record<string, FrontmatterValue>>): string {
  const out: string[] = [];
  for (const key of Object.keys(frontmatter)) {
    const value = frontmatter[key];
    if (value === undefined) throw new TypeError(`frontmatter member "${key}" is undefined`);
    renderEntry(key, value, '', out);
  }
  // "- key: value" items render as "-\n  key: value"; both read the same
  return out.join('\n') + '\n';
}

/** A whole `SKILL.md`: the frontmatter between `---` lines, then `body`. Pure. */
export function renderSkillMd(frontmatter: Readonly<Record<string, FrontmatterValue>>, body: string): string {
  return `---\n${renderFrontmatter(frontmatter)}---\n${body}`;
}

/** Deep equality of two frontmatter values (member order ignored, as JSON objects compare). Pure. */
export function sameFrontmatterValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => sameFrontmatterValue(v, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && sameFrontmatterValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/**
 * Per-field differences between two frontmatter objects, one line per member that
 * differs (an absent member counts as null, as hosts compare). Empty when they agree. Pure.
 */
export function frontmatterDifferences(expected: Readonly<Record<string, unknown>>, actual: Readonly<Record<string, unknown>>): string[] {
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  const out: string[] = [];
  for (const key of keys) {
    const e = Object.hasOwn(expected, key) ? expected[key] : null;
    const a = Object.hasOwn(actual, key) ? actual[key] : null;
    if (!sameFrontmatterValue(e ?? null, a ?? null)) out.push(`${key}: entry ${JSON.stringify(e ?? null)}, file ${JSON.stringify(a ?? null)}`);
  }
  return out;
}

/**
 * A key holding a control, format (zero-width, bidi, BOM), invisible or unassigned character
 * is refused: `na\u200bme` would be shown as a second `name` (a duplicate key in disguise).
 */
const HIDDEN_IN_KEY = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

function checkKey(key: string, line: number): void {
  if (HIDDEN_IN_KEY.test(key))
    throw new FrontmatterError(`the key ${JSON.stringify(key)} holds control or invisible characters (a look-alike of another key?)`, line);
}
