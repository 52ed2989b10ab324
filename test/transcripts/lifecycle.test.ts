/**
 * Lifecycle transcripts: initialization, version negotiation, what may cross before
 * initialization, and ping.
 * Spec: 2025-03-26 › Basic › Lifecycle (Initialization, Version Negotiation, Capability
 * Negotiation, Operation) and › Basic › Utilities › Ping.
 */

import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { error, handshake, harnessTest, initializeParams, isText, matches, notification, request, result } from './harness.js';

describe('lifecycle', () => {
  // Lifecycle › Version Negotiation: "If the server supports the requested protocol
  // version, it MUST respond with the same version."
  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    harnessTest(`initialize echoes the requested version ${version}`, async (h) => {
      const c = await h.raw();
      await c.run([
        { send: request(1, 'initialize', initializeParams(version)) },
        {
          expect: result(1, {
            protocolVersion: version,
            capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} },
            serverInfo: { name: 'mcpkit-demo', version: '0.1.0' },
            instructions: isText,
          }),
        },
        { send: notification('notifications/initialized') },
        { send: request(2, 'tools/list') },
        { expect: result(2, { tools: Array.isArray }) },
      ]);
      assert.equal(c.session.protocolVersion, version);
      assert.equal(c.session.ready, true);
    });
  }

  // Lifecycle › Version Negotiation: "Otherwise, the server MUST respond with another
  // protocol version it supports. This SHOULD be the latest version supported by the server."
  harnessTest('an unknown version falls back to the newest one', async (h) => {
    const c = await h.raw();
    await c.run([
      { send: request(1, 'initialize', initializeParams('1999-01-01')) },
      { expect: result(1, { protocolVersion: '2025-11-25' }) },
      { send: notification('notifications/initialized') },
    ]);
  });

  // Lifecycle › Initialization: "The client SHOULD NOT send requests other than pings
  // before the server has responded to the initialize request."
  harnessTest('only ping is served before initialization', async (h) => {
    const c = await h.raw();
    await c.run([
      { send: request(1, 'ping') },
      { expect: result(1, {}) },
      { send: request(2, 'tools/list') },
      { expect: error(2, -32600, { message: matches(/before initialization/) }) },
      { send: request(3, 'tools/call', { name: 'echo', arguments: { message: 'x' } }) },
      { expect: error(3, -32600) },
      // a method no revision has is -32601 even now
      { send: request(4, 'no/such/method') },
      { expect: error(4, -32601) },
      ...handshake('2025-11-25'),
      { send: request(5, 'tools/list') },
      { expect: result(5, { tools: Array.isArray }) },
    ]);
  });

  // Lifecycle › Initialization: initialization is the first interaction and happens once.
  harnessTest('a second initialize is refused and changes nothing', async (h) => {
    const c = await h.raw();
    await c.init('2025-06-18');
    await c.run([
      { send: request(1, 'initialize', initializeParams('2025-11-25')) },
      { expect: error(1, -32600, { message: matches(/already initialized/) }) },
    ]);
    assert.equal(c.session.protocolVersion, '2025-06-18');
  });

  // Lifecycle › Initialization: malformed initialize params are -32602 naming the field.
  harnessTest('initialize without clientInfo is -32602 naming the field', async (h) => {
    const c = await h.raw();
    await c.run([
      { send: request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} }) },
      { expect: error(1, -32602, { message: (m: string) => m.includes('"clientInfo"') }) },
      // the failed attempt did not initialize the session
      { send: request(2, 'tools/list') },
      { expect: error(2, -32600) },
    ]);
  });

  // Basic › Utilities › Ping: "The receiver MUST respond promptly with an empty response."
  harnessTest('ping both ways', async (h) => {
    const c = await h.raw();
    await c.init();
    await c.run([{ send: request('p-1', 'ping') }, { expect: result('p-1', {}) }]);
    const pinged = c.session.ping();
    await c.run([{ expect: request(1, 'ping') }, { send: result(1, {}) }]);
    await pinged;
  });

  // Lifecycle › Initialization: the server's `initialized` listener flips `ready`; until
  // then list_changed notifications are held back (Operation starts after initialized).
  harnessTest('no list_changed reaches a client that has not sent initialized', async (h) => {
    const c = await h.raw();
    await c.run([{ send: request(0, 'initialize', initializeParams()) }, { expect: result(0, { protocolVersion: '2025-11-25' }) }]);
    c.server.registerTool('late', { description: 'registered before initialized' }, () => 'late');
    await c.run([{ expectSilence: 50 }, { send: notification('notifications/initialized') }]);
    c.server.registerTool('later', { description: 'registered after initialized' }, () => 'later');
    await c.run([{ expect: notification('notifications/tools/list_changed') }]);
  });
});
