/**
 * Multi round-trip requests (2026-07-28 › Basic › Patterns › MRTR), server side.
 *
 * Design note: a handler asks for elicitation, sampling or roots through the same context
 * methods in both eras. On the stateless wire nothing can be sent to the client mid-request,
 * so the request is re-run instead:
 * - Every input a handler asks for has a key — one it names (`inputKey`) or the next of a
 *   deterministic sequence (`elicitation-1`, `sampling-1`, `roots-1`, …), so a handler that
 *   asks the same things in the same order gets the same keys on every run.
 * - When the answer for a key is known (answered in an earlier round, carried in the
 *   signed `requestState`; or answered now, in `inputResponses`) the call returns it at once.
 *   Otherwise the request is recorded in the {@link InputRound} and the call rejects with
 *   {@link InputRequiredSignal}; calls started in parallel (`Promise.all`) are all recorded
 *   before the first rejection propagates.
 * - Whatever the handler then does (re-throws, turns the rejection into a tool error,
 *   returns something), a round with unanswered inputs ends as an `InputRequiredResult`:
 *   the recorded `inputRequests`, plus a `requestState` carrying every answer used so far.
 *   The client retries with the answers; the handler runs again from the start.
 * - `requestState` is `base64url(payload).base64url(HMAC-SHA-256)`; the MAC also covers the
 *   method, the request's salient params (tool or prompt name and arguments, resource URI,
 *   in canonical JSON) and the principal, none of which are stored: a state presented on a
 *   different request, by a different principal, after its expiry, or altered in any way
 *   is refused with -32602. Crypto is Web Crypto (runtime-neutral) and runs only for
 *   requests that take part in MRTR.
 * Handlers must therefore be safe to run again up to the point where they ask for input.
 */

import { base64url, fromBase64url } from '../../jsonrpc/base64url.js';
import { LocalError, McpError } from '../../jsonrpc/errors.js';
import { hmacKey, secretBytes } from '../../jsonrpc/hmac-secret.js';
import { ErrorCode, type JSONObject } from '../../jsonrpc/types.js';
import { isObject } from '../../jsonrpc/values.js';
import type { InputRequest } from '../../protocol/stateless/wire.js';
import { elicitAnswerProblem, rootsAnswerProblem, samplingAnswerProblem } from '../client-answers.js';

/** How the server protects and bounds `requestState`. */
export interface RequestStateOptions {
  /**
   * The HMAC key. Every server instance that may receive a retry must share it (set it
   * explicitly behind a load balancer); at least 32 bytes of entropy. Default: 32 random
   * bytes per server object, so states do not survive a restart.
   */
  secret?: string | Uint8Array;
  /** How long a state stays valid, in ms. Default 10 minutes. */
  ttlMs?: number;
  /**
   * The principal a state is bound to, from the request's verified auth info (`ctx.authInfo`);
   * a state minted for one principal is refused for another. Default: the auth info's
   * `issuer`, `subject` and `clientId` (the fields of `mcpkit/auth`'s `AuthInfo`), when it
   * has any; requests without auth info are not bound.
   */
  principal?: (authInfo: unknown) => string | undefined;
}

/**
 * Thrown by a context method that needs an input the client has not supplied yet. Handlers
 * need not catch it; if they do, the request still ends as an `InputRequiredResult`.
 */
export class InputRequiredSignal extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`The request needs input "${key}" from the client (multi round-trip request)`);
    this.name = 'InputRequiredSignal';
    this.key = key;
  }
}

const DEFAULT_TTL_MS = 10 * 60_000;
const STATE_VERSION = 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * JSON with object keys sorted at every level: the same text for the same value however
 * its keys were ordered on the wire. Used to bind a state to the request's params.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The params that identify "the same request" for a state: everything but `_meta`, `inputResponses` and `requestState`. */
function salient(params: JSONObject | undefined): string {
  if (params === undefined) return '{}';
  const rest: JSONObject = {};
  for (const key of Object.keys(params)) if (key !== '_meta' && key !== 'inputResponses' && key !== 'requestState') rest[key] = params[key];
  return canonicalJson(rest);
}

interface StatePayload {
  v: number;
  /** Expiry, ms since the epoch. */
  x: number;
  /** Answers gathered in earlier rounds, by input key. */
  a: JSONObject;
}

/**
 * Seals and opens `requestState` values (see the module note). One per server; safe for
 * concurrent use.
 */
export class RequestStateCodec {
  readonly #key: Promise<CryptoKey>;
  readonly #ttlMs: number;
  readonly #principal: ((authInfo: unknown) => string | undefined) | undefined;

  /** Throws RangeError for a non-positive `ttlMs` or a secret shorter than 16 bytes. */
  constructor(options: RequestStateOptions = {}) {
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    if (!(this.#ttlMs > 0)) throw new RangeError('requestState.ttlMs must be positive');
    this.#principal = options.principal ?? defaultPrincipal;
    this.#key = hmacKey(secretBytes(options.secret, 'requestState.secret'), ['sign', 'verify']);
    this.#key.catch(() => {});
  }

  #binding(body: string, method: string, params: JSONObject | undefined, authInfo: unknown): Uint8Array<ArrayBuffer> {
    const principal = this.#principal?.(authInfo) ?? '';
    return encoder.encode(`${body}\n${method}\n${principal}\n${salient(params)}`);
  }

  /** A state carrying `answers`, bound to this request. */
  async seal(answers: JSONObject, method: string, params: JSONObject | undefined, authInfo: unknown): Promise<string> {
    const payload: StatePayload = { v: STATE_VERSION, x: Date.now() + this.#ttlMs, a: answers };
    const body = base64url(encoder.encode(JSON.stringify(payload)));
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await this.#key, this.#binding(body, method, params, authInfo)));
    return `${body}.${base64url(mac)}`;
  }

  /**
   * The answers a state carries. Throws McpError -32602 when the state is malformed, was
   * altered, belongs to another request or principal, or expired.
   */
  async open(state: string, method: string, params: JSONObject | undefined, authInfo: unknown): Promise<JSONObject> {
    const dot = state.indexOf('.');
    const body = dot < 0 ? '' : state.slice(0, dot);
    const mac = dot < 0 ? undefined : fromBase64url(state.slice(dot + 1));
    if (body === '' || mac === undefined || mac.length !== 32) throw badState('it is malformed');
    const ok = await crypto.subtle.verify('HMAC', await this.#key, mac as Uint8Array<ArrayBuffer>, this.#binding(body, method, params, authInfo));
    if (!ok) throw badState('it failed verification (altered, or issued for another request)');
    let payload: StatePayload;
    try {
      payload = JSON.parse(decoder.decode(fromBase64url(body)));
    } catch {
      throw badState('it is malformed');
    }
    if (payload.v !== STATE_VERSION || !isObject(payload.a) || typeof payload.x !== 'number') throw badState('it is malformed');
    if (Date.now() > payload.x) throw badState('it expired');
    return payload.a;
  }
}

function badState(why: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: "requestState" was refused: ${why}`);
}

/**
 * Checks the `inputResponses` of a retry: absent, or an object whose values are objects.
 * Throws McpError -32602 otherwise.
 */
export function checkInputResponses(value: unknown): JSONObject | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "inputResponses" must be an object');
  for (const key of Object.keys(value)) {
    if (!isObject(value[key])) throw new McpError(ErrorCode.InvalidParams, `Invalid params: "inputResponses.${key}" must be an object`);
  }
  return value;
}

/** The default principal of a state: who the verified auth info names (see {@link RequestStateOptions.principal}). */
function defaultPrincipal(authInfo: unknown): string | undefined {
  if (!isObject(authInfo)) return undefined;
  const part = (v: unknown) => (typeof v === 'string' ? v : '');
  const key = `${part(authInfo.issuer)}|${part(authInfo.subject)}|${part(authInfo.clientId)}`;
  return key === '||' ? undefined : key;
}

/** The input key prefixes of the automatic sequence, by method. */
const PREFIX: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/**
 * The inputs of one run of a handler: answers already known, answers arriving now, and the
 * requests still unanswered. Created per request by the stateless layer; not shared.
 */
export class InputRound {
  readonly #prior: JSONObject;
  readonly #responses: JSONObject | undefined;
  readonly #used: JSONObject = {};
  #pending: Map<string, InputRequest> | undefined;
  readonly #counters: Record<string, number> = {};

  constructor(prior: JSONObject, responses: JSONObject | undefined) {
    this.#prior = prior;
    this.#responses = responses;
  }

  /** True when the handler asked for something it did not get. */
  get hasPending(): boolean {
    return this.#pending !== undefined && this.#pending.size > 0;
  }

  /** The unanswered requests, by key. */
  pendingRequests(): Record<string, InputRequest> {
    return this.#pending === undefined ? {} : Object.fromEntries(this.#pending);
  }

  /** Every answer to carry into the next round's state: earlier ones and those used now. */
  carried(): JSONObject {
    return { ...this.#prior, ...this.#used };
  }

  /** The key of the next input: `explicitKey` when given, else the next of the sequence for `method` (one counter per method). */
  key(method: string, explicitKey: string | undefined): string {
    if (explicitKey !== undefined) return explicitKey;
    const prefix = PREFIX[method] ?? 'input';
    const n = (this.#counters[prefix] ?? 0) + 1;
    this.#counters[prefix] = n;
    return `${prefix}-${n}`;
  }

  /**
   * The answer for input `key`: returns it (after `validate`, which throws McpError -32602
   * for a malformed answer) or records `request` and throws {@link InputRequiredSignal}.
   */
  resolve<T>(key: string, request: InputRequest, validate: (answer: unknown, key: string) => T): T {
    if (Object.hasOwn(this.#prior, key)) return this.#prior[key] as T;
    if (this.#responses !== undefined && Object.hasOwn(this.#responses, key)) {
      const answer = validate(this.#responses[key], key);
      this.#used[key] = answer as unknown;
      return answer;
    }
    (this.#pending ??= new Map()).set(key, request);
    throw new InputRequiredSignal(key);
  }
}

/** Validates an `ElicitResult` answer against the form's schema. Throws McpError -32602. */
export function validateElicitAnswer(requestedSchema: unknown): (answer: unknown, key: string) => JSONObject {
  return (answer, key) => refuseProblem(answer, key, elicitAnswerProblem(answer, requestedSchema));
}

/** Validates a `CreateMessageResult` answer. Throws McpError -32602. */
export function validateSamplingAnswer(answer: unknown, key: string): JSONObject {
  return refuseProblem(answer, key, samplingAnswerProblem(answer));
}

/** Validates a `ListRootsResult` answer. Throws McpError -32602. */
export function validateRootsAnswer(answer: unknown, key: string): JSONObject {
  return refuseProblem(answer, key, rootsAnswerProblem(answer));
}

/** The answer, or McpError -32602 naming `inputResponses.<key>` and the problem. */
function refuseProblem(answer: unknown, key: string, problem: string | undefined): JSONObject {
  if (problem !== undefined) throw new McpError(ErrorCode.InvalidParams, `Invalid params: "inputResponses.${key}" ${problem}`);
  return answer as JSONObject;
}

/** The error of an input asked for where no round exists (a method without MRTR). */
export function noInputRound(method: string): LocalError {
  return new LocalError(
    'method_unsupported',
    `A ${method} request cannot ask the client for input on the stateless wire (only tools/call, prompts/get and resources/read can)`,
  );
}
