/**
 * The handlers a server starts with, registered in its handler table
 * (protocol/handler-table.ts) for both eras unless noted: the connection-level methods
 * (`initialize`, `ping`, `logging/setLevel`, `resources/(un)subscribe`: connection.ts), the
 * registries' list/call/read/get methods, `completion/complete`, and the 2026-07-28 era's
 * own `server/discover` and `subscriptions/listen`. `McpServer.handle` replaces any of them;
 * `McpServer.wrap` wraps them.
 */
import { invalidParams } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { HandlerRegistry } from '../protocol/handler-table.js';
import { Method } from '../protocol/methods.js';
import { type Completer, toCompleteResult } from './completions.js';
import { ServerConnection, type ServerRequestContext } from './connection.js';
import { paginate } from './pagination.js';
import type { PromptRegistry } from './prompts.js';
import type { ResourceRegistry } from './resources.js';
import type { ToolRegistry } from './tools.js';

/** What the built-in handlers serve from. */
export interface BuiltinSources {
  readonly tools: ToolRegistry;
  readonly resources: ResourceRegistry;
  readonly prompts: PromptRegistry;
  /** Items per page of every list method. */
  readonly pageSize: number;
  /** The 2026-07-28 era's own methods (the server's stateless layer). */
  readonly stateless: {
    discover(): JSONObject;
    listen(params: JSONObject | undefined, ctx: ServerRequestContext): Promise<JSONObject>;
  };
}

/** Registers the built-in handlers in `registry`. */
export function registerBuiltinHandlers(registry: HandlerRegistry<ServerRequestContext>, from: BuiltinSources): void {
  const { tools, resources, prompts, pageSize: size, stateless } = from;
  for (const [method, handler] of ServerConnection.connectionHandlers()) registry.handle(method, handler);
  const listTools = (cursor: unknown) => {
    const { page, nextCursor } = paginate(tools.list(), cursor, size);
    return nextCursor === undefined ? { tools: page } : { tools: page, nextCursor };
  };
  // a schema converted after registration (valibot, zod 3) is listed once ready; a failed one is not listed
  registry.handle(Method.ToolsList, (p) =>
    tools.pending
      ? tools.ready().then(
          () => listTools(p?.cursor),
          () => listTools(p?.cursor),
        )
      : listTools(p?.cursor),
  );
  registry.handle(Method.ToolsCall, tools.callHandler());
  registry.handle(Method.ResourcesList, async (p, ctx) => {
    const { page, nextCursor } = paginate(await resources.list(ctx), p?.cursor, size);
    return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor };
  });
  registry.handle(Method.ResourcesTemplatesList, (p) => {
    const { page, nextCursor } = paginate(resources.listTemplates(), p?.cursor, size);
    return nextCursor === undefined ? { resourceTemplates: page } : { resourceTemplates: page, nextCursor };
  });
  registry.handle(Method.ResourcesRead, (p, ctx) => resources.read(p!.uri as string, ctx));
  registry.handle(Method.PromptsList, (p) => {
    const { page, nextCursor } = paginate(prompts.list(), p?.cursor, size);
    return nextCursor === undefined ? { prompts: page } : { prompts: page, nextCursor };
  });
  registry.handle(Method.PromptsGet, (p, ctx) => prompts.get(p!, ctx));
  registry.handle(Method.CompletionComplete, (p) => complete(prompts, resources, p!));
  registry.handle(Method.ServerDiscover, () => stateless.discover(), '2026-07-28');
  registry.handle(Method.SubscriptionsListen, (p, ctx) => stateless.listen(p, ctx), '2026-07-28');
}

/** `completion/complete`: -32602 for an unknown prompt or resource template. */
async function complete(prompts: PromptRegistry, resources: ResourceRegistry, params: JSONObject): Promise<JSONObject> {
  const ref = params.ref as { type: string; name?: string; uri?: string };
  const argument = params.argument as { name: string; value: string };
  const context = { arguments: ((params.context as JSONObject | undefined)?.arguments ?? {}) as Record<string, string> };
  let completer: Completer | undefined | null;
  if (ref.type === 'ref/prompt') {
    completer = prompts.completer(ref.name!, argument.name);
    if (completer === null) throw invalidParams(`Unknown prompt: ${ref.name}`);
  } else {
    completer = resources.completer(ref.uri!, argument.name);
    if (completer === null && !resources.has(ref.uri!)) throw invalidParams(`Unknown resource template: ${ref.uri}`);
  }
  const answer = completer ? await completer(argument.value, context) : undefined;
  return toCompleteResult(answer) as unknown as JSONObject;
}
