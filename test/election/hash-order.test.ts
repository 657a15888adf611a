import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { electionIPText, hashOrderIndices, nodeIPHash, rankNodes } from '../../src/election';
import { ip } from './factories';

/** MetalLB's way: hash inside the comparator, createHash each time (speaker/layer2_controller.go). */
function comparatorOrder(nodes: readonly string[], ipText: string): string[] {
  const h = (n: string) => createHash('sha256').update(`${n}#${ipText}`).digest();
  return [...nodes].sort((a, b) => Buffer.compare(h(a), h(b)));
}

describe('hash order', () => {
  it('hashes node + "#" + the canonical IP text', () => {
    expect(nodeIPHash('node-a', '10.0.0.1').toString('hex')).toBe(createHash('sha256').update('node-a#10.0.0.1').digest('hex'));
  });

  it('hashes the first IP in Go canonical text (dual stack: the first, whatever its family)', () => {
    expect(electionIPText([ip('2001:DB8:0:0::1'), ip('10.0.0.1')])).toBe('2001:db8::1');
    expect(electionIPText([ip('::ffff:10.0.0.1')])).toBe('10.0.0.1');
    expect(electionIPText([])).toBeUndefined();
  });

  it('equals the comparator sort for random node sets', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 80 }),
        fc.constantFrom('10.0.0.1', '2001:db8::1', '192.168.1.250'),
        (nodes, ipText) => {
          expect(rankNodes(nodes, ipText)).toEqual(comparatorOrder(nodes, ipText));
        },
      ),
      { numRuns: 300 },
    );
  });

  // Found by brute force: both digests start df2b66ad4 (37 equal leading bits), so their float64 keys differ
  // only in the node index; the full-digest fix-up must put node-497308 (…ad48…) before node-123098 (…ad4f…).
  it('orders a 37-bit prefix collision by the full digest (regression)', () => {
    const pair = ['node-123098', 'node-497308'];
    expect(rankNodes(pair, '10.0.0.1')).toEqual(['node-497308', 'node-123098']);
    const many = ['a', 'node-123098', 'b', 'node-497308', 'c'];
    expect(rankNodes(many, '10.0.0.1')).toEqual(comparatorOrder(many, '10.0.0.1'));
  });

  it('falls back to a comparator sort beyond 65,536 nodes', () => {
    const nodes = Array.from({ length: 65_600 }, (_, i) => `n${i}`);
    const order = hashOrderIndices(nodes, '10.1.2.3');
    expect(order).toBeInstanceOf(Uint32Array);
    const hashes = Array.from(order, (i) => nodeIPHash(nodes[i] as string, '10.1.2.3'));
    for (let i = 1; i < hashes.length; i++) expect(Buffer.compare(hashes[i - 1]!, hashes[i]!)).toBeLessThan(0);
  });
});
