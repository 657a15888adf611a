import { describe, expect, it } from 'vitest';
import { trackOwners, type OwnerHistory } from '../../src/daemon/owner-history';
import type { ElectionOutcome } from '../../src/election';

const l2 = (winner: string | null): ElectionOutcome => ({
  service: 'demo/web', protocol: 'layer2', ips: ['10.0.0.10'], winner, announcing: winner ? [winner] : [],
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
