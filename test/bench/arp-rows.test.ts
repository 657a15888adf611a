// bench/arp's verdict: the runs of one size and rate pooled per responder, and mlb held to p50 <= 2x the kernel's,
// p99 <= 1 ms and no request lost.
import { describe, expect, it } from 'vitest';
import { arpRows, fmtUs, pool, type ArpSample } from '../../bench/arp/arp-rows';

const run = (latUs: number[], count = latUs.length, extra: Partial<ArpSample> = {}): ArpSample => ({
  count,
  replies: latUs.length,
  duplicates: 0,
  achievedRate: 1000,
  lagP99Us: 5,
  latUs,
  ...extra,
});

describe('bench/arp rows', () => {
  it('pools the rounds: every latency, every request, the worst generator figures', () => {
    const p = pool([run([10, 20, 30], 4, { achievedRate: 990, lagP99Us: 50 }), run([40, 50], 2)]);
    expect(p).toMatchObject({ requests: 6, replies: 5, lost: 1, p50Us: 30, maxUs: 50, lowestRate: 990, worstLagP99Us: 50 });
  });

  it('meets every target when mlb answers everything, within 2x the kernel median and 1 ms in the tail', () => {
    const rows = arpRows(10_000, 10_000, pool([run([100, 150, 190])]), pool([run([80, 90, 100])]));
    expect(rows.map((r) => r.what)).toEqual(['10,000 VIPs, 10,000/s: p50', '10,000 VIPs, 10,000/s: p99', '10,000 VIPs, 10,000/s: lost']);
    expect(rows.every((r) => r.ok)).toBe(true);
    expect(rows[0]!.ratio).toBe('1.67x');
  });

  it('misses on a slow median, a slow tail, or one lost request, whatever the kernel did', () => {
    const kernel = pool([run([50, 50, 50])]);
    expect(arpRows(1, 1000, pool([run([101, 101, 101])]), kernel)[0]!.ok).toBe(false);
    expect(arpRows(1, 1000, pool([run([60, 60, 2_000])]), kernel)[1]!.ok).toBe(false);
    const lost = arpRows(1, 1000, pool([run([60, 60, 60], 4)]), kernel)[2]!;
    expect(lost).toMatchObject({ mlb: '1 of 4', ok: false });
  });

  it('never passes a run that measured nothing', () => {
    const rows = arpRows(1, 1000, pool([run([], 0)]), pool([run([50])]));
    expect(rows.some((r) => r.ok)).toBe(false);
  });

  it('prints microseconds below a millisecond, milliseconds above', () => {
    expect(fmtUs(85)).toBe('85 µs');
    expect(fmtUs(4_350)).toBe('4.35 ms');
    expect(fmtUs(NaN)).toBe('-');
  });
});
