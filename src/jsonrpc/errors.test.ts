import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalError, McpError, toError } from './errors.js';

test('toError returns an Error as it is and wraps anything else', () => {
  // Error subclasses keep their identity (an McpError still carries its JSON-RPC code).
  for (const e of [new Error('x'), new TypeError('t'), new McpError(-32602, 'bad'), new LocalError('timeout', 'late')]) assert.equal(toError(e), e);
  for (const [value, message] of [
    ['boom', 'boom'],
    [42, '42'],
    [undefined, 'undefined'],
    [null, 'null'],
    [{ toString: () => 'custom' }, 'custom'],
  ] as const) {
    const e = toError(value);
    assert.ok(e instanceof Error);
    assert.equal(e.constructor, Error);
    assert.equal(e.message, message);
  }
});
