/**
 * The prompt registry. Arguments are declared as a list (`PromptArgument[]`) or derived
 * from a schema object whose properties are the arguments; missing required arguments
 * and unknown prompts are protocol errors (-32602).
 */
import { invalidParams, McpError } from '../jsonrpc/errors.js';
import type { JSONObject } from '../jsonrpc/types.js';
import type { GetPromptResult, Icon, Meta, Prompt, PromptArgument } from '../types.js';
import type { Completer } from './completions.js';
import { promptResultForRevision } from './content-compat.js';
import type { ServerRequestContext } from './context.js';

/**
 * Definition of a prompt. `A` is the declared argument list's own type: the handler's
 * arguments are typed from it (a string per required argument, an optional one per other).
 */
export interface PromptConfig<A extends readonly PromptArgument[] | undefined = readonly PromptArgument[] | undefined> {
  title?: string;
  description?: string;
  arguments?: A;
  icons?: Icon[];
  _meta?: Meta;
  /** Completers of arguments, for `completion/complete` with `ref/prompt`. */
  complete?: Record<string, Completer>;
}

/** Builds the prompt's messages from its (string) arguments. */
export type PromptHandler<A = Record<string, string | undefined>> = (args: A, ctx: ServerRequestContext) => GetPromptResult | Promise<GetPromptResult>;

/** A handle on a registered prompt. */
export interface RegisteredPrompt {
  readonly name: string;
  remove(): void;
}

interface Entry {
  definition: Prompt;
  required: string[];
  complete: Record<string, Completer> | undefined;
  handler: PromptHandler<Record<string, string>>;
}

/** Registry of prompts. */
export class PromptRegistry {
  readonly #prompts = new Map<string, Entry>();
  readonly #changed: () => void;
  #list: Prompt[] | undefined;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  get size(): number {
    return this.#prompts.size;
  }

  /** Registers a prompt. Throws TypeError for a duplicate or empty name. */
  register<A>(name: string, config: PromptConfig, handler: PromptHandler<A>): RegisteredPrompt {
    if (name.length === 0) throw new TypeError('A prompt needs a name');
    if (this.#prompts.has(name)) throw new TypeError(`A prompt named ${JSON.stringify(name)} is already registered`);
    const definition: Prompt = { name };
    if (config.title !== undefined) definition.title = config.title;
    if (config.description !== undefined) definition.description = config.description;
    if (config.arguments !== undefined) definition.arguments = [...config.arguments];
    if (config.icons !== undefined) definition.icons = config.icons;
    if (config._meta !== undefined) definition._meta = config._meta;
    const required = (config.arguments ?? []).filter((a) => a.required).map((a) => a.name);
    this.#prompts.set(name, { definition, required, complete: config.complete, handler: handler as unknown as PromptHandler<Record<string, string>> });
    this.#touch();
    return { name, remove: () => this.#prompts.delete(name) && this.#touch() };
  }

  #touch(): void {
    this.#list = undefined;
    this.#changed();
  }

  /** True when some prompt has argument completers. */
  get hasCompleters(): boolean {
    for (const e of this.#prompts.values()) if (e.complete) return true;
    return false;
  }

  list(): Prompt[] {
    return (this.#list ??= Array.from(this.#prompts.values(), (e) => e.definition));
  }

  /** Runs `prompts/get`. Throws -32602 for an unknown prompt or a missing required argument. */
  async get(params: JSONObject, ctx: ServerRequestContext): Promise<GetPromptResult> {
    const name = params.name as string;
    const entry = this.#prompts.get(name);
    if (entry === undefined) throw invalidParams(`Unknown prompt: ${name}`);
    const args = (params.arguments ?? {}) as Record<string, string>;
    for (const r of entry.required) {
      if (typeof args[r] !== 'string') throw invalidParams(`Invalid params: missing required argument "${r}" of prompt ${name}`);
    }
    const result = await entry.handler(args, ctx);
    if (!result || !Array.isArray(result.messages)) throw new McpError(-32603, 'Internal error');
    return promptResultForRevision(result, ctx?.protocolVersion ?? ctx?.connection?.protocolVersion);
  }

  /** The completer of `argument` of prompt `name`: undefined when none, null when the prompt is unknown. */
  completer(name: string, argument: string): Completer | undefined | null {
    const entry = this.#prompts.get(name);
    if (entry === undefined) return null;
    const complete = entry.complete;
    // own entries only: a name from the wire must not reach Object.prototype members
    return complete !== undefined && Object.hasOwn(complete, argument) ? complete[argument] : undefined;
  }
}
