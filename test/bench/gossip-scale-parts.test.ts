// The parts of bench/gossip-scale: memberlist's formulas as the table states them, the table's verdicts (a
// detection that never came or a false death fails the bench), and the simulation itself at a modest size: a
// crash detected within the formula's bound and no live member declared dead at 5 % loss (virtual time, seeded:
// the same run every time).
import { describe, expect, it } from 'vitest';
import { FAST_CONFIG, LAN_CONFIG } from '../../src/gossip/swim';
import { GossipWorld, ipOf } from '../../bench/gossip-scale/gossip-world';
import {
  firstDeadExpectation,
  joinExpectation,
  lastDeadExpectation,
  packetPayloadBudget,
  trafficBudget,
} from '../../bench/gossip-scale/memberlist-expectations';
import { failsBench, formatTable, verdict, type Row } from '../../bench/gossip-scale/scale-table';

describe("memberlist's expectations at 1,000 members", () => {
  it('crash detection: probe deadline and suspicion (min 12 s, max 72 s for LAN), then 16 gossip rounds to spread', () => {
    // suspicionTimeout(4, 1000, 1 s) = 4 x 3 x 1 s; k = 2 confirmations; retransmitLimit = 4 x ceil(log10 1001) = 16.
    expect(firstDeadExpectation(LAN_CONFIG, 1000)).toEqual({ low: 1_000 + 12_000, high: 5 * 1_000 + 1_000 + 72_000 });
    expect(lastDeadExpectation(LAN_CONFIG, 1000)).toEqual({ low: 13_000, high: 78_000 + 16 * 200 });
    // FAST: min = 3 x 3 x 200 ms = 1.8 s, max = 3 x min, k = 1.
    expect(firstDeadExpectation(FAST_CONFIG, 1000)).toEqual({ low: 200 + 1_800, high: 6 * 200 + 5_400 });
  });

  it('join: the bound is the scaled push/pull interval (6 x 30 s above 512 members) plus its TCP timeout', () => {
    expect(joinExpectation(LAN_CONFIG, 1000).high).toBe(6 * 30_000 + 10_000);
    expect(joinExpectation(LAN_CONFIG, 1000).low).toBe(7 * 200);
  });

  it('traffic: 2 probe packets per interval and 3 gossip packets per 200 ms, each up to 1400 bytes, plus push/pull', () => {
    const budget = trafficBudget(LAN_CONFIG, 1000, 60_000);
    expect(budget.packetsPerSecond).toBe(2 + 15);
    expect(budget.bytesPerSecond).toBeCloseTo(17 * 1400 + (2 * 60_000) / 180, 6);
    expect(packetPayloadBudget(LAN_CONFIG)).toBe(1398);
  });
});

describe('bench/gossip-scale table', () => {
  const row = (measured: Row['measured'], extra: Partial<Row> = {}): Row => ({
    profile: 'lan',
    what: 'crash -> last survivor declares it dead',
    unit: 'ms',
    measured,
    expectation: 'x',
    max: 10_000,
    ...extra,
  });

  it('a detection that never came is a failure of the bench, whatever its bound', () => {
    expect(verdict(row({ kind: 'never', afterMs: 30_000 }))).toBe('no');
    expect(failsBench(row({ kind: 'never', afterMs: 30_000 }))).toBe(true);
  });

  it('a false death fails the bench; a slow detection is a miss (no) but not a failure unless fatal', () => {
    expect(failsBench(row({ kind: 'value', value: 1 }, { unit: 'count', max: 0, fatal: true }))).toBe(true);
    expect(failsBench(row({ kind: 'value', value: 0 }, { unit: 'count', max: 0, fatal: true }))).toBe(false);
    expect(verdict(row({ kind: 'value', value: 10_001 }))).toBe('no');
    expect(failsBench(row({ kind: 'value', value: 10_001 }))).toBe(false);
    expect(verdict(row({ kind: 'value', value: 3 }, { max: undefined }))).toBe('-');
  });

  it('prints profile | what | measured | expectation | ok, aligned', () => {
    const lines = formatTable([row({ kind: 'value', value: 12_345 }), row({ kind: 'never', afterMs: 20_000 })]);
    expect(lines[0]).toMatch(/^\| profile \| what +\| measured +\| memberlist's formula \/ expectation \| ok \|$/);
    expect(lines[2]).toContain('| 12.3 s ');
    expect(lines[3]).toContain('never within 20.0 s');
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
  });

  it('gives every node its own address', () => {
    expect(new Set(Array.from({ length: 1000 }, (_, i) => ipOf(i))).size).toBe(1000);
    expect(ipOf(249)).toBe('10.0.0.250');
    expect(ipOf(250)).toBe('10.0.1.1');
  });
});

describe('the simulation at 20 members, fast profile', () => {
  it('converges, detects a crash within the formula, and declares no live member dead at 5 % loss', async () => {
    const n = 20;
    const world = await GossipWorld.create({ n, config: FAST_CONFIG, seed: 3 });
    try {
      world.joinAllToSeed();
      expect(await world.net.runUntil(() => world.converged(), { timeoutMs: joinExpectation(FAST_CONFIG, n).high })).toBe(true);
      await world.net.advance(5_000);
      const crashAt = world.net.now();
      const victim = world.crash(7);
      const bound = lastDeadExpectation(FAST_CONFIG, n).high;
      expect(await world.net.runUntil(() => world.deathsOf(victim).size === n - 1, { timeoutMs: 3 * bound })).toBe(true);
      const last = Math.max(...world.deathsOf(victim).values()) - crashAt;
      expect(last).toBeLessThanOrEqual(bound);

      world.net.setLink({ loss: 0.05 });
      await world.net.advance(30_000);
      expect(world.falseDeaths()).toBe(0);
    } finally {
      await world.close();
    }
  });
});
