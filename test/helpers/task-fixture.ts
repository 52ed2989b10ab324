/**
 * Test fixture of the task tests: a small server whose tools exercise every path of a task
 * (progress, logs, elicitation, sampling, tool errors, protocol errors, a hold the test
 * releases, cancellation), and helpers for transcripts that need to capture a task id.
 *
 * Design note: a tool that must stay unfinished waits on a {@link Probe} gate the test opens
 * with `release()`, so transcripts are deterministic without timing guesses; the gate rejects
 * when the task's signal fires, and the probe records every abort the work saw.
 */
import { McpError } from '../../src/jsonrpc/errors.js';
import type { JSONObject } from '../../src/jsonrpc/types.js';
import { McpServer, type ServerOptions } from '../../src/server/index.js';
import {
  InMemoryTaskStore,
  type NewTask,
  type TaskOwner,
  type TaskPage,
  type TaskPatch,
  type TaskRecord,
  TaskServer,
  type TaskServerOptions,
  type TaskStore,
} from '../../src/tasks/index.js';

/** What the fixture's tools saw, and the gate that holds them. */
export class Probe {
  /** Calls started. */
  started = 0;
  /** Abort reasons the work saw, in order. */
  readonly aborted: string[] = [];
  readonly #waiting: Array<() => void> = [];
  readonly #early: number[] = [];

  /** Waits until {@link release} (or rejects when `signal` fires). */
  hold(signal: AbortSignal): Promise<void> {
    if (this.#early.length > 0) {
      this.#early.pop();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const go = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(go);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(go);
    });
  }

  /** Lets the oldest held call go on (or the next one to hold, when none waits yet). */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#early.push(1);
  }

  /** Number of calls holding now. */
  get holding(): number {
    return this.#waiting.length;
  }
}

/** Arguments of the fixture's `job` tool. */
export interface JobArgs {
  /** Hold before anything else (released by the test). */
  wait?: boolean;
  progress?: boolean;
  log?: boolean;
  hold?: boolean;
  ask?: 'elicit' | 'sample';
  fail?: 'tool' | 'protocol' | 'throw';
}

/** The fixture: a server with tasks enabled (unless `tasks` is false) and its probe. */
export interface Fixture {
  server: McpServer;
  tasks: TaskServer | undefined;
  probe: Probe;
}

/**
 * Builds the fixture server. Tools: `job` (taskSupport optional; see {@link JobArgs}),
 * `must` (required; answers at once), `plain` (no execution member, i.e. forbidden).
 */
export function taskFixture(options: TaskServerOptions | false = {}, serverOptions: ServerOptions = {}): Fixture {
  const server = new McpServer({ name: 'task-fixture', version: '1.0.0' }, serverOptions);
  const probe = new Probe();
  const tasks = options === false ? undefined : new TaskServer(server, { pollIntervalMs: 20, sweepIntervalMs: 0, ...options });
  server.registerTool(
    'job',
    {
      description: 'A job for task tests',
      inputSchema: {
        type: 'object',
        properties: {
          progress: { type: 'boolean' },
          log: { type: 'boolean' },
          hold: { type: 'boolean' },
          wait: { type: 'boolean' },
          ask: { type: 'string', enum: ['elicit', 'sample'] },
          fail: { type: 'string', enum: ['tool', 'protocol', 'throw'] },
        },
      },
      execution: { taskSupport: 'optional' },
    },
    async (args: JobArgs, ctx) => {
      probe.started++;
      ctx.signal.addEventListener('abort', () => probe.aborted.push(String((ctx.signal.reason as Error | undefined)?.message ?? ctx.signal.reason)), {
        once: true,
      });
      if (args.wait) await probe.hold(ctx.signal);
      if (args.log) await ctx.log('info', 'job started', 'job');
      if (args.progress) await ctx.sendProgress(1, 2, 'half way');
      let answer = '';
      if (args.ask === 'elicit') {
        const r = await ctx.elicitForm({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        answer = `: ${r.action} ${String(r.content?.name ?? '')}`;
      } else if (args.ask === 'sample') {
        const r = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 });
        answer = `: ${r.model} said ${r.content && !Array.isArray(r.content) && r.content.type === 'text' ? r.content.text : '?'}`;
      }
      if (args.hold) await probe.hold(ctx.signal);
      if (args.progress) await ctx.sendProgress(2, 2, 'done');
      if (args.fail === 'tool') return { content: [{ type: 'text', text: 'job failed' }], isError: true };
      if (args.fail === 'protocol') throw new McpError(-32001, 'job refused', { why: 'asked to' });
      if (args.fail === 'throw') throw new Error('job crashed');
      return { content: [{ type: 'text', text: `job done${answer}` }] };
    },
  );
  server.registerTool('must', { description: 'Must run as a task', execution: { taskSupport: 'required' } }, () => 'must done');
  server.registerTool('plain', { description: 'Never runs as a task' }, () => 'plain done');
  return { server, tasks, probe };
}

/** A transcript predicate that remembers the first value it sees (and accepts only strings). */
export class Capture {
  #value: string | undefined;
  /** The captured value; throws before one was captured. */
  get value(): string {
    if (this.#value === undefined) throw new Error('nothing captured yet');
    return this.#value;
  }
  /** Predicate: captures a string. */
  readonly set = (v: unknown): boolean => {
    if (typeof v !== 'string') return false;
    this.#value = v;
    return true;
  };
  /** Predicate: equals the captured value. */
  readonly is = (v: unknown): boolean => v === this.#value;
}

/** Predicate: an ISO 8601 timestamp. */
export const isIso = (v: unknown): boolean => typeof v === 'string' && !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v);

/** Predicate: a random (version 4) UUID. */
export const isUuid = (v: unknown): boolean => typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(v);

/** The 2025-11-25 related-task `_meta` for the captured id. */
export function related(id: Capture): { 'io.modelcontextprotocol/related-task': { taskId: (v: unknown) => boolean } } {
  return { 'io.modelcontextprotocol/related-task': { taskId: id.is } };
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A store wrapper that records the status after every successful write, per task: the
 * sequence of transitions the engine made. Everything else is delegated unchanged.
 */
export class TransitionLog implements TaskStore {
  readonly inner: TaskStore;
  readonly #log = new Map<string, string[]>();
  constructor(inner: TaskStore = new InMemoryTaskStore()) {
    this.inner = inner;
  }
  /** The statuses `taskId` went through, in order, without repeats. */
  of(taskId: string): string[] {
    return this.#log.get(taskId) ?? [];
  }
  #note(record: TaskRecord): TaskRecord {
    const list = this.#log.get(record.taskId) ?? [];
    if (list[list.length - 1] !== record.status) list.push(record.status);
    this.#log.set(record.taskId, list);
    return record;
  }
  async create(task: NewTask): Promise<TaskRecord> {
    return this.#note(await this.inner.create(task));
  }
  get(taskId: string, owner?: TaskOwner): Promise<TaskRecord | undefined> {
    return this.inner.get(taskId, owner);
  }
  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord> {
    return this.#note(await this.inner.update(taskId, patch));
  }
  async addInputRequest(taskId: string, key: string, request: JSONObject): Promise<TaskRecord> {
    return this.#note(await this.inner.addInputRequest(taskId, key, request));
  }
  async resolveInputRequest(taskId: string, key: string): Promise<TaskRecord> {
    return this.#note(await this.inner.resolveInputRequest(taskId, key));
  }
  list(owner: TaskOwner, page: { cursor?: string; limit: number }): Promise<TaskPage> {
    return this.inner.list(owner, page);
  }
  delete(taskId: string, owner?: TaskOwner): Promise<boolean> {
    return this.inner.delete(taskId, owner);
  }
  sweep(limit: number): Promise<number> {
    return this.inner.sweep(limit);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
