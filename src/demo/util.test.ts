/** The demo's small helpers: `sleep` must not leave a listener on the signal once it is done. */

import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { sleep } from './util.js';

test('sleep removes its abort listener when the time is up (a tool sleeping in many steps must not pile them up)', async () => {
  const controller = new AbortController();
  for (let i = 0; i < 20; i++) await sleep(1, controller.signal);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});

test('sleep still rejects with the reason when aborted', async () => {
  const controller = new AbortController();
  const p = sleep(10_000, controller.signal);
  controller.abort(new Error('stop'));
  await assert.rejects(p, /stop/);
});
