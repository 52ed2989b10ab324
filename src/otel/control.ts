/**
 * Spans and trace context for the two notifications a JSON-RPC channel sends and consumes
 * itself, beneath every interceptor and middleware: `notifications/cancelled` and
 * `notifications/progress` (both well-known `mcp.method.name` values of the conventions,
 * whose CLIENT and SERVER spans describe "the MCP request or notification", conventions.ts
 * names the version). Through the channel's control observer (`RpcChannel.observeControl`),
 * so every path that sends them is covered: a handler's `sendProgress`, a task's progress,
 * the cancellation of a request that timed out or was aborted, a proxy relaying either.
 */
import { context, trace } from '@opentelemetry/api';
import type { JSONObject } from '../jsonrpc/types.js';
import type { RequestContext } from '../session/context.js';
import type { ControlObserver } from '../session/session.js';
import type { MessageInfo } from '../transport/types.js';
import { Attr } from './conventions.js';
import { type Operation, SpanKind, type Telemetry } from './telemetry.js';

/** The notifications the channel handles itself (see the module note). */
export function isControlNotification(method: string): boolean {
  return method === 'notifications/cancelled' || method === 'notifications/progress';
}

/**
 * The control observer of one connection. `attributesOf(sent)` gives the connection's
 * attributes (a fresh object: revision, session, transport; `sent` says whether the span is
 * the sender's, which alone carries `server.address` and `server.port` on a client).
 */
export function controlObserver(
  t: Telemetry,
  attributesOf: (sent: boolean, request: RequestContext | undefined) => Record<string, string | number>,
): ControlObserver {
  return {
    sent(method: string, params: JSONObject | undefined, send: (params: JSONObject | undefined) => Promise<void>): Promise<void> {
      if (t.mode === 'propagation') return send(t.inject(params, context.active()));
      const attributes = attributesOf(true, undefined);
      attributes[Attr.MethodName] = method;
      const op: Operation = {
        kind: SpanKind.CLIENT,
        name: method,
        method,
        attributes,
        parent: context.active(),
        links: undefined,
        histogram: t.clientDuration,
        fallbackCode: undefined,
        reuse: undefined,
      };
      return t.around(op, (ctx) => send(t.inject(params, ctx))) as Promise<void>;
    },
    received(method: string, params: JSONObject | undefined, info: MessageInfo | undefined, handle: () => void, request: RequestContext | undefined): void {
      let handled = false;
      const run = (): void => {
        handled = true;
        handle();
      };
      try {
        receive(method, params, info, run, request);
      } catch {
        // the channel's own handling reports its errors (the span recorded the failure); it runs in any case
        if (!handled) handle();
      }
    },
  };

  function receive(
    method: string,
    params: JSONObject | undefined,
    info: MessageInfo | undefined,
    handle: () => void,
    request: RequestContext | undefined,
  ): void {
    const { parent, transport } = t.extract(params, info?.request?.headers);
    const hasParent = trace.getSpanContext(parent) !== undefined;
    if (t.mode === 'propagation') {
      if (hasParent) context.with(parent, handle);
      else handle();
      return;
    }
    const attributes = attributesOf(false, request);
    attributes[Attr.MethodName] = method;
    const op: Operation = {
      kind: SpanKind.SERVER,
      name: method,
      method,
      attributes,
      parent: hasParent ? parent : context.active(),
      links: hasParent ? t.receivedLinks(parent, transport, context.active()) : undefined,
      histogram: t.serverDuration,
      fallbackCode: undefined,
      reuse: undefined,
    };
    t.around(op, handle);
  }
}
