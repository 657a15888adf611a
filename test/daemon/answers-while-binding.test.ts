/**
 * A change of many VIPs is answered for as its batches land on mlb0, not once the last one did
 * (src/daemon/answers-while-binding.ts, local-announcements.ts): a client asking ARP for a VIP already bound gets
 * an answer while the rest are still being bound, a VIP is never answered before it is bound, and a VIP being
 * withdrawn keeps its answers until the binding is over.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DesiredAnnouncement } from '../../src/announce/l2/l2-announcer-state';
import {
  ANSWER_PROGRESS_COST_FACTOR,
  ANSWER_PROGRESS_MIN_MS,
  answersWhileBinding,
  nextProgressAt,
} from '../../src/daemon/answers-while-binding';
import { LocalAnnouncements } from '../../src/daemon/local-announcements';
import { formatIP, parseIP, type IP } from '../../src/ip';
import { ManualScheduler } from '../support/manual-scheduler';

const ip = (text: string): IP => parseIP(text) as IP;
const vip = (i: number): IP => ip(`192.0.2.${i}`);
const owned = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, k) => ({ service: `demo/svc-${from + k}`, ip: vip(from + k), interfaces: ['eth0'] }));
const answered = (d: readonly DesiredAnnouncement[]) => d.map((a) => formatIP(a.ip)).sort();
const keys = (ips: readonly IP[]) => new Set(ips.map(formatIP));

/** A binder the test lands batch by batch: `land(n)` binds the next n VIPs of the pending call and reports them. */
function steppedBinder(clock: ManualScheduler) {
  const bound = new Set<string>();
  let pending: { ips: readonly IP[]; onBound?: (b: readonly IP[]) => void; done: () => void; next: number } | undefined;
  const bindVips = (ips: readonly IP[], onBound?: (b: readonly IP[]) => void) =>
    new Promise<void>((done) => {
      for (const b of [...bound]) if (!keys(ips).has(b)) bound.delete(b);
      const toAdd = ips.filter((i) => !bound.has(formatIP(i)));
      if (toAdd.length === 0) return done();
      pending = { ips: toAdd, ...(onBound ? { onBound } : {}), done, next: 0 };
    });
  const land = async (n: number) => {
    const p = pending!;
    const batch = p.ips.slice(p.next, p.next + n);
    p.next += batch.length;
    for (const b of batch) bound.add(formatIP(b));
    p.onBound?.(batch);
    if (p.next === p.ips.length) {
      pending = undefined;
      p.done();
    }
    await clock.advance(ANSWER_PROGRESS_MIN_MS);
  };
  return { bindVips, land, bound };
}

describe('answering while binding', () => {
  it('answers each batch of a change once it is bound, before the last batch landed, and nothing unbound', async () => {
    const clock = new ManualScheduler(1_000);
    const told: DesiredAnnouncement[][] = [];
    const toldUnbound: string[] = [];
    const binder = steppedBinder(clock);
    const reconcileL2 = (d: readonly DesiredAnnouncement[]) => {
      told.push([...d]);
      toldUnbound.push(...answered(d).filter((a) => !binder.bound.has(a)));
    };
    const announcements = new LocalAnnouncements({ reconcileL2, bindVips: binder.bindVips }, undefined, pino({ level: 'silent' }), clock);
    announcements.apply(owned(1, 200), () => 'notOwner');
    await clock.advance(0);
    await binder.land(64);
    expect(told).toHaveLength(1);
    expect(answered(told[0]!)).toEqual([...binder.bound].sort());
    expect(told[0]).toHaveLength(64);
    await binder.land(64);
    expect(answered(told.at(-1)!)).toEqual([...binder.bound].sort());
    await binder.land(72);
    await announcements.settled();
    expect(answered(told.at(-1)!)).toEqual(answered(owned(1, 200)));
    expect(toldUnbound).toEqual([]);
  });

  it('answers every batch ahead the moment it lands, between spaced progress updates', async () => {
    const clock = new ManualScheduler(1_000);
    const ahead: string[][] = [];
    const binder = steppedBinder(clock);
    const announcements = new LocalAnnouncements(
      { reconcileL2: () => undefined, answerAhead: (d) => ahead.push(answered(d)), bindVips: binder.bindVips },
      undefined,
      pino({ level: 'silent' }),
      clock,
    );
    announcements.apply(owned(1, 100), () => 'notOwner');
    await clock.advance(0);
    await binder.land(30);
    await binder.land(30);
    await binder.land(40);
    await announcements.settled();
    expect(ahead.map((batch) => batch.length)).toEqual([30, 30, 40]);
    expect(ahead.flat().sort()).toEqual(answered(owned(1, 100)));
  });

  it('keeps answering a VIP being withdrawn until the change is bound, and the VIPs it kept all along', async () => {
    const clock = new ManualScheduler(1_000);
    const told: DesiredAnnouncement[][] = [];
    const binder = steppedBinder(clock);
    const announcements = new LocalAnnouncements(
      { reconcileL2: (d) => told.push([...d]), bindVips: binder.bindVips },
      undefined,
      pino({ level: 'silent' }),
      clock,
    );
    announcements.apply(owned(1, 10), () => 'notOwner');
    await clock.advance(0);
    await binder.land(10);
    await announcements.settled();
    // 1 is given away, 2..10 kept, 11..100 gained.
    announcements.apply(owned(2, 100), () => 'notOwner');
    await clock.advance(0);
    await binder.land(30);
    const mid = answered(told.at(-1)!);
    expect(mid).toContain('192.0.2.1');
    expect(mid).toContain('192.0.2.10');
    expect(mid).toContain('192.0.2.40');
    expect(mid).not.toContain('192.0.2.41');
    await binder.land(60);
    await announcements.settled();
    expect(answered(told.at(-1)!)).toEqual(answered(owned(2, 100)));
  });
});

describe('answersWhileBinding', () => {
  const d = (i: number, interfaces = ['eth0']): DesiredAnnouncement => ({ ip: vip(i), interfaces });
  it('is the bound part of the change, with its new interfaces, plus what was answered before', () => {
    const before = [d(1), d(2)];
    const desired = [d(2, ['eth1']), d(3), d(4)];
    const now = answersWhileBinding(desired, before)(new Set(['192.0.2.3']));
    expect(now).toEqual([d(2, ['eth1']), d(3), d(1)]);
  });

  it('spaces updates by the least interval, or by a multiple of what the last one cost', () => {
    expect(nextProgressAt(1_000, 1_002)).toBe(1_002 + ANSWER_PROGRESS_MIN_MS);
    expect(nextProgressAt(1_000, 1_050)).toBe(1_050 + 50 * ANSWER_PROGRESS_COST_FACTOR);
  });

  it('does not bind or answer again what a newer change gave up, when changes queue behind a slow binding', async () => {
    // Under load, with thousands of VIPs, changes queue behind a binding still under way: 1..100 is binding when
    // the node gives up 41..100, takes 41..60 back and gives them up again. Only the newest change may act:
    // the IPs given up are never answered after that, and never bound again.
    const clock = new ManualScheduler(1_000);
    const told: string[][] = [];
    const binder = steppedBinder(clock);
    const reconcileL2 = (d: readonly DesiredAnnouncement[]) => told.push(answered(d));
    const ahead: string[] = [];
    const ports = {
      reconcileL2,
      bindVips: binder.bindVips,
      answerAhead: (d: readonly DesiredAnnouncement[]) => ahead.push(...answered(d)),
    };
    const announcements = new LocalAnnouncements(ports, undefined, pino({ level: 'silent' }), clock);
    announcements.apply(owned(1, 100), () => 'notOwner');
    await clock.advance(0);
    await binder.land(64);
    const toldBefore = told.length;
    const aheadBefore = ahead.length;
    announcements.apply(owned(1, 40), () => 'notOwner');
    announcements.apply(owned(1, 60), () => 'notOwner');
    announcements.apply(owned(1, 40), () => 'notOwner');
    await binder.land(36);
    await announcements.settled();
    await clock.advance(0);
    const kept = owned(1, 40)
      .map((o) => formatIP(o.ip))
      .sort();
    const givenUp = (list: readonly string[]) => list.filter((a) => !kept.includes(a));
    expect(told.slice(toldBefore).flatMap(givenUp)).toEqual([]);
    expect(givenUp(ahead.slice(aheadBefore))).toEqual([]);
    expect(told.at(-1)).toEqual(kept);
    expect([...binder.bound].sort()).toEqual(kept);
  });
});
