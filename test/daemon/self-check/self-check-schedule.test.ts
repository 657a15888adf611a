/**
 * When the self-check probes (src/daemon/self-check/self-check-schedule.ts), pure, with an injected clock and
 * randomness: soon after a new ownership or a membership change, every few seconds with jitter otherwise, every
 * second while a conflict lasts, never more than the in-flight limit at once nor faster than the rate limit.
 */
import { describe, expect, it } from 'vitest';
import { parseIP, type IP } from '../../../src/ip';
import {
  conflictObserved,
  emptySchedule,
  isOwned,
  isOwnedKey,
  membershipChanged,
  nextDueAt,
  probeDone,
  SELF_CHECK_CONFLICT_RECHECK_MS,
  SELF_CHECK_INTERVAL_MS,
  SELF_CHECK_JITTER,
  SELF_CHECK_MAX_IN_FLIGHT,
  SELF_CHECK_MAX_PROBES_PER_SECOND,
  SELF_CHECK_BURST,
  SELF_CHECK_SOON_MS,
  regularPeriodMs,
  setOwned,
  takeDue,
  type OwnedAddress,
  type ScheduledProbe,
  type SelfCheckSchedule,
} from '../../../src/daemon/self-check/self-check-schedule';

const ip = (text: string): IP => parseIP(text) as IP;
const owned = (...ips: string[]): OwnedAddress[] => ips.map((t) => ({ ip: ip(t), interface: 'eth0' }));
const keys = (probes: readonly { key: string }[]): string[] => probes.map((p) => p.key);
const half = (): number => 0.5;

/** Takes and finishes every due probe at `now` (no conflict), returning their keys. */
function runDue(s: SelfCheckSchedule, now: number, conflict = false): { s: SelfCheckSchedule; ran: string[] } {
  const taken = takeDue(s, now);
  let next = taken.schedule;
  for (const p of taken.due) next = probeDone(next, p.key, now, { conflict }, half);
  return { s: next, ran: keys(taken.due) };
}

describe('self-check schedule', () => {
  it('a new ownership is probed soon, then every interval', () => {
    let s = setOwned(emptySchedule(), owned('10.0.0.1'), 0);
    expect(nextDueAt(s)).toBe(SELF_CHECK_SOON_MS);
    expect(takeDue(s, SELF_CHECK_SOON_MS - 1).due).toEqual([]);
    const taken = takeDue(s, SELF_CHECK_SOON_MS);
    expect(taken.due).toMatchObject([{ key: '10.0.0.1%eth0', reason: 'newOwnership' }]);
    s = probeDone(taken.schedule, '10.0.0.1%eth0', SELF_CHECK_SOON_MS + 500, { conflict: false }, half);
    expect(nextDueAt(s)).toBe(SELF_CHECK_SOON_MS + 500 + SELF_CHECK_INTERVAL_MS);
    expect(s.probes.get('10.0.0.1%eth0')?.reason).toBe('periodic');
  });

  it('the jitter spreads the period over ±10 %', () => {
    const s = takeDue(setOwned(emptySchedule(), owned('10.0.0.1'), 0), SELF_CHECK_SOON_MS).schedule;
    const at = (r: number): number | undefined => nextDueAt(probeDone(s, '10.0.0.1%eth0', 0, { conflict: false }, () => r));
    expect(at(0)).toBe(Math.round(SELF_CHECK_INTERVAL_MS * (1 - SELF_CHECK_JITTER)));
    expect(at(0.5)).toBe(SELF_CHECK_INTERVAL_MS);
    expect(at(0.9999999)).toBe(Math.round(SELF_CHECK_INTERVAL_MS * (1 + SELF_CHECK_JITTER)));
  });

  it('kept addresses keep their turn; an IP on two interfaces is checked on each', () => {
    let s = runDue(setOwned(emptySchedule(), owned('10.0.0.1'), 0), SELF_CHECK_SOON_MS).s;
    const due = nextDueAt(s);
    s = setOwned(s, [...owned('10.0.0.1'), { ip: ip('10.0.0.1'), interface: 'eth1' }], 5000);
    expect(s.probes.get('10.0.0.1%eth0')?.dueAt).toBe(due);
    expect(s.probes.get('10.0.0.1%eth1')).toMatchObject({ dueAt: 5000 + SELF_CHECK_SOON_MS, reason: 'newOwnership' });
  });

  it('a membership change brings every check forward to soon, never later; one in flight is repeated after it ends', () => {
    // A long period, so the regular checks are not due anyway when the membership changes.
    let s = setOwned(emptySchedule({ intervalMs: 30_000 }), owned('10.0.0.1', '10.0.0.2', '10.0.0.3'), 0);
    s = runDue(s, SELF_CHECK_SOON_MS).s;
    s = setOwned(s, owned('10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'), 2000);
    s = takeDue(s, 2000 + SELF_CHECK_SOON_MS).schedule; // 10.0.0.4 in flight
    s = membershipChanged(s, 10_000);
    expect(s.probes.get('10.0.0.1%eth0')).toMatchObject({ dueAt: 10_000 + SELF_CHECK_SOON_MS, reason: 'membershipChanged' });
    expect(s.probes.get('10.0.0.4%eth0')).toMatchObject({ inFlight: true, again: 'membershipChanged' });
    s = probeDone(s, '10.0.0.4%eth0', 10_100, { conflict: false }, half);
    expect(s.probes.get('10.0.0.4%eth0')).toMatchObject({
      dueAt: 10_100 + SELF_CHECK_SOON_MS,
      reason: 'membershipChanged',
      inFlight: false,
    });
    expect(s.probes.get('10.0.0.4%eth0')?.again).toBeUndefined();
  });

  it('a conflict is rechecked every second; an observed one brings only its IP forward', () => {
    let s = setOwned(emptySchedule({ intervalMs: 30_000 }), owned('10.0.0.1', '10.0.0.2'), 0);
    s = runDue(s, SELF_CHECK_SOON_MS, true).s;
    expect(s.probes.get('10.0.0.1%eth0')).toMatchObject({
      dueAt: SELF_CHECK_SOON_MS + SELF_CHECK_CONFLICT_RECHECK_MS,
      reason: 'conflictRecheck',
    });
    s = runDue(s, SELF_CHECK_SOON_MS + SELF_CHECK_CONFLICT_RECHECK_MS, false).s;
    s = conflictObserved(s, ip('10.0.0.2'), 20_000);
    expect(s.probes.get('10.0.0.2%eth0')).toMatchObject({ dueAt: 20_000 + SELF_CHECK_SOON_MS, reason: 'conflictObserved' });
    expect(s.probes.get('10.0.0.1%eth0')?.reason).toBe('periodic');
  });

  it('never more than the in-flight limit, earliest first; released addresses still count until their probe ends', () => {
    const many = Array.from({ length: SELF_CHECK_MAX_IN_FLIGHT + 12 }, (_, i) => `10.0.1.${i + 1}`);
    // A bucket as large as the in-flight limit, so this test sees only that limit.
    let s = setOwned(emptySchedule({ burst: SELF_CHECK_MAX_IN_FLIGHT }), owned(...many.slice(0, 10)), 0);
    s = setOwned(s, owned(...many), 100);
    const first = takeDue(s, 5000);
    expect(first.due).toHaveLength(SELF_CHECK_MAX_IN_FLIGHT);
    expect(keys(first.due)).toEqual(many.slice(0, SELF_CHECK_MAX_IN_FLIGHT).map((t) => `${t}%eth0`));
    expect(takeDue(first.schedule, 5000).due).toEqual([]);
    // Twelve more are overdue, but no slot is free: no wake-up until a probe ends (a past due time would wake the
    // shell at once, again and again, while every slot stays taken).
    expect(nextDueAt(first.schedule)).toBeUndefined();
    // Everything released: those in flight still hold their slots.
    s = setOwned(first.schedule, owned('10.0.2.1'), 5001);
    expect(isOwned(s, ip('10.0.1.1'))).toBe(false);
    expect(isOwnedKey(s, '10.0.1.1%eth0')).toBe(false);
    expect(takeDue(s, 10_000).due).toEqual([]);
    s = probeDone(s, '10.0.1.1%eth0', 10_000, { conflict: true }, half);
    expect(s.probes.has('10.0.1.1%eth0')).toBe(false);
    expect(keys(takeDue(s, 10_000).due)).toEqual(['10.0.2.1%eth0']);
  });

  it('over ten minutes, 40 owned IPs are each probed about every period and never more than the in-flight limit at once', () => {
    const ips = Array.from({ length: 40 }, (_, i) => `10.0.3.${i + 1}`);
    let s = setOwned(emptySchedule(), owned(...ips), 0);
    const probedAt = new Map<string, number[]>();
    const inFlight: { key: string; endsAt: number }[] = [];
    let seed = 7;
    const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    let maxInFlight = 0;
    for (let now = 0; now <= 10 * 60_000; now += 50) {
      for (const f of inFlight.filter((f) => f.endsAt <= now)) {
        s = probeDone(s, f.key, now, { conflict: false }, random);
        inFlight.splice(inFlight.indexOf(f), 1);
      }
      const taken = takeDue(s, now);
      s = taken.schedule;
      for (const p of taken.due) {
        inFlight.push({ key: p.key, endsAt: now + 500 });
        probedAt.set(p.key, [...(probedAt.get(p.key) ?? []), now]);
      }
      maxInFlight = Math.max(maxInFlight, inFlight.length);
    }
    expect(maxInFlight).toBeLessThanOrEqual(SELF_CHECK_MAX_IN_FLIGHT);
    for (const times of probedAt.values()) {
      const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(SELF_CHECK_INTERVAL_MS * (1 - SELF_CHECK_JITTER));
      expect(Math.max(...gaps)).toBeLessThanOrEqual(SELF_CHECK_INTERVAL_MS * (1 + SELF_CHECK_JITTER) + 1000);
    }
    expect(probedAt.size).toBe(40);
  });

  it("a conflict starting on any owned IP is probed within 10 s of starting, for a node owning up to the rate limit's worth", () => {
    // The slowest case: the conflict starts just after its IP's probe, which comes again a period (plus jitter) later.
    const pairs = Math.floor((SELF_CHECK_INTERVAL_MS / 1000) * SELF_CHECK_MAX_PROBES_PER_SECOND);
    const timing = emptySchedule().timing;
    expect(regularPeriodMs(timing, pairs)).toBe(SELF_CHECK_INTERVAL_MS);
    expect(SELF_CHECK_INTERVAL_MS * (1 + SELF_CHECK_JITTER) + 500 + SELF_CHECK_CONFLICT_RECHECK_MS + 500).toBeLessThan(10_000);
  });

  it('10,000 owned IPs are paced: never more than the rate limit per second, even in the burst of a cold start', () => {
    const ips = Array.from({ length: 10_000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    let s = setOwned(emptySchedule(), owned(...ips), 0);
    const startsPerSecond = new Map<number, number>();
    const inFlight: { key: string; endsAt: number }[] = [];
    const probed = new Set<string>();
    let now = 0;
    // Driven as the SelfChecker's timer drives it: to the next due time (or the next probe's end), never idle.
    // The first seconds: everything is due at once (from SOON on), so only the limits hold the probes back.
    const RUN_MS = 6_000;
    while (now < RUN_MS) {
      for (const f of inFlight.filter((x) => x.endsAt <= now)) {
        s = probeDone(s, f.key, now, { conflict: false }, half);
        inFlight.splice(inFlight.indexOf(f), 1);
      }
      const taken = takeDue(s, now);
      s = taken.schedule;
      for (const p of taken.due) {
        inFlight.push({ key: p.key, endsAt: now + 500 });
        probed.add(p.key);
        const second = Math.floor(now / 1000);
        startsPerSecond.set(second, (startsPerSecond.get(second) ?? 0) + 1);
      }
      const next = Math.min(nextDueAt(s) ?? Infinity, ...inFlight.map((f) => f.endsAt));
      now = Math.max(now + 1, next);
    }
    // At most the rate, plus the bucket's small burst, in any second; the rate itself over the whole run.
    expect(Math.max(...startsPerSecond.values())).toBeLessThanOrEqual(SELF_CHECK_MAX_PROBES_PER_SECOND + SELF_CHECK_BURST);
    const seconds = (RUN_MS - SELF_CHECK_SOON_MS) / 1000;
    expect(probed.size).toBeLessThanOrEqual(seconds * SELF_CHECK_MAX_PROBES_PER_SECOND + SELF_CHECK_BURST);
    expect(probed.size).toBeGreaterThan((seconds - 0.5) * SELF_CHECK_MAX_PROBES_PER_SECOND);
    // Once checked, each comes again one stretched period later: owned / rate seconds, not every 3 s.
    expect(regularPeriodMs(s.timing, 10_000)).toBe((10_000 / SELF_CHECK_MAX_PROBES_PER_SECOND) * 1000);
    const again = [...s.probes.values()].find((p) => p.reason === 'periodic');
    expect(again?.dueAt).toBeGreaterThan(SELF_CHECK_SOON_MS + (10_000 / SELF_CHECK_MAX_PROBES_PER_SECOND) * 1000 * (1 - SELF_CHECK_JITTER));
  });

  it('hands out the earliest due first, ties in owned order, through reschedules, releases and membership changes', () => {
    // The schedule keeps its waiting probes in a heap beside the map (probe-due-queue.ts); a plain scan of the map
    // says what each pass must take.
    let seed = 11;
    const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const all = Array.from({ length: 60 }, (_, i) => `10.0.4.${i + 1}`);
    const timing = { burst: SELF_CHECK_MAX_IN_FLIGHT, maxProbesPerSecond: 1_000_000, intervalMs: 2_000 };
    let s = setOwned(emptySchedule(timing), owned(...all.slice(0, 40)), 0);
    const inFlight = new Set<string>();
    const expected = (now: number, room: number): string[] => {
      const order = [...s.probes.keys()];
      return [...s.probes.values()]
        .filter((p) => !p.inFlight && p.dueAt <= now)
        .sort((a, b) => a.dueAt - b.dueAt || order.indexOf(a.key) - order.indexOf(b.key))
        .slice(0, room)
        .map((p) => p.key);
    };
    let taken = 0;
    for (let now = 0; now < 30_000; now += 50) {
      const r = random();
      if (r < 0.01) s = membershipChanged(s, now);
      else if (r < 0.02) s = setOwned(s, owned(...all.filter(() => random() < 0.7)), now);
      for (const key of [...inFlight]) {
        if (random() < 0.3) {
          s = probeDone(s, key, now, { conflict: random() < 0.1 }, random);
          inFlight.delete(key);
        }
      }
      const busy = [...s.probes.values()].filter((p) => p.inFlight).length;
      const want = expected(now, SELF_CHECK_MAX_IN_FLIGHT - busy);
      const result = takeDue(s, now);
      s = result.schedule;
      expect(keys(result.due)).toEqual(want);
      for (const p of result.due) inFlight.add(p.key);
      taken += result.due.length;
      const waiting = [...s.probes.values()].filter((p) => !p.inFlight).map((p) => p.dueAt);
      expect(nextDueAt(s)).toBe(
        busy + result.due.length >= SELF_CHECK_MAX_IN_FLIGHT || waiting.length === 0 ? undefined : Math.min(...waiting),
      );
    }
    expect(taken).toBeGreaterThan(200);
  });

  it('finds an IP by lookup: each claim of a handover of thousands of IPs reads its own pairs, not every pair', () => {
    const many = Array.from({ length: 2000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    const s = setOwned(emptySchedule(), [...owned(...many), { ip: ip('10.0.3.7'), interface: 'eth1' }], 5_000);
    const counted = countingReads(s.probes as Map<string, ScheduledProbe>);
    const schedule = { ...s, probes: counted.map };
    expect(isOwned(schedule, ip('10.0.3.7'))).toBe(true);
    expect(isOwned(schedule, ip('10.9.9.9'))).toBe(false);
    const after = conflictObserved(schedule, ip('10.0.3.7'), 20);
    // Both interfaces it is announced on, brought forward; nothing else touched.
    expect(after.probes.get('10.0.3.7%eth0')).toMatchObject({ dueAt: 20 + SELF_CHECK_SOON_MS, reason: 'conflictObserved' });
    expect(after.probes.get('10.0.3.7%eth1')).toMatchObject({ dueAt: 20 + SELF_CHECK_SOON_MS, reason: 'conflictObserved' });
    expect(after.probes.get('10.0.3.8%eth0')).toMatchObject({ dueAt: 5_000 + SELF_CHECK_SOON_MS, reason: 'newOwnership' });
    // A walk over the pairs would read 2,001 of them at each step.
    expect(counted.reads()).toBeLessThanOrEqual(8);
    // The queue follows (it reads the schedule's own map, not the counting copy): they are taken when due.
    expect(keys(takeDue(conflictObserved(s, ip('10.0.3.7'), 20), 20 + SELF_CHECK_SOON_MS).due)).toEqual(['10.0.3.7%eth0', '10.0.3.7%eth1']);
  });
});

/** A map that counts the entries read from it (lookups and every entry iterated). */
function countingReads<K, V>(map: Map<K, V>): { map: Map<K, V>; reads: () => number } {
  let reads = 0;
  class Counting extends Map<K, V> {
    override get(key: K): V | undefined {
      reads++;
      return super.get(key);
    }
    override has(key: K): boolean {
      reads++;
      return super.has(key);
    }
    override *entries(): MapIterator<[K, V]> {
      for (const e of super.entries()) {
        reads++;
        yield e;
      }
    }
    override *values(): MapIterator<V> {
      for (const [, v] of this.entries()) yield v;
    }
    override [Symbol.iterator](): MapIterator<[K, V]> {
      return this.entries();
    }
  }
  const counting = new Counting(map);
  reads = 0;
  return { map: counting, reads: () => reads };
}
