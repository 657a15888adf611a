// The allocator is the first live node by sha256(node + "#mlb-allocator"), checked against hashes computed
// here with node:crypto, so a change of the election code cannot silently move the allocator.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALLOCATOR_ELECTION_NAME, allocatorOrder, chooseAllocator } from '../../../src/daemon/allocation';

function byHash(nodes: string[]): string[] {
  const digest = (n: string): Buffer => createHash('sha256').update(`${n}#mlb-allocator`).digest();
  return [...new Set(nodes)].sort((a, b) => Buffer.compare(digest(a), digest(b)));
}

describe('chooseAllocator', () => {
  it('hashes the name "mlb-allocator" the way MetalLB hashes an IP', () => {
    expect(ALLOCATOR_ELECTION_NAME).toBe('mlb-allocator');
    const nodes = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5'];
    expect(allocatorOrder(nodes)).toEqual(byHash(nodes));
    expect(chooseAllocator(nodes)).toBe(byHash(nodes)[0]);
  });

  it('does not depend on the order members are listed in, nor on duplicates', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 12 }), (nodes) => {
        const expected = byHash(nodes)[0];
        return (
          chooseAllocator(nodes) === expected &&
          chooseAllocator([...nodes].reverse()) === expected &&
          chooseAllocator([...nodes, ...nodes]) === expected
        );
      }),
    );
  });

  it('hands over to the next node in hash order when the allocator leaves', () => {
    const nodes = ['node-1', 'node-2', 'node-3', 'node-4'];
    const [first, second] = byHash(nodes);
    expect(chooseAllocator(nodes.filter((n) => n !== first))).toBe(second);
  });

  it('has no allocator without live nodes', () => {
    expect(chooseAllocator([])).toBeUndefined();
  });
});
