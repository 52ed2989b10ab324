/**
 * Helpers of the Redis tests: a bounded poll, and one "server instance" — the task test
 * fixture's server on a given store, with a real Client connected to it in memory. Not part
 * of the package.
 */
import assert from 'node:assert/strict';
import { Client } from '../../../src/client/client.js';
import { TaskClient } from '../../../src/tasks/client.js';
import type { TaskStore } from '../../../src/tasks/store.js';
import { InMemoryTransport } from '../../../src/transport/memory.js';
import { type Fixture, taskFixture } from '../task-fixture.js';

/** Polls `condition` every 10 ms until true; fails after `ms`. */
export async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new assert.AssertionError({ message: `timed out waiting for ${what}` });
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A task server on `store` and a client connected to it. */
export interface TaskPeer {
  fx: Fixture;
  client: Client;
  tasks: TaskClient;
  /** Closes the client and the task server (not the store). */
  close(): Promise<void>;
}

/**
 * Serves the task fixture on `store`, every task owned by one authenticated user (so tasks
 * do not depend on the connection and any instance may serve them), and connects a client.
 */
export async function taskPeer(store: TaskStore): Promise<TaskPeer> {
  const fx = taskFixture({ store, ownerOf: () => ({ auth: 'user-1' }) });
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  await fx.server.connect(serverEnd);
  const client = new Client({ name: 'redis-test', version: '1.0.0' });
  const tasks = new TaskClient(client, { sweepIntervalMs: 0 });
  await client.connect(clientEnd);
  return {
    fx,
    client,
    tasks,
    async close() {
      await client.close();
      await fx.tasks?.close();
    },
  };
}
