/**
 * What a mount reads and calls: a {@link MountSource}, made from a connected `Client` (any
 * upstream: stdio, Streamable HTTP, legacy SSE) or from an in-process `McpServer`.
 *
 * An in-process server is called through its connectionless 2026-07-28 dispatch, one
 * dispatch per forwarded request: its handlers and interceptors see a proper request
 * context carrying the OUTER caller's principal (`info.authInfo`), client info and client
 * capabilities, its progress reaches the outer caller, and the outer request's signal
 * cancels it. Its notifications (`list_changed`, `resources/updated` of the URIs the mount
 * subscribed to) come over one in-memory connection the source opens to it.
 *
 * A client source forwards with `client.request` (the mount's own identity upstream: no
 * token passthrough), relays progress, and cancels on the outer signal.
 */

import { Client } from '../client/client.js';
import { McpError } from '../jsonrpc/errors.js';
import type { JSONObject, JSONRPCErrorObject, RequestId } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';
import { CACHEABLE_METHODS, MetaKey, ResultType, readRequestMeta } from '../protocol/stateless/wire.js';
import type { ServerRequestContext } from '../server/connection.js';
import type { McpServer } from '../server/server.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { MessageInfo } from '../transport/types.js';
import type { ServerCapabilities } from '../types.js';

/** The notifications a mount follows. */
export type SourceNotification =
  | 'notifications/tools/list_changed'
  | 'notifications/prompts/list_changed'
  | 'notifications/resources/list_changed'
  | 'notifications/resources/updated';

/** One upstream of a mount. */
export interface MountSource {
  /** What the source serves (undefined: unknown; every kind is then tried). */
  capabilities(): ServerCapabilities | undefined;
  /**
   * Sends one request to the source. `ctx` is the outer request's context when the
   * request serves a caller (progress relayed to it, its signal cancels); undefined for the
   * mount's own catalogue reads. Rejects with the source's McpError as it answered.
   */
  request(method: string, params: JSONObject | undefined, ctx: ServerRequestContext | undefined): Promise<JSONObject>;
  /** Follows a notification of the source; returns the function that stops following. */
  on(method: SourceNotification, listener: (params: JSONObject | undefined) => void): () => void;
  /** Releases what the source opened itself (the in-memory connection of a server source). */
  close(): Promise<void>;
}

/** A {@link MountSource} over a connected client. */
export function clientSource(client: Client): MountSource {
  return {
    capabilities: () => client.serverCapabilities,
    request(method, params, ctx) {
      if (ctx === undefined) return client.request(method, params).then((result) => withoutEraKeys(method, result, false));
      const relay = ctx.progressToken !== undefined;
      return client
        .request(method, upstreamParams(params), {
          signal: ctx.signal,
          ...(relay ? { onProgress: (p) => void ctx.sendProgress(p.progress, p.total, p.message).catch(() => {}) } : {}),
        })
        .then((result) => withoutEraKeys(method, result, ctx.era.stateless !== undefined));
    },
    on: (method, listener) => client.on(method, listener),
    close: () => Promise.resolve(),
  };
}

/**
 * A source's result as the outer server gets it, to shape for its own caller: without what
 * the source's 2026-07-28 era added to it, which the outer server adds again (its own) for a
 * 2026-07-28 caller and a 2025-era caller must not see. Removed: `resultType` (kept when
 * `"task"`: a 2026-07-28 `CreateTaskResult` stays one), the source's identity
 * `_meta["io.modelcontextprotocol/serverInfo"]` (the outer server names itself; other `_meta`
 * keys stay), and the caching hints `ttlMs` and `cacheScope`: of every result for a 2025-era
 * caller (`callerStateless` false, also a mount's own reads), of the cacheable methods' results
 * (the outer server sets its own) for a 2026-07-28 caller, whose other results keep them (e.g.
 * an extension's, or a task's `ttlMs`). A result without `resultType` (a 2025-era source's:
 * the 2026-07-28 era adds it to every result) is returned as it is, uncopied; else a copy.
 */
export function withoutEraKeys<T>(method: string, result: T, callerStateless: boolean): T {
  if (!isObject(result) || !('resultType' in result)) return result;
  const { resultType, _meta, ...rest } = result;
  const shaped: JSONObject = rest;
  if (resultType === ResultType.Task) shaped.resultType = resultType;
  else if (!callerStateless || CACHEABLE_METHODS.has(method)) {
    delete shaped.ttlMs;
    delete shaped.cacheScope;
  }
  if (isObject(_meta) && MetaKey.ServerInfo in _meta) {
    const { [MetaKey.ServerInfo]: _identity, ...meta } = _meta;
    if (Object.keys(meta).length > 0) shaped._meta = meta;
  } else if (_meta !== undefined) shaped._meta = _meta;
  return shaped as T;
}

/**
 * The params a client source sends upstream: the caller's `_meta` without the caller's
 * progress token (the client sets its own when progress is relayed) and without the
 * protocol's reserved `io.modelcontextprotocol/` keys (the client speaks its own era).
 */
function upstreamParams(params: JSONObject | undefined): JSONObject | undefined {
  const meta = params?._meta as JSONObject | undefined;
  if (meta === undefined) return params;
  const kept: JSONObject = {};
  for (const [key, value] of Object.entries(meta)) if (key !== 'progressToken' && !key.startsWith('io.modelcontextprotocol/')) kept[key] = value;
  const { _meta: _dropped, ...rest } = params!;
  return Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept };
}

let nextId = 0;

/**
 * A {@link MountSource} over an in-process server (see the module note). Resolves once the
 * server is ready and the notification connection is open.
 */
export async function serverSource(server: McpServer): Promise<MountSource> {
  const revisions = server.statelessRevisions;
  if (revisions.length === 0)
    throw new TypeError(
      `Cannot mount server "${server.info.name}" in process: it serves no 2026-07-28 revision (its protocolVersions option turns that era off); connect a Client to it and mount the client instead`,
    );
  const revision = revisions[0]!;
  await server.ready();
  const [near, far] = InMemoryTransport.createPair();
  const watcher = new Client({ name: 'mcpkit-mount', version: '1' }, { protocolVersions: server.revisions as string[] });
  await server.connect(far);
  await watcher.connect(near);
  const caps = server.capabilities();
  return {
    capabilities: () => caps,
    request(method, params, ctx) {
      if (method === 'resources/subscribe' || method === 'resources/unsubscribe') return watcher.request(method, params);
      return new Promise<JSONObject>((resolve, reject) => {
        const { _meta: outerMeta, ...rest } = params ?? {};
        const meta: JSONObject = { ...(outerMeta as JSONObject | undefined) };
        for (const key of Object.values(MetaKey)) delete meta[key];
        meta[MetaKey.ProtocolVersion] = revision;
        meta[MetaKey.ClientCapabilities] = (ctx?.clientCapabilities ?? {}) as JSONObject;
        const clientInfo = ctx?.clientInfo;
        if (clientInfo !== undefined) meta[MetaKey.ClientInfo] = clientInfo as unknown as JSONObject;
        const inner: JSONObject = { ...rest, _meta: meta };
        let requestMeta;
        try {
          requestMeta = readRequestMeta(inner, revisions);
        } catch (error) {
          reject(error);
          return;
        }
        const id: RequestId = `mount-${++nextId}`;
        let settled = false;
        let handle: { cancel(reason: unknown): void } | undefined;
        function onAbort(): void {
          if (settled) return;
          finish();
          handle?.cancel(ctx!.signal.reason);
          reject(new McpError(-32603, 'Request cancelled by the client'));
        }
        function finish(): void {
          settled = true;
          ctx?.signal.removeEventListener('abort', onAbort);
        }
        const reply = {
          closed: false,
          transportSessionId: undefined,
          notify(note: string, p?: JSONObject): Promise<void> {
            if (note === 'notifications/progress' && ctx !== undefined && p !== undefined) {
              return ctx.sendProgress(p.progress as number, p.total as number | undefined, p.message as string | undefined);
            }
            return Promise.resolve();
          },
          result(_id: RequestId, result: unknown): void {
            if (settled) return;
            finish();
            reply.closed = true;
            resolve(withoutEraKeys(method, result as JSONObject, ctx?.era.stateless !== undefined));
          },
          error(_id: RequestId, error: JSONRPCErrorObject): void {
            if (settled) return;
            finish();
            reply.closed = true;
            reject(new McpError(error.code, error.message, error.data));
          },
        };
        if (ctx?.signal.aborted) {
          onAbort();
          return;
        }
        ctx?.signal.addEventListener('abort', onAbort, { once: true });
        const info: MessageInfo | undefined = ctx?.info;
        handle = server.dispatchStateless(id, method, inner, requestMeta, info, reply);
      });
    },
    on: (method, listener) => watcher.on(method, listener),
    close: () => watcher.close(),
  };
}
