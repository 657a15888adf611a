/**
 * The (time, order) min-heap behind the gossip simulation's agenda and the self-check's probe queue: whatever the
 * pushes and pops, each pop returns the earliest entry, equal times by order; a heap built from a list at once
 * pops the same as one pushed entry by entry.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimeOrderHeap } from '../../src/runtime/time-order-heap';

interface Item {
  readonly time: number;
  readonly order: number;
  readonly id: number;
}

const earliest = (items: readonly Item[]): Item =>
  items.reduce((a, b) => (b.time < a.time || (b.time === a.time && b.order < a.order) ? b : a));

describe('TimeOrderHeap', () => {
  it('pops the earliest time first and equal times by order, across any mix of pushes and pops', () => {
    // Few distinct times and orders, so that ties on time (and on both) are common.
    const step = fc.oneof(
      fc.record({ time: fc.integer({ min: 0, max: 5 }), order: fc.integer({ min: 0, max: 5 }) }),
      fc.constant('pop' as const),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const heap = new TimeOrderHeap<Item>();
        const held: Item[] = [];
        steps.forEach((s, id) => {
          if (s !== 'pop') {
            const item = { ...s, id };
            heap.push(item);
            held.push(item);
            return;
          }
          const popped = heap.pop();
          if (held.length === 0) return expect(popped).toBeUndefined();
          const want = earliest(held);
          expect([popped!.time, popped!.order]).toEqual([want.time, want.order]);
          held.splice(held.indexOf(popped!), 1);
        });
        expect(heap.size).toBe(held.length);
      }),
    );
  });

  it('built from a list, pops in the same (time, order) sequence as one pushed entry by entry', () => {
    const item = fc.record({ time: fc.integer({ min: 0, max: 20 }), order: fc.integer({ min: 0, max: 1000 }), id: fc.nat() });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 300 }), (items) => {
        const built = new TimeOrderHeap([...items]);
        const pushed = new TimeOrderHeap<Item>();
        for (const i of items) pushed.push(i);
        const drain = (h: TimeOrderHeap<Item>) => {
          const out: [number, number][] = [];
          for (let i = h.peek(); i; i = h.peek()) out.push([h.pop()!.time, i.order]);
          return out;
        };
        const sorted = [...items].sort((a, b) => a.time - b.time || a.order - b.order).map((i): [number, number] => [i.time, i.order]);
        expect(drain(built)).toEqual(sorted);
        expect(drain(pushed)).toEqual(sorted);
      }),
    );
  });
});
