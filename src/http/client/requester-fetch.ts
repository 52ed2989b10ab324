/**
 * The bridges between the transports' requests and an {@link HttpRequester}.
 *
 * Design note: a transport makes every request through `transportFetch` (redirects.ts),
 * which calls either a `fetch` or a requester. Without `auth` the requester is called
 * directly ({@link requesterCall}): the transports always pass a `Headers` and a string
 * body, so nothing is copied. An {@link HttpAuthorization} wraps a `typeof fetch`, though,
 * so with `auth` the requester is dressed as one ({@link requesterAsFetch}): each answer
 * becomes a `Response` around a `ReadableStream` that pulls from the requester's reader.
 * That costs the web objects per request (not fetch's connection handling); requests
 * without `auth` never pay it. Runtime-neutral: web `Headers`, `Response` and
 * `ReadableStream` only.
 */
import { type ClientResponse, type HttpRequester, PlainHeaders, type RequesterInit, type TransportInit } from './common.js';

/** The statuses whose `Response` can have no body (the constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The init of one requester call from the `RequestInit` a transport built: method, headers
 * (kept when they already are a `Headers`), body (a string; anything else is a TypeError)
 * and signal. Other `RequestInit` fields mean nothing to a requester.
 */
export function requesterInit(init: RequestInit | TransportInit | undefined): RequesterInit {
  const body = init?.body;
  if (body !== undefined && body !== null && typeof body !== 'string') throw new TypeError('A requester sends string bodies only');
  const headers = init?.headers;
  // a transport's own request is one already (plain headers, an upper-case method): no copy
  if (
    headers instanceof PlainHeaders &&
    body !== null &&
    init!.signal !== null &&
    (init!.method === 'POST' || init!.method === 'GET' || init!.method === 'DELETE')
  )
    return init as RequesterInit;
  return {
    method: (init?.method ?? 'GET').toUpperCase(),
    headers: headers instanceof Headers || headers instanceof PlainHeaders ? headers : new Headers(headers as HeadersInit | undefined),
    body: body ?? undefined,
    signal: init?.signal ?? undefined,
  };
}

/** Calls `requester` for a transport's request (see {@link requesterInit}). */
export function requesterCall(requester: HttpRequester, url: URL, init: TransportInit): Promise<ClientResponse> {
  let converted: RequesterInit;
  try {
    converted = requesterInit(init);
  } catch (err) {
    return Promise.reject(err);
  }
  return requester(url, converted);
}

/**
 * A `fetch` that makes its requests through `requester`, for an {@link HttpAuthorization}
 * to wrap. Accepts a string, a `URL` or a `Request` without a body (a body travels in
 * `init.body`, as a string); the `Response` it resolves with is never redirected and
 * streams the requester's body.
 */
export function requesterAsFetch(requester: HttpRequester): typeof fetch {
  return async (input, init) => {
    let url: URL;
    let merged: RequestInit | undefined = init;
    if (typeof input === 'string' || input instanceof URL) url = new URL(input);
    else {
      url = new URL(input.url);
      if (input.body !== null && init?.body === undefined) throw new TypeError('A requester cannot send a Request body; pass the body as init.body (a string)');
      merged = { method: input.method, headers: input.headers, signal: input.signal, ...init };
    }
    const answer = await requester(url, requesterInit(merged));
    return asResponse(answer);
  };
}

function asResponse(answer: ClientResponse): Response {
  const source = answer.body;
  let body: ReadableStream<Uint8Array> | null = null;
  if (source !== null && !NULL_BODY.has(answer.status)) {
    const reader = source.getReader();
    body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
  } else if (source !== null) {
    source.cancel().catch(() => {});
  }
  const headers = new Headers();
  answer.headers.forEach((value, name) => {
    headers.append(name, value);
  });
  return new Response(body, { status: answer.status, statusText: answer.statusText, headers });
}
