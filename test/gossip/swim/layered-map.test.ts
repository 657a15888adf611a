// The reducer's layered maps (layered-map.ts) behave as Maps, including their iteration order, and a view opened
// over a state's map never changes that map, however many writes, deletes and folds the view goes through.
import { describe, expect, it } from 'vitest';
import { LayeredMap, MapIndex, MapMemo } from '../../../src/gossip/swim/layered-map';
import { Random, seedRng } from '../../../src/gossip/swim/random';

describe('LayeredMap', () => {
  it('does what a Map does, in the same order, through many steps of random writes over shared states', () => {
    const random = new Random(seedRng(7));
    let state: ReadonlyMap<number, number> = new Map([...Array(200).keys()].map((k) => [k, k]));
    let reference = new Map(state);
    for (let step = 0; step < 400; step++) {
      const before = [...state];
      const draft = LayeredMap.over(state);
      const expected = new Map(reference);
      for (let op = random.int(6); op > 0; op--) {
        const key = random.int(260);
        if (random.int(3) === 0) {
          expect(draft.delete(key)).toBe(expected.delete(key));
        } else {
          draft.set(key, step);
          expected.set(key, step);
        }
        expect(draft.has(key)).toBe(expected.has(key));
        expect(draft.get(key)).toBe(expected.get(key));
      }
      expect([...draft]).toEqual([...expected]);
      expect([...draft.keys()]).toEqual([...expected.keys()]);
      expect([...draft.values()]).toEqual([...expected.values()]);
      expect(draft.size).toBe(expected.size);
      // The state the draft was opened over is untouched.
      expect([...state]).toEqual(before);
      state = draft;
      reference = expected;
    }
  });

  it('a deleted and re-added key moves to the end, as in a Map', () => {
    const draft = LayeredMap.over(
      new Map([
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ]),
    );
    draft.delete('a');
    draft.set('a', 4);
    draft.set('b', 5);
    expect([...draft]).toEqual([
      ['b', 5],
      ['c', 3],
      ['a', 4],
    ]);
  });

  it('finds a value by a secondary key, in the base and in the layers, and forgets deleted ones', () => {
    const byValue = new MapIndex<string>((v) => v.toUpperCase());
    const draft = LayeredMap.over(
      new Map([
        [1, 'a'],
        [2, 'b'],
      ]),
    );
    expect(draft.findBy(byValue, 'B')).toBe(2);
    draft.set(3, 'c');
    draft.set(2, 'x');
    draft.delete(1);
    expect(draft.findBy(byValue, 'C')).toBe(3);
    expect(draft.findBy(byValue, 'X')).toBe(2);
    expect(draft.findBy(byValue, 'B')).toBeUndefined();
    expect(draft.findBy(byValue, 'A')).toBeUndefined();
  });

  it('derives a memo once per content: again after a write, not for a view that only read', () => {
    const memo = new MapMemo<number, number, number>();
    let runs = 0;
    const sum = (m: LayeredMap<number, number>) => {
      runs++;
      return [...m.values()].reduce((a, b) => a + b, 0);
    };
    const first = LayeredMap.over(
      new Map([
        [1, 1],
        [2, 2],
      ]),
    );
    expect(first.memo(memo, sum)).toBe(3);
    const reader = LayeredMap.over(first);
    expect(reader.memo(memo, sum)).toBe(3);
    expect(runs).toBe(1);
    reader.set(3, 3);
    expect(reader.memo(memo, sum)).toBe(6);
    expect(first.memo(memo, sum)).toBe(3);
    expect(runs).toBe(2);
  });
});

describe('Random.pickFrom (the gossip round over its memoised census)', () => {
  it('chooses what pick chooses from the same pool and state, and leaves the pool as it was', () => {
    for (let seed = 1; seed < 50; seed++) {
      const pool = Array.from({ length: seed % 9 }, (_, i) => `m${i}`);
      const copy = [...pool];
      const a = new Random(seedRng(seed));
      const b = new Random(seedRng(seed));
      expect(a.pickFrom(3, pool)).toEqual(b.pick(3, pool, () => true));
      expect(a.state).toEqual(b.state);
      expect(pool).toEqual(copy);
    }
  });
});
