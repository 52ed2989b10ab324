import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestId } from '../jsonrpc/types.js';
import { IdTable } from './id-table.js';

/** Runs the same operations on an IdTable and a Map and checks they agree after each step. */
function agree(table: IdTable<string>, model: Map<RequestId, string>, probe: readonly RequestId[]): void {
  assert.equal(table.size, model.size);
  for (const id of probe) {
    assert.equal(table.get(id), model.get(id), `get(${JSON.stringify(id)})`);
    assert.equal(table.has(id), model.has(id), `has(${JSON.stringify(id)})`);
  }
  assert.deepEqual([...table.values()].sort(), [...model.values()].sort());
}

test('behaves as a Map for ring ids, colliding ids, strings and other numbers', () => {
  const table = new IdTable<string>(4);
  const model = new Map<RequestId, string>();
  // 1, 5 and 9 share a slot of a 4-slot ring; "1" is a different id from 1; -1, 1.5 and 2^32 never use the ring
  const ids: RequestId[] = [1, 5, 9, '1', 0, -1, 1.5, 2 ** 32, 4294967295, 'x', 3];
  const probe = [...ids, 2, 13, '5', 'y'];
  for (const id of ids) {
    table.set(id, `v${String(id)}`);
    model.set(id, `v${String(id)}`);
    agree(table, model, probe);
  }
  // replacing keeps the size
  table.set(5, 'again');
  model.set(5, 'again');
  agree(table, model, probe);
  // free the slot of 1: 5 and 9 (in the overflow) must still be found, and setting 5 again must not duplicate it
  assert.equal(table.delete(1), model.delete(1));
  agree(table, model, probe);
  table.set(5, 'third');
  model.set(5, 'third');
  agree(table, model, probe);
  table.set(13, 'ring');
  model.set(13, 'ring');
  agree(table, model, probe);
  for (const id of [...probe, 5, 13]) {
    assert.equal(table.delete(id), model.delete(id), `delete(${JSON.stringify(id)})`);
    agree(table, model, probe);
  }
  assert.equal(table.size, 0);
});

test('0 and -0 are one id, as in a Map', () => {
  const table = new IdTable<string>();
  table.set(0, 'zero');
  assert.equal(table.get(-0), 'zero');
  table.set(-0, 'again');
  assert.equal(table.size, 1);
  assert.equal(table.delete(-0), true);
  assert.equal(table.size, 0);
});

test('values() skips entries deleted during the walk; clear() empties ring and overflow', () => {
  const table = new IdTable<number>(2);
  for (let i = 0; i < 6; i++) table.set(i, i);
  const seen: number[] = [];
  for (const v of table.values()) {
    seen.push(v);
    if (v === 0) table.delete(1); // 1 is in the ring after 0
  }
  assert.ok(!seen.includes(1));
  assert.equal(seen.length, 5);
  table.clear();
  assert.equal(table.size, 0);
  assert.deepEqual([...table.values()], []);
  for (let i = 0; i < 6; i++) assert.equal(table.get(i), undefined);
});

test('a long run of counter ids through a small ring stays consistent with a Map', () => {
  const table = new IdTable<number>(8);
  const model = new Map<RequestId, number>();
  // a window of up to 12 in flight over an 8-slot ring: some ids overflow, slots free and refill
  let next = 0;
  for (let step = 0; step < 2000; step++) {
    if (model.size < 12 && step % 3 !== 2) {
      table.set(next, next);
      model.set(next, next);
      next++;
    } else {
      const oldest = model.keys().next().value as number;
      assert.equal(table.delete(oldest), true);
      model.delete(oldest);
    }
    assert.equal(table.size, model.size);
  }
  for (const id of model.keys()) assert.equal(table.get(id), id);
});

test('the ring size must be a power of two from 1 to 65536', () => {
  for (const bad of [0, 3, 12, 131072, 1.5, -2]) assert.throws(() => new IdTable(bad), RangeError);
  for (const good of [1, 2, 256, 65536]) assert.equal(new IdTable(good).size, 0);
});

test('agrees with a Map across ring growth (random operations, ids colliding at every ring size)', () => {
  // a fixed-seed generator: the run is the same every time
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (const limit of [1, 2, 8, 16]) {
    const table = new IdTable<string>(limit);
    const model = new Map<RequestId, string>();
    const probe: RequestId[] = [...Array.from({ length: 70 }, (_, i) => i), '3', 'z'];
    for (let step = 0; step < 2000; step++) {
      const id: RequestId = rand(10) === 0 ? (rand(2) === 0 ? '3' : 'z') : rand(70);
      if (rand(3) === 0) assert.equal(table.delete(id), model.delete(id));
      else {
        table.set(id, `v${step}`);
        model.set(id, `v${step}`);
      }
      if (step % 50 === 0) agree(table, model, probe);
    }
    agree(table, model, probe);
  }
});
