/**
 * The per-request record of an incoming request. One object per request serves as the
 * in-flight entry (for cancellation), the handler's context and the progress sender, so
 * a request costs one allocation here. The AbortController is created lazily: only when
 * a handler reads `signal` or a cancellation arrives.
 */
import type { JSONObject, RequestId } from '../jsonrpc/types.js';
import type { MessageInfo, SendOptions } from '../transport/types.js';

/**
 * Where a request's related messages go: its session, or — for a request served without a
 * session (the 2026-07-28 era over HTTP) — the request's own reply stream. {@link Session}
 * is one.
 */
export interface RequestChannel {
  /** Sends a notification (with `relatedRequestId`, it travels with that request's reply). */
  notify(method: string, params?: JSONObject, options?: SendOptions): Promise<void>;
  /** True once the channel is gone (the connection closed, or the reply was sent). */
  readonly closed: boolean;
  /** The transport's session id, when there is one. */
  readonly transportSessionId: string | undefined;
}

/** Context passed to handlers of incoming requests. */
export class RequestContext {
  /** The request's id, as the peer sent it. */
  readonly id: RequestId;
  readonly method: string;
  readonly params: JSONObject | undefined;
  /** What the transport knew about the message (auth info, HTTP headers). */
  readonly info: MessageInfo | undefined;
  /** The session the request arrived on (or, without a session, the request's own reply channel). */
  readonly session: RequestChannel;
  /** @internal batch this request belongs to, if any */
  batch: BatchCollector | undefined;
  #controller: AbortController | undefined;
  #cancelled = false;
  #done = false;
  #lastProgress = -Infinity;
  /** When this request last sent progress (ms since epoch; 0: never). */
  #lastProgressAt = 0;
  /** The send options of this request's progress (the related request), made by the first; the channel only reads them. */
  #progressOptions: SendOptions | undefined;

  constructor(session: RequestChannel, id: RequestId, method: string, params: JSONObject | undefined, info: MessageInfo | undefined) {
    this.session = session;
    this.id = id;
    this.method = method;
    this.params = params;
    this.info = info;
    this.batch = undefined;
  }

  /** Fires when the peer cancels the request or the connection closes. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort(new Error('Request cancelled'));
    }
    return this.#controller.signal;
  }

  /** Always `incoming`: a request context describes a received request (see CallContext). */
  get direction(): 'incoming' {
    return 'incoming';
  }

  /** Always `request`. */
  get kind(): 'request' {
    return 'request';
  }

  /** The transport's session id, when it has one. */
  get sessionId(): string | undefined {
    return this.session.transportSessionId;
  }

  /** True once the peer cancelled the request (its response will not be sent). */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** True once a response was sent (or dropped because of cancellation). */
  get done(): boolean {
    return this.#done;
  }

  /** The progress token the peer attached, if any. */
  get progressToken(): string | number | undefined {
    const meta = this.params?._meta as JSONObject | undefined;
    const t = meta?.progressToken;
    return typeof t === 'string' || typeof t === 'number' ? t : undefined;
  }

  /** `params._meta`, if present. */
  get meta(): JSONObject | undefined {
    return this.params?._meta as JSONObject | undefined;
  }

  /**
   * Sends `notifications/progress` for this request. A no-op when the peer sent no progress
   * token, after the request finished or was cancelled (the peer has forgotten the token),
   * or when `progress` does not increase (the spec requires it to increase with each
   * notification).
   */
  async sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.progressToken;
    if (token === undefined || this.#done || this.#cancelled || !(progress > this.#lastProgress)) return;
    this.#lastProgress = progress;
    const params: JSONObject = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.#lastProgressAt = Date.now();
    await this.session.notify('notifications/progress', params, (this.#progressOptions ??= { relatedRequestId: this.id }));
  }

  /**
   * @internal True when this request sent progress within {@link PROGRESS_CONFIRM_WINDOW_MS}:
   * its response then waits for the peer's confirmation (see `Session#answerAfterProgress`).
   */
  get sentRecentProgress(): boolean {
    return this.#lastProgressAt !== 0 && Date.now() - this.#lastProgressAt < PROGRESS_CONFIRM_WINDOW_MS;
  }

  /** @internal Marks the request cancelled and fires the signal. */
  cancel(reason: unknown): void {
    if (this.#cancelled || this.#done) return;
    this.#cancelled = true;
    this.#controller?.abort(reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : 'Request cancelled'));
  }

  /** @internal */
  finish(): void {
    this.#done = true;
  }
}

/**
 * How recent a request's last progress must be for its response to wait for the peer's
 * confirmation. The official TypeScript clients (v1 and v2) handle a notification a microtask
 * after a response read in the same chunk, so a request's last progress read together with its
 * response is dropped by them: the session confirms the peer has read recent progress (a
 * `ping` round trip) before it writes such a response (see `Session#answerAfterProgress`).
 */
export const PROGRESS_CONFIRM_WINDOW_MS = 100;

/** @internal Collects the responses of one received batch; sends them together. */
export class BatchCollector {
  pending = 0;
  readonly responses: Array<{ readonly id: RequestId | null }> = [];
  /** The id of the first request of the batch whose handler's answer is among the responses (the batch's routing fact). */
  answered: RequestId | undefined = undefined;
  closed = false;
}
