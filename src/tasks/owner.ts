/**
 * Who owns a task: the policies that turn an incoming request into a {@link TaskOwner}.
 *
 * Design note: the default binds a task to the transport session (HTTP `Mcp-Session-Id`)
 * and to the authentication context, and to nothing when neither exists (stdio, in-memory):
 * such tasks are reachable by whoever knows their id, which is why ids are random UUIDs
 * (122 random bits). On stdio a server process has exactly one client, and a client that
 * restarts the server must still reach its tasks, so the connection itself is deliberately
 * not part of the default binding; {@link ownerByConnection} adds it for servers that serve
 * several unauthenticated clients in one process. The auth context is reduced to a stable
 * key — the client id and subject when the auth info names them, else a SHA-256 of the
 * token — so no credential is ever written to a store.
 *
 * Who counts against a concurrency cap is a separate question ({@link RequestorPolicy}):
 * unbound tasks belong to nobody, yet one client must not be able to use up a cap that
 * every unauthenticated client shares. The default counts per principal, else per
 * connection when the connection carries one client, and calls a request anonymous when a
 * transport multiplexes many clients onto one session (the Streamable HTTP server's
 * stateless path without authentication), where nothing identifies the client.
 */
import type { RequestContext } from '../session/context.js';
import { RpcChannel } from '../session/session.js';
import type { TaskOwner } from './types.js';

/** Computes the owner of a request's tasks. May be async. */
export type OwnerPolicy = (ctx: RequestContext) => TaskOwner | Promise<TaskOwner>;

const keys = new WeakMap<object, Promise<string | undefined>>();

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v.length > 0) return v;
  return undefined;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  let hex = '';
  for (const b of new Uint8Array(digest)) hex += b.toString(16).padStart(2, '0');
  return hex;
}

function stable(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
    .join(',')}}`;
}

async function computeAuthKey(info: unknown): Promise<string | undefined> {
  if (info === undefined || info === null) return undefined;
  if (typeof info === 'string') return `token:${await sha256(info)}`;
  if (typeof info !== 'object') return `auth:${await sha256(String(info))}`;
  const o = info as Record<string, unknown>;
  const extra = (typeof o.extra === 'object' && o.extra !== null ? o.extra : {}) as Record<string, unknown>;
  const subject = firstString(o.subject, o.sub, o.userId, extra.subject, extra.sub, extra.userId);
  const clientId = firstString(o.clientId, o.client_id);
  if (subject !== undefined) return `id:${JSON.stringify([clientId ?? null, subject])}`;
  if (typeof o.token === 'string') return `token:${await sha256(o.token)}`;
  if (clientId !== undefined) return `id:${JSON.stringify([clientId, null])}`;
  return `auth:${await sha256(stable(o))}`;
}

/**
 * A stable key for verified auth information (`MessageInfo.authInfo`), or undefined when
 * there is none. Never contains the credential itself. Cached per auth-info object.
 */
export function authKey(info: unknown): Promise<string | undefined> {
  if (typeof info !== 'object' || info === null) return computeAuthKey(info);
  let key = keys.get(info);
  if (key === undefined) keys.set(info, (key = computeAuthKey(info)));
  return key;
}

/** The default policy: the transport session id and the auth context, each when present. */
export const ownerBySessionAndAuth: OwnerPolicy = async (ctx) => {
  const owner: { session?: string; auth?: string } = {};
  const session = ctx.sessionId;
  if (session !== undefined) owner.session = session;
  const auth = await authKey(ctx.info?.authInfo);
  if (auth !== undefined) owner.auth = auth;
  return owner;
};

const connectionIds = new WeakMap<object, string>();

function connectionId(session: object): string {
  let id = connectionIds.get(session);
  if (id === undefined) connectionIds.set(session, (id = `connection:${crypto.randomUUID()}`));
  return id;
}

/**
 * What identifies the requestor of a request for concurrency caps: a string key, or
 * undefined when nothing does (an anonymous request). May be async.
 */
export type RequestorPolicy = (ctx: RequestContext) => string | undefined | Promise<string | undefined>;

/** True when the request came without a connection (a 2026-07-28 HTTP POST): nothing but its principal identifies its client. */
function connectionless(ctx: RequestContext): boolean {
  return !(ctx.session instanceof RpcChannel);
}

/**
 * The default requestor policy: the principal ({@link authKey}) when the request is
 * authenticated; else the transport session id, or the connection, when it carries one
 * client; else undefined (anonymous: unauthenticated requests that came without a connection).
 */
export const requestorByAuthOrConnection: RequestorPolicy = async (ctx) => {
  const auth = await authKey(ctx.info?.authInfo);
  if (auth !== undefined) return auth;
  if (connectionless(ctx)) return undefined;
  return ctx.sessionId !== undefined ? `session:${ctx.sessionId}` : connectionId(ctx.session);
};

/**
 * Binds tasks to the connection (the session object) as well as the auth context: for a
 * process serving several unauthenticated clients over in-process or custom transports.
 * Tasks then die with the connection as far as lookups go (a reconnecting client cannot
 * reach them).
 */
export const ownerByConnection: OwnerPolicy = async (ctx) => {
  const id = ctx.sessionId ?? connectionId(ctx.session);
  const auth = await authKey(ctx.info?.authInfo);
  return auth === undefined ? { session: id } : { session: id, auth };
};
