/**
 * Fault and abuse suite: the idle sweep of Streamable HTTP sessions spares busy sessions. A
 * session with a request in flight is never idle, in either response mode, and its idle
 * time counts from when its last request finished (or its last stream closed), not from
 * when that request arrived.
 *
 * Expected answers: the sweep is the server's own choice to end a session
 * (2025-11-25 › Basic › Transports › Session Management: the server MAY terminate a session
 * at any time, after which it answers that id with 404); a request in flight is not "idle",
 * so its POST gets its response, not 404, and the session is not terminated under it.
 *
 * Timing: the sweep runs every `sessionIdleTimeoutMs / 2`. The margins below are several
 * hundred milliseconds wide in both directions; the sweep itself is what is measured.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, makeHandler, openSession, post, rpc, SseReader, smallServer } from '../helpers/http/server-harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('JSON response mode: a tool call longer than sessionIdleTimeoutMs completes; the session stays usable; an idle one is reaped', async () => {
  const handler = makeHandler({ server: smallServer(), responseMode: 'json', sessionIdleTimeoutMs: 500 });
  const busy = await openSession(handler);
  const idle = await openSession(handler);
  const call = await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 1500 } }), { sessionId: busy });
  assert.equal(call.status, 200, 'the call was answered, not cut off by the sweep');
  const body = (await call.json()) as { result?: { content?: Array<{ text?: string }> } };
  assert.equal(body.result?.content?.[0]?.text, 'waited 1500');
  const ping = await post(handler, rpc(2, 'ping'), { sessionId: busy });
  assert.equal(ping.status, 200, 'idle time counts from the end of the call');
  await ping.body?.cancel();
  assert.equal((await post(handler, rpc(3, 'ping'), { sessionId: idle })).status, 404, 'the session nobody used was reaped meanwhile');
  await eventually(() => handler.sessionCount === 0, 10_000, 'the busy session reaped once idle');
  await handler.close();
});

test('SSE response mode: after a call longer than sessionIdleTimeoutMs, the idle clock starts when the call finished', async () => {
  const handler = makeHandler({ server: smallServer(), sessionIdleTimeoutMs: 1000 });
  const sessionId = await openSession(handler);
  const call = await post(handler, rpc(1, 'tools/call', { name: 'wait', arguments: { ms: 2500 } }), { sessionId });
  assert.equal(call.status, 200);
  const messages = await new SseReader(call).restMessages(10_000);
  assert.equal(messages.at(-1)?.id, 1);
  // more than one sweep interval (500 ms) later, but well within the idle timeout of the call's end
  await sleep(600);
  const ping = await post(handler, rpc(2, 'ping'), { sessionId });
  assert.equal(ping.status, 200, 'not reaped: idle for 600 ms only');
  await ping.body?.cancel();
  await handler.close();
});
