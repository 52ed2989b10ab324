/**
 * Test oracle: checks a JSON-RPC message against the official JSON Schema of one protocol
 * revision (`spec/schema/<revision>/schema.json` in the repository, see spec/README.md).
 *
 * Design note: the schema files differ between revisions — draft-07 with `definitions`
 * up to 2025-06-18, 2020-12 with `$defs` from 2025-11-25; the error response is
 * `JSONRPCError` or `JSONRPCErrorResponse`; the result envelope is `JSONRPCResponse` or
 * `JSONRPCResultResponse`; 2026-07-28 has no `ServerRequest` union and adds per-method
 * `*ResultResponse` definitions. Nothing here hard-codes a method list: which methods a
 * revision has, and in which direction, is read from its `ClientRequest`/`ServerRequest`/
 * `ClientNotification`/`ServerNotification` unions; the result type of a method comes from
 * its `*ResultResponse` definition when the revision has one, else from the naming rule
 * `FooRequest` → `FooResult`, else `EmptyResult`. One ajv instance per revision holds the
 * whole file; one compiled validator per definition is cached.
 *
 * Deliberate departures from a literal reading of the schema, each following the spec text:
 * - an error response with `id: null` is accepted (JSON-RPC 2.0 requires it when the
 *   request's id could not be read; the MCP schemas type ids as string or integer only);
 * - a 2026-era result with `resultType: "input_required"` is checked as
 *   `InputRequiredResult`, any other as the method's own result (the official union would
 *   let a malformed final result pass as an input-required one);
 * - a result with `resultType: "task"` in a revision without `CreateTaskResult` belongs to
 *   the tasks extension, whose shape is not in the core schema: it is checked as `Result`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isRequestId, type RequestId } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';

/** The revision to assume before a stateful session has negotiated one. */
export const DEFAULT_STATEFUL_REVISION = '2025-11-25';

/** Which peer sent a message. */
export type WireSide = 'client' | 'server';

/** What one answered request contributes to checking its result. */
export interface AnsweredRequest {
  /** The method of the request. */
  method: string;
  /** The request asked for task-augmented execution (`params.task` was an object). */
  taskAugmented?: boolean;
}

/** Extra knowledge for {@link validateWireMessage}; every field is optional. */
export interface WireContext {
  /** For a result response: the method of the request it answers. */
  method?: string;
  /** For a result response: the answered request asked for task-augmented execution. */
  taskAugmented?: boolean;
  /**
   * For a batch of responses (or when `method` is absent): the answered requests by id.
   * Consulted per response element.
   */
  requests?: ReadonlyMap<RequestId, AnsweredRequest>;
  /**
   * Who sent the message. When given, a request or notification must belong to that
   * side's union (`ClientRequest`, `ServerNotification`, …) and a result is looked up
   * among the other side's requests.
   */
  sender?: WireSide;
}

/** A JSON Schema object as found in the spec files. */
export type SchemaNode = { readonly [key: string]: unknown };

/** One loaded revision schema. */
export interface RevisionSchema {
  /** The revision, e.g. `2025-11-25`. */
  readonly revision: string;
  /** Absolute path of the file it was read from. */
  readonly path: string;
  /** The file's `$schema` (dialect) URI. */
  readonly dialect: string;
  /** Where the file keeps its definitions. */
  readonly defsKey: 'definitions' | '$defs';
  /** The definitions, by name. */
  readonly definitions: Readonly<Record<string, SchemaNode>>;
  /** The parsed file. */
  readonly document: SchemaNode;
}

const REVISION_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const MAX_ERRORS_PER_CHECK = 20;
const UNION_NAMES = new Set(['ClientRequest', 'ServerRequest', 'ClientNotification', 'ServerNotification', 'ClientResult', 'ServerResult']);

let schemaRoot: string | undefined;
const loaded = new Map<string, RevisionValidator>();
const present = new Map<string, boolean>();

/**
 * The folder holding `<revision>/schema.json`: `spec/schema` in the repository root,
 * found by walking up from this module to the first folder with a `package.json`. Throws
 * when no such folder exists.
 */
export function specSchemaRoot(): string {
  if (schemaRoot !== undefined) return schemaRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) break;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('wire-schema: no package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  schemaRoot = join(dir, 'spec', 'schema');
  return schemaRoot;
}

/** True when `revision` is a date-shaped revision whose schema file exists. Never throws. */
export function hasRevisionSchema(revision: string): boolean {
  let known = present.get(revision);
  if (known === undefined) {
    try {
      known = REVISION_PATTERN.test(revision) && existsSync(join(specSchemaRoot(), revision, 'schema.json'));
    } catch {
      known = false;
    }
    present.set(revision, known);
  }
  return known;
}

/**
 * Reads (once; later calls return the cached object) the official schema of `revision`.
 * Throws an `Error` when the revision is not date-shaped, its file is missing or
 * unreadable, or it declares a JSON Schema dialect ajv does not implement.
 */
export function loadRevisionSchema(revision: string): RevisionSchema {
  return validatorFor(revision).schema;
}

/**
 * Checks `value` against the definition `name` of `revision` (for example a `Tool` or a
 * `CallToolResult` on its own). Returns readable violations, empty when valid. Throws like
 * {@link loadRevisionSchema}, and when the revision has no such definition.
 */
export function validateDefinition(revision: string, name: string, value: unknown): string[] {
  const v = validatorFor(revision);
  if (!v.has(name)) throw new Error(`wire-schema: revision ${revision} has no definition ${name}`);
  const out: string[] = [];
  v.check(name, value, '', name, out);
  return out;
}

/**
 * Checks one JSON-RPC message (or a batch array, element by element) as sent on the wire
 * under `revision`: the envelope, then the definition for its kind — a request or
 * notification by its method, a result response by the method it answers
 * (`context.method`, or `context.requests` by id; without either only the generic `Result`
 * is checked), an error response as the revision's error response. A method the revision
 * does not define is reported. Returns readable violations, empty when valid. Throws like
 * {@link loadRevisionSchema} for an unknown revision; never throws for a bad message.
 */
export function validateWireMessage(revision: string, message: unknown, context: WireContext = {}): string[] {
  const v = validatorFor(revision);
  const out: string[] = [];
  if (Array.isArray(message)) v.batch(message, context, out);
  else v.message(message, context, '', out);
  return out;
}

function validatorFor(revision: string): RevisionValidator {
  let v = loaded.get(revision);
  if (v === undefined) {
    v = new RevisionValidator(readRevision(revision));
    loaded.set(revision, v);
  }
  return v;
}

function readRevision(revision: string): RevisionSchema {
  if (!REVISION_PATTERN.test(revision)) throw new Error(`wire-schema: "${revision}" is not a protocol revision`);
  const path = join(specSchemaRoot(), revision, 'schema.json');
  if (!existsSync(path)) throw new Error(`wire-schema: no schema for revision ${revision} at ${path}`);
  const document = JSON.parse(readFileSync(path, 'utf8')) as SchemaNode;
  const defsKey = isObject(document['$defs']) ? '$defs' : 'definitions';
  const definitions = document[defsKey];
  if (!isObject(definitions)) throw new Error(`wire-schema: ${path} has neither $defs nor definitions`);
  const dialect = typeof document['$schema'] === 'string' ? document['$schema'] : 'http://json-schema.org/draft-07/schema#';
  return { revision, path, dialect, defsKey, definitions: definitions as Record<string, SchemaNode>, document };
}

type Kind = 'request' | 'notification' | 'result' | 'error' | 'unknown';

function kindOf(m: SchemaNode): Kind {
  if ('method' in m) return 'id' in m ? 'request' : 'notification';
  if ('error' in m) return 'error';
  if ('result' in m) return 'result';
  return 'unknown';
}

interface AjvLike {
  addSchema(schema: object, key: string): unknown;
  compile(schema: object): ValidateFunction;
}

/** Everything derived from one revision's schema: the ajv instance, method tables, validators. */
class RevisionValidator {
  readonly schema: RevisionSchema;
  #ajv: AjvLike;
  #base: string;
  #compiled = new Map<string, ValidateFunction>();
  #requests: Record<WireSide, Map<string, string>>;
  #notifications: Record<WireSide, Map<string, string>>;
  #batches: boolean;
  #envelope: { request: string; notification: string; result: string; error: string };

  constructor(schema: RevisionSchema) {
    this.schema = schema;
    this.#ajv = newAjv(schema);
    this.#base = `https://mcpkit.invalid/spec/${schema.revision}/schema.json`;
    this.#ajv.addSchema(schema.document, this.#base);
    const defs = schema.definitions;
    const byMethod = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) {
      const m = methodConst(def);
      if (m !== undefined && !UNION_NAMES.has(name) && !byMethod.has(m)) byMethod.set(m, name);
    }
    const table = (union: string): Map<string, string> => {
      const map = new Map<string, string>();
      for (const name of unionMembers(defs, union, byMethod)) {
        const m = methodConst(defs[name]);
        if (m !== undefined) map.set(m, name);
      }
      return map;
    };
    this.#requests = { client: table('ClientRequest'), server: table('ServerRequest') };
    this.#notifications = { client: table('ClientNotification'), server: table('ServerNotification') };
    const alternatives = defs['JSONRPCMessage']?.['anyOf'];
    this.#batches = Array.isArray(alternatives) && alternatives.some((a) => isObject(a) && (a['type'] === 'array' || refName(a['$ref']).includes('Batch')));
    this.#envelope = {
      request: 'JSONRPCRequest',
      notification: 'JSONRPCNotification',
      result: 'JSONRPCResultResponse' in defs ? 'JSONRPCResultResponse' : 'JSONRPCResponse',
      error: 'JSONRPCErrorResponse' in defs ? 'JSONRPCErrorResponse' : 'JSONRPCError',
    };
  }

  has(name: string): boolean {
    return Object.hasOwn(this.schema.definitions, name);
  }

  /** Validates `value` against definition `name`; appends violations; true when valid. */
  check(name: string, value: unknown, pathPrefix: string, subject: string, out: string[], ignore?: (e: ErrorObject) => boolean): boolean {
    let fn = this.#compiled.get(name);
    if (fn === undefined) {
      fn = this.#ajv.compile({ $ref: `${this.#base}#/${this.schema.defsKey}/${escapePointer(name)}` });
      this.#compiled.set(name, fn);
    }
    if (fn(value)) return true;
    const errors = (fn.errors ?? []).filter((e) => ignore === undefined || !ignore(e));
    if (errors.length === 0) return true;
    const lines = this.#explain(errors, value, pathPrefix, subject);
    for (const line of lines.slice(0, MAX_ERRORS_PER_CHECK)) out.push(line);
    if (lines.length > MAX_ERRORS_PER_CHECK) out.push(`${subject}: … and ${lines.length - MAX_ERRORS_PER_CHECK} more`);
    return false;
  }

  /**
   * Turns ajv errors into lines. ajv reports every failed alternative of an `anyOf`; when
   * the alternatives are named definitions told apart by `const` properties (a content
   * block's `type`, an input request's `method`), only the alternative the value names is
   * checked again and reported, or one line says that it names none of them.
   */
  #explain(errors: ErrorObject[], value: unknown, pathPrefix: string, subject: string): string[] {
    const regions: string[] = [];
    const unions = errors.filter((e) => e.keyword === 'anyOf').sort((a, b) => a.instancePath.length - b.instancePath.length);
    for (const u of unions) if (!regions.some((r) => within(u.instancePath, r))) regions.push(u.instancePath);
    const lines: string[] = [];
    const done = new Set<string>();
    for (const e of errors) {
      const region = regions.find((r) => within(e.instancePath, r));
      if (region === undefined) {
        lines.push(`${subject}: ${describe(e, pathPrefix)}`);
        continue;
      }
      if (done.has(region)) continue;
      done.add(region);
      const union = unions.find((u) => u.instancePath === region)!;
      const at = pointerGet(value, region);
      const choice = this.#discriminate(union.schema, at);
      if (choice === undefined) {
        for (const r of errors) if (within(r.instancePath, region)) lines.push(`${subject}: ${describe(r, pathPrefix)}`);
      } else if ('branch' in choice) {
        if (this.check(choice.branch, at, pathPrefix + region, subject, lines)) {
          lines.push(`${subject}: ${pathPrefix + region || '/'} must match ${choice.branch}`);
        }
      } else {
        const shown = JSON.stringify((at as SchemaNode)[choice.key]);
        lines.push(`${subject}: ${pathPrefix + region || '/'} must be one of ${choice.names.join(', ')} (its "${choice.key}" is ${shown ?? 'missing'})`);
      }
    }
    return lines;
  }

  /** Which `$ref` alternative of an `anyOf` the object `value` names through `const` properties. */
  #discriminate(alternatives: unknown, value: unknown): { branch: string } | { names: string[]; key: string } | undefined {
    if (!Array.isArray(alternatives) || !isObject(value)) return undefined;
    const names = refsOf({ anyOf: alternatives });
    if (names.length !== alternatives.length) return undefined;
    const consts = names.map((n) => constProperties(this.schema.definitions[n]));
    // Discriminators: properties every alternative pins, to values that differ between them.
    const keys = [...(consts[0]?.keys() ?? [])].filter((k) => consts.every((c) => c.has(k)) && new Set(consts.map((c) => JSON.stringify(c.get(k)))).size > 1);
    if (keys.length === 0) return undefined;
    const required = names.map((n) => this.schema.definitions[n]?.['required']);
    // An absent optional discriminator (an elicitation's `mode?: "form"`) fits its alternative.
    const fits = names.filter((_, i) =>
      keys.every((k) => (Object.hasOwn(value, k) ? value[k] === consts[i]!.get(k) : !(Array.isArray(required[i]) && required[i].includes(k)))),
    );
    if (fits.length === 1) return { branch: fits[0]! };
    return fits.length === 0 ? { names, key: keys[0]! } : undefined;
  }

  batch(items: unknown[], context: WireContext, out: string[]): void {
    const rev = this.schema.revision;
    if (!this.#batches) out.push(`batch: JSON-RPC batches are not part of revision ${rev}`);
    if (items.length === 0) out.push('batch: an empty array is not a valid batch');
    let calls = 0;
    let responses = 0;
    items.forEach((item, i) => {
      if (isObject(item)) {
        const k = kindOf(item);
        if (k === 'request' || k === 'notification') calls++;
        else if (k === 'result' || k === 'error') responses++;
      }
      this.message(item, context, `[${i}] `, out);
    });
    if (calls > 0 && responses > 0) out.push('batch: mixes requests or notifications with responses');
  }

  message(m: unknown, context: WireContext, label: string, out: string[]): void {
    if (!isObject(m)) {
      out.push(`${label}not a JSON-RPC message: expected an object, got ${m === null ? 'null' : Array.isArray(m) ? 'a nested array' : typeof m}`);
      return;
    }
    const kind = kindOf(m);
    switch (kind) {
      case 'request':
      case 'notification':
        this.#call(kind, m, context, label, out);
        return;
      case 'result':
        this.#result(m, context, label, out);
        return;
      case 'error':
        this.#error(m, label, out);
        return;
      default:
        out.push(`${label}not a JSON-RPC message: no method, result or error`);
        this.check('JSONRPCMessage', m, '', `${label}JSONRPCMessage`, out);
    }
  }

  #call(kind: 'request' | 'notification', m: SchemaNode, context: WireContext, label: string, out: string[]): void {
    const envelope = kind === 'request' ? this.#envelope.request : this.#envelope.notification;
    if (!this.check(envelope, m, '', `${label}${envelope}`, out)) return;
    const method = m['method'] as string;
    const tables = kind === 'request' ? this.#requests : this.#notifications;
    const rev = this.schema.revision;
    let def: string | undefined;
    if (context.sender !== undefined) {
      def = tables[context.sender].get(method);
      const other: WireSide = context.sender === 'client' ? 'server' : 'client';
      if (def === undefined && tables[other].has(method)) {
        out.push(`${label}"${method}" is a ${other}-to-${context.sender} ${kind} in revision ${rev}; a ${context.sender} must not send it`);
        return;
      }
    } else {
      def = tables.client.get(method) ?? tables.server.get(method);
    }
    if (def === undefined) {
      out.push(`${label}unknown ${kind} method "${method}" in revision ${rev}`);
      return;
    }
    this.check(def, m, '', `${label}${method} ${kind} (${def})`, out);
  }

  #result(m: SchemaNode, context: WireContext, label: string, out: string[]): void {
    const envelope = this.#envelope.result;
    // The envelope's generic `result` check is left to the method's own, stricter one.
    if (!this.check(envelope, m, '', `${label}${envelope}`, out, underResult)) return;
    if ('error' in m) out.push(`${label}a response must not carry both result and error`);
    const answered =
      context.method !== undefined
        ? { method: context.method, taskAugmented: context.taskAugmented }
        : isRequestId(m['id'])
          ? context.requests?.get(m['id'])
          : undefined;
    if (answered === undefined) {
      this.check('Result', m['result'], '/result', `${label}result (Result; answered method unknown)`, out);
      return;
    }
    const def = this.#resultDefinition(answered, m['result'], context.sender);
    if (def === undefined) {
      out.push(`${label}cannot check the result: unknown request method "${answered.method}" in revision ${this.schema.revision}`);
      this.check('Result', m['result'], '/result', `${label}result (Result)`, out);
      return;
    }
    this.check(def, m['result'], '/result', `${label}${answered.method} result (${def})`, out);
  }

  #resultDefinition(answered: AnsweredRequest, result: unknown, sender: WireSide | undefined): string | undefined {
    const { client, server } = this.#requests;
    // A client answers server requests and vice versa.
    const request =
      sender === 'client'
        ? server.get(answered.method)
        : sender === 'server'
          ? client.get(answered.method)
          : (client.get(answered.method) ?? server.get(answered.method));
    if (request === undefined) return undefined;
    const defs = this.schema.definitions;
    const resultType = isObject(result) ? result['resultType'] : undefined;
    if (answered.taskAugmented === true && this.has('CreateTaskResult')) return 'CreateTaskResult';
    if (resultType === 'task' && !this.has('CreateTaskResult')) return 'Result';
    const base = request.endsWith('Request') ? request.slice(0, -'Request'.length) : request;
    const response = defs[`${base}ResultResponse`];
    if (response !== undefined) {
      const choices = refsOf((response['properties'] as SchemaNode | undefined)?.['result']);
      if (choices.length > 0) {
        const wantsInput = resultType === 'input_required';
        const pick = choices.find((c) => (c === 'InputRequiredResult') === wantsInput);
        return pick ?? choices.find((c) => c !== 'InputRequiredResult') ?? choices[0];
      }
    }
    if (this.has(`${base}Result`)) return `${base}Result`;
    return this.has('EmptyResult') ? 'EmptyResult' : 'Result';
  }

  #error(m: SchemaNode, label: string, out: string[]): void {
    const def = this.#envelope.error;
    // JSON-RPC 2.0 §5: id is null when the request's id could not be determined.
    const subject = m['id'] === null ? { ...m, id: 0 } : m;
    this.check(def, subject, '', `${label}error response (${def})`, out);
    if ('result' in m) out.push(`${label}a response must not carry both result and error`);
  }
}

/** True when JSON pointer `path` is `region` or below it. */
function within(path: string, region: string): boolean {
  return path === region || path.startsWith(region + '/');
}

/** The value at a JSON pointer (as in ajv's `instancePath`), or `undefined`. */
function pointerGet(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let at = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The `const` values a definition pins on its top-level properties. */
function constProperties(def: SchemaNode | undefined): Map<string, unknown> {
  const found = new Map<string, unknown>();
  const props = def?.['properties'];
  if (isObject(props)) for (const [k, p] of Object.entries(props)) if (isObject(p) && 'const' in p) found.set(k, p['const']);
  return found;
}

function underResult(e: ErrorObject): boolean {
  return e.instancePath === '/result' || e.instancePath.startsWith('/result/');
}

function newAjv(schema: RevisionSchema): AjvLike {
  // verbose: errors carry their schema, which #explain needs to name anyOf alternatives.
  const options = { strict: false, allErrors: true, verbose: true };
  const d = schema.dialect;
  let ajv: Ajv | Ajv2019 | Ajv2020;
  if (d.includes('2020-12')) ajv = new Ajv2020(options);
  else if (d.includes('2019-09')) ajv = new Ajv2019(options);
  else if (d.includes('draft-07') || d.includes('draft-06')) ajv = new Ajv(options);
  else throw new Error(`wire-schema: ${schema.path} declares an unsupported dialect ${d}`);
  addFormatsModule.default(ajv as Ajv);
  return ajv;
}

function unionMembers(defs: Readonly<Record<string, SchemaNode>>, union: string, byMethod: Map<string, string>): string[] {
  const def = defs[union];
  if (def === undefined) return [];
  const refs = refsOf(def);
  if (refs.length > 0) return refs;
  // A one-member union may be inlined (2026-07-28 ClientNotification): use the named twin.
  const m = methodConst(def);
  return m === undefined ? [] : [byMethod.get(m) ?? union];
}

/** Definition names referenced by a `$ref` or by an `anyOf`/`oneOf` of `$ref`s. */
function refsOf(node: unknown): string[] {
  if (!isObject(node)) return [];
  if (typeof node['$ref'] === 'string') return [refName(node['$ref'])];
  const alts = node['anyOf'] ?? node['oneOf'];
  if (!Array.isArray(alts)) return [];
  const names: string[] = [];
  for (const a of alts) if (isObject(a) && typeof a['$ref'] === 'string') names.push(refName(a['$ref']));
  return names;
}

function refName(ref: unknown): string {
  if (typeof ref !== 'string') return '';
  const slash = ref.lastIndexOf('/');
  return ref
    .slice(slash + 1)
    .replaceAll('~1', '/')
    .replaceAll('~0', '~');
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

function methodConst(def: SchemaNode | undefined): string | undefined {
  const props = def?.['properties'];
  if (!isObject(props)) return undefined;
  const method = props['method'];
  return isObject(method) && typeof method['const'] === 'string' ? method['const'] : undefined;
}

function describe(e: ErrorObject, pathPrefix: string): string {
  const path = pathPrefix + e.instancePath || '/';
  const p = e.params as Record<string, unknown>;
  let detail = '';
  if (e.keyword === 'additionalProperties') detail = ` (${String(p['additionalProperty'])})`;
  else if (e.keyword === 'const') detail = ` (${JSON.stringify(p['allowedValue'])})`;
  else if (e.keyword === 'enum') detail = ` (${JSON.stringify(p['allowedValues'])})`;
  return `${path} ${e.message ?? e.keyword}${detail}`;
}
