/**
 * Plain-code checks of request and notification params, one per method. Each returns
 * `undefined` when the params are acceptable or a short message naming the bad field
 * (used as the -32602 message). They check what the receiver relies on, not every
 * optional member, and never throw.
 */
import type { JSONObject } from '../jsonrpc/types.js';
import { isObject } from '../jsonrpc/values.js';

/** A params check: a message naming the bad field, or undefined when fine. */
export type ParamsCheck = (params: JSONObject | undefined) => string | undefined;

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

function str(p: JSONObject | undefined, key: string): string | undefined {
  if (p === undefined || typeof p[key] !== 'string') return `Invalid params: "${key}" must be a string`;
  return undefined;
}

function optStr(p: JSONObject | undefined, key: string): string | undefined {
  if (p === undefined || p[key] === undefined || typeof p[key] === 'string') return undefined;
  return `Invalid params: "${key}" must be a string`;
}

function optObj(p: JSONObject | undefined, key: string): string | undefined {
  if (p === undefined || p[key] === undefined || isObject(p[key])) return undefined;
  return `Invalid params: "${key}" must be an object`;
}

/** The message for the first member of `map` that is not a string (`where` names the map). */
function stringValues(map: JSONObject, where: string): string | undefined {
  for (const k in map) if (typeof map[k] !== 'string') return `Invalid params: "${where}.${k}" must be a string`;
  return undefined;
}

export const checkCursor: ParamsCheck = (p) => optStr(p, 'cursor');
export const checkUri: ParamsCheck = (p) => str(p, 'uri');

export const checkInitialize: ParamsCheck = (p) => {
  if (p === undefined) return 'Invalid params: "protocolVersion", "capabilities" and "clientInfo" are required';
  if (typeof p.protocolVersion !== 'string') return 'Invalid params: "protocolVersion" must be a string';
  if (!isObject(p.capabilities)) return 'Invalid params: "capabilities" must be an object';
  const info = p.clientInfo;
  if (!isObject(info)) return 'Invalid params: "clientInfo" must be an object';
  if (typeof info.name !== 'string') return 'Invalid params: "clientInfo.name" must be a string';
  if (typeof info.version !== 'string') return 'Invalid params: "clientInfo.version" must be a string';
  return undefined;
};

export const checkCallTool: ParamsCheck = (p) => str(p, 'name') ?? optObj(p, 'arguments');

/** 2025-11-25 and later stateful revisions: `task` (TaskMetadata) is an object when present. */
export const checkCallToolWithTask: ParamsCheck = (p) => checkCallTool(p) ?? optObj(p, 'task');

export const checkGetPrompt: ParamsCheck = (p) => {
  const e = str(p, 'name') ?? optObj(p, 'arguments');
  if (e) return e;
  const args = p!.arguments as JSONObject | undefined;
  return args === undefined ? undefined : stringValues(args, 'arguments');
};

export const checkComplete: ParamsCheck = (p) => {
  if (p === undefined || !isObject(p.ref)) return 'Invalid params: "ref" must be an object';
  const ref = p.ref;
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') return 'Invalid params: "ref.name" must be a string';
  } else if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') return 'Invalid params: "ref.uri" must be a string';
  } else return 'Invalid params: "ref.type" must be "ref/prompt" or "ref/resource"';
  const arg = p.argument;
  if (!isObject(arg)) return 'Invalid params: "argument" must be an object';
  if (typeof arg.name !== 'string') return 'Invalid params: "argument.name" must be a string';
  if (typeof arg.value !== 'string') return 'Invalid params: "argument.value" must be a string';
  const ctx = p.context;
  if (ctx !== undefined) {
    if (!isObject(ctx)) return 'Invalid params: "context" must be an object';
    const args = ctx.arguments;
    if (args !== undefined) {
      if (!isObject(args)) return 'Invalid params: "context.arguments" must be an object';
      // The schema types every value as a string; completers rely on it.
      const bad = stringValues(args, 'context.arguments');
      if (bad !== undefined) return bad;
    }
  }
  return undefined;
};

export const checkSetLevel: ParamsCheck = (p) =>
  p !== undefined && typeof p.level === 'string' && LOG_LEVELS.has(p.level)
    ? undefined
    : 'Invalid params: "level" must be one of debug, info, notice, warning, error, critical, alert, emergency';

export const checkCreateMessage: ParamsCheck = (p) => {
  if (p === undefined || !Array.isArray(p.messages)) return 'Invalid params: "messages" must be an array';
  if (typeof p.maxTokens !== 'number') return 'Invalid params: "maxTokens" must be a number';
  for (let i = 0; i < p.messages.length; i++) {
    const m = p.messages[i];
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) return `Invalid params: "messages[${i}].role" must be "user" or "assistant"`;
    if (!isObject(m.content) && !Array.isArray(m.content)) return `Invalid params: "messages[${i}].content" must be an object or an array`;
  }
  if (p.tools !== undefined && !Array.isArray(p.tools)) return 'Invalid params: "tools" must be an array';
  return optObj(p, 'toolChoice');
};

export const checkElicit: ParamsCheck = (p) => {
  if (p === undefined || typeof p.message !== 'string') return 'Invalid params: "message" must be a string';
  if (p.mode === 'url') {
    return str(p, 'url') ?? str(p, 'elicitationId');
  }
  if (p.mode !== undefined && p.mode !== 'form') return 'Invalid params: "mode" must be "form" or "url"';
  if (!isObject(p.requestedSchema)) return 'Invalid params: "requestedSchema" must be an object';
  return undefined;
};

export const checkCancelled: ParamsCheck = (p) =>
  p !== undefined && (typeof p.requestId === 'string' || typeof p.requestId === 'number')
    ? undefined
    : 'Invalid params: "requestId" must be a string or a number';

export const checkProgress: ParamsCheck = (p) => {
  if (p === undefined || (typeof p.progressToken !== 'string' && typeof p.progressToken !== 'number'))
    return 'Invalid params: "progressToken" must be a string or a number';
  if (typeof p.progress !== 'number') return 'Invalid params: "progress" must be a number';
  return undefined;
};

export const checkLogMessage: ParamsCheck = (p) =>
  p !== undefined && typeof p.level === 'string' && LOG_LEVELS.has(p.level) ? undefined : 'Invalid params: "level" must be a log level';

export const checkElicitationComplete: ParamsCheck = (p) => str(p, 'elicitationId');

/** A `SubscriptionFilter` (2026-07-28): optional booleans and an optional array of URI strings. */
function checkFilter(f: unknown, where: string): string | undefined {
  if (!isObject(f)) return `Invalid params: "${where}" must be an object`;
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']) {
    if (f[key] !== undefined && typeof f[key] !== 'boolean') return `Invalid params: "${where}.${key}" must be a boolean`;
  }
  const uris = f.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || uris.some((u) => typeof u !== 'string')))
    return `Invalid params: "${where}.resourceSubscriptions" must be an array of strings`;
  return undefined;
}

export const checkSubscriptionsListen: ParamsCheck = (p) => checkFilter(p?.notifications, 'notifications');
export const checkSubscriptionsAcknowledged: ParamsCheck = (p) => checkFilter(p?.notifications, 'notifications');
