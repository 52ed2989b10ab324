/**
 * The 2026-07-28 era strategy of one request (see era.ts): the client's capabilities,
 * identity and log level come from the request's own `_meta`; logs go out only when the
 * request opted in, on the request's stream; and sampling, elicitation and roots become
 * multi round-trip inputs (see mrtr.ts) instead of requests to the client. A missing client
 * capability is the -32021 error, whose data names it. One object per request, made by the
 * server's stateless layer from the request's era reading when its context is made.
 */
import type { JSONObject } from '../../jsonrpc/types.js';
import type { StatelessClaim } from '../../protocol/incoming.js';
import { Notification } from '../../protocol/methods.js';
import type { InnerHandler } from '../../protocol/middleware.js';
import { type InputRequest, missingClientCapability, type RequestMeta } from '../../protocol/stateless/wire.js';
import type { RevisionTable } from '../../protocol/table.js';
import { hasCapability } from '../../protocol/table.js';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Root,
} from '../../types.js';
import { checkElicitationUrl, checkRequestedSchema } from '../client-answers.js';
import { levelPasses } from '../logging.js';
import type { EraRequest, InputOptions } from '../types.js';
import { InputRound, noInputRound, validateElicitAnswer, validateRootsAnswer, validateSamplingAnswer } from './mrtr.js';

export type { InputOptions };

/**
 * Where the inputs of a request go instead of its multi round-trip round: a task (tasks
 * extension) that outlived its request keeps asking through the same context methods, and
 * its inputs wait for `tasks/update`. Keys must be unique over the task's life.
 */
export interface InputSink {
  /** The key of the next input of `method` (`explicitKey` when given and still unused). */
  key(method: string, explicitKey: string | undefined): string;
  /** Resolves with the validated answer to `request` (key `key`); rejects when the task ends first. */
  ask(key: string, request: InputRequest, validate: (answer: unknown, key: string) => unknown): Promise<unknown>;
}

/** How a 2026-07-28 request is run and its outcome shaped: the server's stateless layer. */
export interface StatelessShaper {
  serve(state: StatelessRequest, next: InnerHandler, method: string, params: JSONObject | undefined, request: EraRequest): unknown;
}

/** The per-request state and era strategy of a 2026-07-28 request. Created by the server's stateless layer. */
/** The 2026-07-28 `ServerEra` (era.ts; checked where the layer hands one out as a `ServerEra`). */
export class StatelessRequest {
  /** The request's checked `_meta` (half of its {@link claim}). */
  readonly meta: RequestMeta;
  /** The method table of its revision (the other half). */
  readonly table: RevisionTable;
  readonly #shaper: StatelessShaper;
  /** The inputs of this run, once there are any (answers arrived, or the handler asked). */
  round: InputRound | undefined = undefined;
  /** True for the methods that may answer `InputRequiredResult` (tools/call, prompts/get, resources/read). */
  inputAllowed = false;
  /**
   * Set when the request became a task (tasks extension): inputs go here instead of to the
   * round, and logs are dropped (the request's stream is gone).
   */
  inputSink: InputSink | undefined = undefined;

  constructor(meta: RequestMeta, table: RevisionTable, shaper: StatelessShaper) {
    this.meta = meta;
    this.table = table;
    this.#shaper = shaper;
  }

  /** The era reading: this object (it holds `meta` and `table`; no second object per request). */
  get claim(): StatelessClaim {
    return this;
  }

  /** This object: a 2026-07-28 request's era is its own state. */
  get stateless(): StatelessRequest {
    return this;
  }

  get protocolVersion(): string {
    return this.meta.revision;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.meta.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.meta.clientInfo;
  }

  /** Runs the request through the stateless layer, which shapes its result (or answers `InputRequiredResult`). */
  serve(next: InnerHandler, method: string, params: JSONObject | undefined, request: EraRequest): unknown {
    return this.#shaper.serve(this, next, method, params, request);
  }

  #require(path: string[], required: JSONObject, what: string): void {
    if (!hasCapability(this.meta.clientCapabilities, path)) throw missingClientCapability(required, what);
  }

  /** The answer to input `request`: from the round (or its rejection), or from the sink. */
  #ask(
    method: string,
    explicitKey: string | undefined,
    request: InputRequest,
    validate: (answer: unknown, key: string) => unknown,
  ): { key: string; answer: Promise<unknown> } {
    const sink = this.inputSink;
    if (sink !== undefined) {
      const key = sink.key(method, explicitKey);
      return { key, answer: sink.ask(key, request, validate) };
    }
    const round = this.#round(method);
    const key = round.key(method, explicitKey);
    return { key, answer: Promise.resolve(round.resolve(key, request, validate)) };
  }

  #round(method: string): InputRound {
    if (this.round !== undefined) return this.round;
    if (!this.inputAllowed) throw noInputRound(method);
    return (this.round = new InputRound({}, undefined));
  }

  /**
   * `notifications/message` for request `id`, when the request set a log level and `level`
   * passes it (the spec forbids logs for a request without one).
   */
  async log(request: EraRequest, level: LoggingLevel, data: unknown, logger: string | undefined): Promise<void> {
    const minimum = this.meta.logLevel;
    if (this.inputSink !== undefined || minimum === undefined || !levelPasses(level, minimum)) return;
    const params: JSONObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    await request.session.notify(Notification.Message, params, { relatedRequestId: request.id });
  }

  /** Sampling as an input request. Throws -32021 without `sampling` (`sampling.tools` for tools). */
  createMessage(_request: EraRequest, params: CreateMessageRequestParams, options: InputOptions | undefined): Promise<CreateMessageResult> {
    try {
      if (params.tools !== undefined || params.toolChoice !== undefined)
        this.#require(['sampling', 'tools'], { sampling: { tools: {} } }, 'sampling with tools');
      else this.#require(['sampling'], { sampling: {} }, 'sampling');
      return this.#ask(
        'sampling/createMessage',
        options?.inputKey,
        { method: 'sampling/createMessage', params: params as unknown as JSONObject },
        validateSamplingAnswer,
      ).answer as Promise<CreateMessageResult>;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Form elicitation as an input request. Throws -32021 without form elicitation support. */
  elicitForm(_request: EraRequest, params: Omit<ElicitFormParams, 'mode'>, options: InputOptions | undefined): Promise<ElicitResult> {
    try {
      checkRequestedSchema(params.requestedSchema);
      const e = this.meta.clientCapabilities.elicitation as JSONObject | undefined;
      // `elicitation: {}` declares form mode; an object naming only `url` does not.
      if (e === undefined || e === null || typeof e !== 'object' || (e.form === undefined && e.url !== undefined)) {
        throw missingClientCapability({ elicitation: { form: {} } }, 'form elicitation');
      }
      const wire: JSONObject = { mode: 'form', ...params };
      return this.#ask('elicitation/create', options?.inputKey, { method: 'elicitation/create', params: wire }, validateElicitAnswer(params.requestedSchema))
        .answer as Promise<ElicitResult>;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * URL elicitation as an input request (no `elicitationId` on this wire: the answer arrives
   * with the retry). The returned `elicitationId` is the input's key. Throws -32021 without
   * `elicitation.url`.
   */
  elicitUrl(
    _request: EraRequest,
    params: { message: string; url: string; _meta?: JSONObject },
    options: InputOptions | undefined,
  ): Promise<ElicitResult & { elicitationId: string }> {
    try {
      this.#require(['elicitation', 'url'], { elicitation: { url: {} } }, 'URL elicitation');
      checkElicitationUrl(params.url);
      const wire: JSONObject = { mode: 'url', message: params.message, url: params.url };
      if (params._meta !== undefined) wire._meta = params._meta;
      const { key, answer } = this.#ask(
        'elicitation/create',
        options?.inputKey,
        { method: 'elicitation/create', params: wire },
        validateElicitAnswer(undefined),
      );
      return answer.then((a) => ({ ...(a as ElicitResult), elicitationId: key }));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** `roots/list` as an input request. Throws -32021 without `roots`. */
  listRoots(_request: EraRequest, options: InputOptions | undefined): Promise<Root[]> {
    try {
      this.#require(['roots'], { roots: {} }, 'roots');
      return this.#ask('roots/list', options?.inputKey, { method: 'roots/list', params: {} }, validateRootsAnswer).answer.then(
        (a) => (a as { roots: Root[] }).roots,
      );
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
