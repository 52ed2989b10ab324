// Preloaded (`node --require`) into the conformance suite's own Node process by
// scripts/conformance.mjs. The suite's mock servers call `listen(0)` and so would accept
// connections on every interface; this keeps them on loopback.
//
// The hook is `net.Server.prototype._listen2`, the step every TCP `listen()` ends in once
// its address is settled (Node keeps that name so wrappers like this one keep working).
// Wrapping `listen()` itself would not do: `listen(0, '127.0.0.1')` resolves the host
// asynchronously, and the suite reads `server.address()` right after `listen(0)`.
// A TCP listen on no address or a wildcard (0.0.0.0, ::) becomes 127.0.0.1; explicit
// addresses, pipes and inherited handles are left alone. The preload then removes itself
// from NODE_OPTIONS so the client processes the suite spawns (the code under test) run
// unpatched.
'use strict';

const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const WILDCARDS = new Set(['', '0.0.0.0', '::', '::0']);
const originalListen2 = net.Server.prototype._listen2;
if (typeof originalListen2 !== 'function') throw new Error('loopback-preload: this Node version has no net.Server.prototype._listen2');

net.Server.prototype._listen2 = function _listen2(address, port, addressType, backlog, fd, flags) {
  const tcp = typeof port === 'number' && port >= 0 && (fd === undefined || fd === null || fd < 0);
  if (tcp && (address === null || address === undefined || WILDCARDS.has(address))) {
    return originalListen2.call(this, LOOPBACK, port, 4, backlog, fd, flags);
  }
  return originalListen2.call(this, address, port, addressType, backlog, fd, flags);
};

function unquote(text) {
  return typeof text === 'string' ? text.replace(/^"(.*)"$/, '$1') : text;
}

// Keep the patch out of child processes (paths with spaces are not supported here).
if (typeof process.env.NODE_OPTIONS === 'string') {
  const self = __filename;
  const parts = process.env.NODE_OPTIONS.split(/\s+/).filter(Boolean);
  const kept = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if ((part === '--require' || part === '-r') && unquote(parts[i + 1]) === self) {
      i++;
      continue;
    }
    if (part.startsWith('--require=') && unquote(part.slice(10)) === self) continue;
    kept.push(part);
  }
  if (kept.length === 0) delete process.env.NODE_OPTIONS;
  else process.env.NODE_OPTIONS = kept.join(' ');
}
