/**
 * Tasks on Cloudflare Workers with the stateless era's rules: a task-augmented `tools/call`
 * (2026-07-28, the `io.modelcontextprotocol/tasks` extension) served by a Worker on workerd
 * (test/runtimes/fixtures/tasks-worker.mjs) whose tasks live in a Durable Object
 * (TaskStoreDurableObject, SQLite-backed, on disk) through DurableObjectTaskStore. mcpkit's
 * client polls a task to its result and answers the input a tool asks before its task
 * starts (multi round-trip); a task finished before
 * workerd restarts is found by `tasks/get` after the restart (the store is not the
 * isolate's memory: with InMemoryTaskStore the restarted Worker knows no such task).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ALL_REVISIONS, Client } from '../../src/client/index.js';
import { StreamableHttpClientTransport } from '../../src/http/client/streamable.js';
import type { JSONObject } from '../../src/jsonrpc/types.js';
import { TASKS_EXTENSION_ID } from '../../src/tasks/index.js';
import { SUITE_TIMEOUT_MS } from '../helpers/bounds.js';
import { fixture, type RuntimeServer } from './harness.js';
import { startWorker } from './workerd.js';

const V = '2026-07-28';
const OBJECTS = [{ binding: 'TASKS', className: 'TaskStoreDurableObject' }];
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION_ID]: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

let nextId = 1;

/** One 2026-07-28 request over raw HTTP (with the routing headers); resolves with the JSON-RPC response. */
async function call(url: string, method: string, params: JSONObject, name: string): Promise<JSONObject> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: META } }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('text/event-stream') ? /^data: (.*)$/m.exec(text)?.[1] : text;
  assert.ok(json !== undefined, `${method}: ${response.status} ${text}`);
  return JSON.parse(json) as JSONObject;
}

/** Polls `tasks/get` until the task ends (at most `ms`); resolves with the task. */
async function untilDone(url: string, taskId: string, ms = 15_000): Promise<JSONObject> {
  const start = Date.now();
  for (;;) {
    const answer = await call(url, 'tasks/get', { taskId }, taskId);
    const task = answer.result as JSONObject | undefined;
    assert.ok(task !== undefined, JSON.stringify(answer));
    if (['completed', 'failed', 'cancelled'].includes(task.status as string)) return task;
    if (Date.now() - start > ms) throw new Error(`task ${taskId} stayed ${String(task.status)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('tasks on a Worker (workerd): the 2026-07-28 tasks extension over a Durable Object store', { timeout: SUITE_TIMEOUT_MS }, () => {
  let storageDir: string;
  let worker: RuntimeServer | undefined;
  const start = async (): Promise<RuntimeServer> =>
    (worker = await startWorker(fixture('tasks-worker.mjs'), {}, 30_000, '/mcp', { durableObjects: OBJECTS, storageDir }));
  before(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'mcpkit-workerd-objects-'));
    await start();
  });
  after(async () => {
    await worker?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it("mcpkit's client polls a task to its result, and answers the input a tool asks before its task starts", async () => {
    const client = new Client(
      { name: 'c', version: '1.0.0' },
      { protocolVersions: ALL_REVISIONS, stateless: { tasks: true }, elicitation: { form: () => ({ action: 'accept', content: { ok: true } }) } },
    );
    await client.connect(new StreamableHttpClientTransport({ url: worker!.url }), { timeoutMs: 15_000 });
    try {
      assert.equal(client.protocolVersion, V);
      const waited = await client.callTool({ name: 'slow', arguments: { ms: 300 } }, { timeoutMs: 15_000, signal: AbortSignal.timeout(20_000) });
      assert.deepEqual(waited.content, [{ type: 'text', text: 'waited 300 ms' }], worker!.stderr());
      const confirmed = await client.callTool({ name: 'confirm', arguments: {} }, { timeoutMs: 15_000, signal: AbortSignal.timeout(20_000) });
      assert.deepEqual(confirmed.content, [{ type: 'text', text: 'answer: accept true' }], worker!.stderr());
    } finally {
      await client.close();
    }
  });

  it('answers a CreateTaskResult, then tasks/get finds the task from the store — also after workerd restarts', async () => {
    const created = await call(worker!.url, 'tools/call', { name: 'slow', arguments: { ms: 200 } }, 'slow');
    const result = created.result as JSONObject;
    assert.ok(result !== undefined, `${JSON.stringify(created)}\n${worker!.stderr()}`);
    assert.equal(result.resultType, 'task', JSON.stringify(created));
    assert.equal(result.status, 'working');
    const taskId = result.taskId as string;
    const done = await untilDone(worker!.url, taskId);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual((done.result as JSONObject).content, [{ type: 'text', text: 'waited 200 ms' }]);

    await worker!.close();
    worker = undefined;
    await start();
    const again = await call(worker!.url, 'tasks/get', { taskId }, taskId);
    const task = again.result as JSONObject | undefined;
    assert.ok(task !== undefined, `the restarted Worker finds the task: ${JSON.stringify(again)}\n${worker!.stderr()}`);
    assert.equal(task.status, 'completed');
    assert.deepEqual((task.result as JSONObject).content, [{ type: 'text', text: 'waited 200 ms' }]);

    const unknown = await call(worker!.url, 'tasks/get', { taskId: 'no-such-task' }, 'no-such-task');
    assert.equal((unknown.error as JSONObject | undefined)?.code, -32602, JSON.stringify(unknown));
  });
});
