/**
 * Fault and abuse suite, tasks: finished tasks are capped. The attack run made ~2,500 tasks
 * a second and the store kept every finished one for its whole ttl (up to 24 h); now a
 * store keeps at most `maxFinishedTasks` (default 10 000) finished tasks, and at most
 * `maxFinishedTasksPerOwner` (default 1000) of one owner, evicting the ones that finished
 * first. 2025-11-25 › Tasks › Security Considerations › Resource Management: receivers
 * SHOULD enforce limits and clean up promptly; an evicted task answers like an expired one,
 * -32602 (Tasks › Error Handling: "Invalid or nonexistent taskId").
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '../../src/server/server.js';
import { InMemoryTaskStore, TaskServer } from '../../src/tasks/index.js';
import { connectPeer, errorOf } from './server-peer.js';

describe('abuse: finished tasks are capped', () => {
  it('a flood of quick tasks over the wire leaves at most maxFinishedTasks in the store, the newest', async () => {
    const server = new McpServer({ name: 'abuse', version: '1.0.0' });
    server.registerTool('quick', { execution: { taskSupport: 'optional' } }, () => 'done');
    const store = new InMemoryTaskStore({ maxFinishedTasks: 50 });
    const tasks = new TaskServer(server, { store, sweepIntervalMs: 0, statusNotifications: false, maxActiveTasksPerOwner: 400 });
    const peer = await connectPeer(server, { capabilities: {} });
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const r = await peer.call('tools/call', { name: 'quick', arguments: {}, task: {} });
      ids.push((r.task as { taskId: string }).taskId);
    }
    for (let i = 0; i < 500 && tasks.engine.running > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(tasks.engine.running, 0);
    assert.equal(store.size, 50);
    const evicted = errorOf(await peer.request('tasks/get', { taskId: ids[0]! }));
    assert.equal(evicted.code, -32602);
    const kept = await peer.call('tasks/result', { taskId: ids[299]! });
    assert.deepEqual(kept.content, [{ type: 'text', text: 'done' }]);
    const listed = await peer.call('tasks/list', {});
    assert.equal((listed.tasks as unknown[]).length, 50);
    peer.recorder!.assertNoViolations();
    await tasks.close();
    await peer.close();
  });

  it('the defaults: 10 000 finished tasks per store, 1000 per owner', async () => {
    const store = new InMemoryTaskStore();
    const base = { status: 'working' as const, ttlMs: 86_400_000, ttlAnchor: 'created' as const, method: 'tools/call', form: '2025-11-25' };
    // One owner past its own cap keeps its newest 1000.
    for (let i = 0; i < 1500; i++) {
      await store.create({ ...base, taskId: `flood-${i}`, owner: { auth: 'flooder' } });
      await store.update(`flood-${i}`, { status: 'completed', result: {} });
    }
    assert.equal(store.size, 1000);
    assert.equal(await store.get('flood-499'), undefined);
    assert.ok(await store.get('flood-500'));
    // Many owners within their caps fill the store up to 10 000.
    for (let o = 0; o < 12; o++) {
      for (let i = 0; i < 900; i++) {
        const taskId = `o${o}-${i}`;
        await store.create({ ...base, taskId, owner: { auth: `owner-${o}` } });
        await store.update(taskId, { status: 'completed', result: {} });
      }
    }
    assert.equal(store.size, 10_000);
    assert.equal(await store.get('flood-500'), undefined, 'the oldest finished went first');
    assert.ok(await store.get('o11-899'));
    await store.close();
  });
});
