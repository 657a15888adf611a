import { describe, expect, it } from 'vitest';
import { goneHoldersFrom, trackOwners, unheldText, type OwnerHistory } from '../../src/daemon/owner-history';
import type { ElectionOutcome } from '../../src/election';

const l2 = (winner: string | null): ElectionOutcome => ({
  service: 'demo/web',
  protocol: 'layer2',
  ips: ['10.0.0.10'],
  winner,
  announcing: winner ? [winner] : [],
});

describe('trackOwners', () => {
  it('keeps "since" while the owner stays, and records a move with its gap', () => {
    let history: OwnerHistory = new Map();
    const first = trackOwners(history, [l2('a')], 1_000);
    expect(first.changes).toEqual([expect.objectContaining({ from: [], to: ['a'], unheldMs: 0 })]);
    history = first.history;
    const same = trackOwners(history, [l2('a')], 5_000);
    expect(same.changes).toEqual([]);
    expect(same.history.get('demo/web|layer2|10.0.0.10')?.since).toBe(1_000);
    const lost = trackOwners(same.history, [l2(null)], 6_000);
    expect(lost.changes).toEqual([expect.objectContaining({ from: ['a'], to: [], unheldMs: null })]);
    const back = trackOwners(lost.history, [l2('b')], 6_800);
    expect(back.changes).toEqual([expect.objectContaining({ from: [], to: ['b'], unheldMs: 800 })]);
    expect(back.history.get('demo/web|layer2|10.0.0.10')).toEqual({ holders: ['b'], since: 6_800 });
  });

  it('a direct move has no gap, and a deleted service is forgotten', () => {
    const start = trackOwners(new Map(), [l2('a')], 0).history;
    expect(trackOwners(start, [l2('b')], 10).changes[0]?.unheldMs).toBe(0);
    expect(trackOwners(start, [], 10).history.size).toBe(0);
  });
});

describe('trackOwners after a holder is gone', () => {
  const gone = (ends: Record<string, { lastHeardAt?: number; goneAt: number }>) => (node: string) =>
    ends[node] ? { lastHeardAt: ends[node].lastHeardAt, goneAt: ends[node].goneAt } : undefined;

  it("measures a crashed owner's IP as unheld from its last packet, with the detection time beside it", () => {
    const start = trackOwners(new Map(), [l2('a')], 0).history;
    // a was last heard at 10_000, declared dead at 10_700; b takes over at 10_900.
    const moved = trackOwners(start, [l2('b')], 10_900, gone({ a: { lastHeardAt: 10_000, goneAt: 10_700 } }));
    expect(moved.changes).toEqual([
      expect.objectContaining({ from: ['a'], to: ['b'], unheldMs: 900, unheldReason: 'holderGone', detectionMs: 700 }),
    ]);
    expect(unheldText(moved.changes[0]!)).toBe(' (unheld 900 ms: a declared gone 700 ms after its last packet)');
  });

  it('falls back to the declaration when the owner was never heard from directly', () => {
    const start = trackOwners(new Map(), [l2('a')], 0).history;
    const moved = trackOwners(start, [l2('b')], 10_900, gone({ a: { goneAt: 10_700 } }));
    expect(moved.changes[0]).toMatchObject({ unheldMs: 200, unheldReason: 'holderGone', detectionMs: null });
  });

  it("counts a gap with nobody from the crashed owner's last packet, not from when the election noticed", () => {
    const start = trackOwners(new Map(), [l2('a')], 0).history;
    const lost = trackOwners(start, [l2(null)], 10_700, gone({ a: { lastHeardAt: 10_000, goneAt: 10_700 } }));
    expect(lost.changes[0]).toMatchObject({ from: ['a'], to: [], unheldMs: null, unheldReason: 'nobodyHolds', detectionMs: 700 });
    expect(lost.history.get('demo/web|layer2|10.0.0.10')).toEqual({ holders: [], since: 10_000 });
    const back = trackOwners(lost.history, [l2('b')], 12_000);
    expect(back.changes[0]).toMatchObject({ from: [], to: ['b'], unheldMs: 2_000, unheldReason: 'heldByNobody' });
  });

  it('a live owner handing over leaves no gap, and the first holder is no gap either', () => {
    const first = trackOwners(new Map(), [l2('a')], 0);
    expect(first.changes[0]).toMatchObject({ unheldMs: 0, unheldReason: 'firstHolder' });
    const moved = trackOwners(first.history, [l2('b')], 5_000, gone({ c: { lastHeardAt: 1_000, goneAt: 2_000 } }));
    expect(moved.changes[0]).toMatchObject({ unheldMs: 0, unheldReason: 'handedOver', detectionMs: null });
    expect(unheldText(moved.changes[0]!)).toBe('');
  });

  it('a BGP holder that stays keeps the IPs answered when another one crashes', () => {
    const bgp = (announcing: string[]): ElectionOutcome => ({
      service: 'demo/web',
      protocol: 'bgp',
      ips: ['10.0.0.10'],
      winner: null,
      announcing,
    });
    const start = trackOwners(new Map(), [bgp(['a', 'b'])], 0).history;
    const lost = trackOwners(start, [bgp(['b'])], 3_000, gone({ a: { lastHeardAt: 2_000, goneAt: 2_800 } }));
    expect(lost.changes[0]).toMatchObject({ from: ['a', 'b'], to: ['b'], unheldMs: 0, unheldReason: 'handedOver' });
  });

  it('reads dead and left members from the gossip table; live ones are not gone', () => {
    const lookup = goneHoldersFrom(
      [
        { name: 'a', state: 'dead', stateChange: 700 },
        { name: 'b', state: 'left', stateChange: 800 },
        { name: 'c', state: 'suspect', stateChange: 600 },
        { name: 'd', state: 'alive', stateChange: 0 },
      ],
      (name) => (name === 'a' ? 500 : undefined),
    );
    expect(lookup('a')).toEqual({ lastHeardAt: 500, goneAt: 700 });
    expect(lookup('b')).toEqual({ lastHeardAt: undefined, goneAt: 800 });
    expect(lookup('c')).toBeUndefined();
    expect(lookup('d')).toBeUndefined();
    expect(lookup('e')).toBeUndefined();
  });
});
