/**
 * Reading JSONC (JSON with comments and trailing commas) from hostile files, shared by the
 * `mcpServers` config reader and the installer: a linear shape check that runs before
 * anything recursive, and a parse into plain objects whose keys are own properties
 * (`__proto__` is a key like any other) that records the key paths occurring twice.
 */
import * as jsoncModule from 'jsonc-parser';

/**
 * jsonc-parser as both module systems give it: Node loads its UMD build (a CommonJS module,
 * seen as a default export), a browser bundler its ES build (named exports only).
 */
export const jsonc = ((jsoncModule as unknown as { default?: typeof jsoncModule }).default ?? jsoncModule) as typeof jsoncModule;

/** Which bound {@link checkJsoncShape} found exceeded. */
export type ShapeProblem = { kind: 'depth'; limit: number } | { kind: 'values'; limit: number };

/**
 * One pass over the tokens: calls `refuse` (which throws) when objects and arrays nest deeper
 * than `maxDepth` or the text holds more than `maxValues` values.
 */
export function checkJsoncShape(text: string, maxDepth: number, maxValues: number, refuse: (problem: ShapeProblem) => never): void {
  const scanner = jsonc.createScanner(text, true);
  let depth = 0;
  let values = 0;
  for (let kind = scanner.scan(); kind !== 17 /* EOF */; kind = scanner.scan()) {
    if (kind === 1 || kind === 3 /* { [ */) {
      if (++depth > maxDepth) refuse({ kind: 'depth', limit: maxDepth });
      values++;
    } else if (kind === 2 || kind === 4 /* } ] */) depth--;
    else if (kind >= 7 && kind <= 11 /* null true false string number */) values++;
    if (values > maxValues) refuse({ kind: 'values', limit: maxValues });
  }
}

/**
 * Parses `text` (trailing commas and comments allowed, empty text refused). Duplicate keys
 * are recorded as JSON-encoded paths for objects at most `duplicateDepth` levels down (the
 * top object is level 0). On a syntax error calls `refuse` (which throws) with the first
 * error and its line and column.
 */
export function parseJsonc(
  text: string,
  refuse: (syntaxError: string) => never,
  duplicateDepth = Number.POSITIVE_INFINITY,
): { value: unknown; duplicates: Set<string> } {
  const duplicates = new Set<string>();
  const stack: { container: Record<string, unknown> | unknown[]; path: string[] }[] = [];
  let key = '';
  let root: unknown;
  let error: string | undefined;
  const put = (value: unknown): void => {
    const top = stack.at(-1);
    if (top === undefined) root = value;
    else if (Array.isArray(top.container)) top.container.push(value);
    else {
      if (Object.hasOwn(top.container, key) && top.path.length <= duplicateDepth) duplicates.add(JSON.stringify([...top.path, key]));
      Object.defineProperty(top.container, key, { value, enumerable: true, writable: true, configurable: true });
    }
  };
  const open = (container: Record<string, unknown> | unknown[]): void => {
    const top = stack.at(-1);
    const path = top === undefined ? [] : Array.isArray(top.container) ? [...top.path, String(top.container.length)] : [...top.path, key];
    put(container);
    stack.push({ container, path });
  };
  jsonc.visit(
    text,
    {
      onObjectBegin: () => open({}),
      onObjectProperty: (name) => {
        key = name;
      },
      onObjectEnd: () => void stack.pop(),
      onArrayBegin: () => open([]),
      onArrayEnd: () => void stack.pop(),
      onLiteralValue: (value) => put(value),
      onError: (code, _offset, _length, line, column) => {
        error ??= `${jsonc.printParseErrorCode(code)} at line ${line + 1}, column ${column + 1}`;
      },
    },
    { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false },
  );
  if (error !== undefined) refuse(error);
  return { value: root, duplicates };
}
