/**
 * Server-initiated disconnect of a request's SSE stream (SEP-1699): the {@link MessageInfo}
 * of the messages of one HTTP request ({@link HttpMessageInfo}), which knows how to close
 * the stream carrying a request, and the two ways a handler or middleware asks for it.
 * Runtime-neutral.
 */
import type { JSONObject, RequestId } from '../../jsonrpc/types.js';
import type { Interceptor } from '../../server/interceptors.js';
import type { MessageInfo } from '../../transport/types.js';

/** Something that can close the SSE stream carrying a request (see {@link closeSseStream}). */
export interface RequestStreamCloser {
  closeRequestStream(requestId: RequestId): boolean;
}

/**
 * The {@link MessageInfo} of every message of one HTTP request: the auth info, the request
 * headers (`info.request.headers`), and the seam of {@link closeSseStream}.
 */
export class HttpMessageInfo implements MessageInfo {
  readonly authInfo: unknown;
  readonly headers: Headers | Record<string, string | string[] | undefined> | undefined;
  readonly #closer: RequestStreamCloser;

  /** @internal created by the HTTP handler per request */
  constructor(closer: RequestStreamCloser, authInfo: unknown, headers: Headers | Record<string, string | string[] | undefined> | undefined) {
    this.#closer = closer;
    this.authInfo = authInfo;
    this.headers = headers;
  }

  /** The request details: `request.headers` holds the HTTP request headers. */
  get request(): { readonly headers?: Headers | Record<string, string | string[] | undefined> } {
    return this;
  }

  /** Closes the SSE stream carrying request `requestId` now; see {@link closeSseStream}. */
  closeSseStream(requestId: RequestId): boolean {
    return this.#closer.closeRequestStream(requestId);
  }
}

/**
 * Server-initiated disconnect (SEP-1699): closes the SSE stream that carries the request of
 * `ctx` (a handler's or middleware's context) right away, after its priming event, without
 * ending the request. The client reconnects after the `retry` delay with GET and
 * `Last-Event-ID` and receives the rest of the stream there, the response included.
 *
 * Returns false, doing nothing, when the request did not arrive over Streamable HTTP, is
 * answered as JSON, the server keeps no event store (nothing could be resumed), the handler
 * is sessionless, or the stream is not attached to a connection.
 */
export function closeSseStream(ctx: { readonly id?: RequestId; readonly info?: MessageInfo }): boolean {
  const info = ctx.info;
  return info instanceof HttpMessageInfo && ctx.id !== undefined && info.closeSseStream(ctx.id);
}

/**
 * An interceptor for SSE polling (SEP-1699): for every incoming request for which
 * `predicate` holds, closes its SSE stream right after the priming event (see
 * {@link closeSseStream}) and then lets the request run as usual; the client picks up the
 * rest with GET and `Last-Event-ID`. Register it with `server.use()`. `predicate` must not throw.
 */
export function disconnectAfterPriming(predicate: (method: string, params: JSONObject | undefined) => boolean): Interceptor {
  return {
    name: 'disconnectAfterPriming',
    intercept(call, next) {
      if (call.direction === 'incoming' && call.kind === 'request' && predicate(call.method, call.params)) closeSseStream(call);
      return next();
    },
  };
}
