import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extendedTableFor, hasCapability, type ProtocolExtension, tableFor } from './table.js';

test('each revision has its own table', () => {
  assert.equal(tableFor('2024-11-05')!.batches, true);
  assert.equal(tableFor('2025-03-26')!.batches, true);
  assert.equal(tableFor('2025-06-18')!.batches, false);
  assert.equal(tableFor('2025-06-18')!.methods.has('elicitation/create'), true);
  assert.equal(tableFor('2025-03-26')!.methods.has('elicitation/create'), false);
  assert.equal(tableFor('2025-11-25')!.methods.has('notifications/elicitation/complete'), true);
  assert.equal(tableFor('2025-06-18')!.methods.has('notifications/elicitation/complete'), false);
  assert.equal(tableFor('2024-11-05')!.methods.get('completion/complete')!.gate, undefined);
  assert.deepEqual(tableFor('2025-03-26')!.methods.get('completion/complete')!.gate, { holder: 'receiver', path: ['completions'] });
  assert.equal(tableFor('1999-01-01'), undefined);
});

test('extensions add entries per revision; extended tables are shared', () => {
  const ext: ProtocolExtension = {
    name: 'test-ext',
    methods: (revision) =>
      revision === '2025-11-25' ? [{ method: 'x/get', kind: 'request', direction: 'both', gate: { holder: 'receiver', path: ['x'] } }] : [],
  };
  const t = extendedTableFor('2025-11-25', [ext])!;
  assert.equal(t.methods.has('x/get'), true);
  assert.equal(t.methods.has('tools/call'), true);
  assert.equal(tableFor('2025-11-25')!.methods.has('x/get'), false, 'the base table is untouched');
  assert.equal(extendedTableFor('2025-11-25', [ext]), t, 'cached');
  assert.equal(extendedTableFor('2025-06-18', [ext])!.methods.has('x/get'), false);
  assert.equal(extendedTableFor('2025-11-25', []), tableFor('2025-11-25'));
});

test('hasCapability reads nested paths; null and false do not count', () => {
  assert.equal(hasCapability({ a: { b: {} } }, ['a', 'b']), true);
  assert.equal(hasCapability({ a: { b: null } }, ['a', 'b']), false);
  assert.equal(hasCapability({ a: false }, ['a']), false);
  assert.equal(hasCapability(undefined, ['a']), false);
  assert.equal(hasCapability({ a: 1 }, ['a', 'b']), false);
});
