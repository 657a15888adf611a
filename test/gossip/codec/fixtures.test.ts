/**
 * The committed captures from real memberlist 0.2.2 nodes (test/fixtures/gossip/, written by
 * test/interop/go/memberlist-capture): every packet and stream decodes without a drop, says what the nodes
 * are, and mlb's encoder reproduces Go's bytes exactly. No Go toolchain needed; the live run of the same
 * checks is test/interop/memberlist-capture.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { checkContent, checkKey, checkReencoding, decodeCapture, loadCaptures, SCENARIOS } from './capture-checks';

const DIR = fileURLToPath(new URL('../../fixtures/gossip/', import.meta.url));
const captures = loadCaptures(DIR);

describe('captures from memberlist 0.2.2', () => {
  it('has every scenario', () => {
    expect(captures.map((c) => c.scenario).sort()).toEqual([...SCENARIOS].sort());
  });

  for (const c of captures) {
    describe(c.scenario, () => {
      it('decodes every packet and stream, and the content matches the nodes', () => {
        const seen = checkContent(c, decodeCapture(c));
        // What this capture is known to hold (they are committed, so this is exact, not timing-dependent).
        for (const t of [
          'alive',
          'ping',
          'suspect',
          'dead',
          'leave',
          'user',
          'indirectPing',
          'nack',
          'stream:pushPull',
          'stream:user',
          'join',
        ]) {
          expect(seen, `${c.scenario} has ${t}`).toContain(t);
        }
      });

      it('re-encodes to the same bytes', () => {
        const n = checkReencoding(c);
        expect(n.packets).toBe(c.packets.length);
      });

      it('derives the key like MetalLB', () => checkKey(c));
    });
  }
});
