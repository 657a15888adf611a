/**
 * A decision that changes nothing this node announces costs nothing here (src/daemon/local-announcements.ts): most
 * decisions (a health report, a member's meta, a received table) leave the owned set as it was, and converging
 * again walked every owned IP. What must still happen does: a changed set is applied, and a set whose binding
 * failed is tried again by the next decision.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { LinkInfo, LinkSource } from '../../src/announce/l2/interfaces';
import type { DesiredAnnouncement } from '../../src/announce/l2/l2-announcer-state';
import { LocalAnnouncements } from '../../src/daemon/local-announcements';
import { parseIP, type IP } from '../../src/ip';
import { ManualScheduler } from '../support/manual-scheduler';
import { ethernetLink, vipLink } from '../support/host-links';

const vip = (i: number): IP => parseIP(`192.0.2.${i}`) as IP;
/** A fresh list of fresh objects each time, as every decision makes them. */
const owned = (...ids: number[]) => ids.map((i) => ({ service: `demo/svc-${i}`, ip: vip(i), interfaces: ['eth0'] }));

function harness(failBinds = 0) {
  const clock = new ManualScheduler(1_000);
  const calls = { reconcile: 0, bind: 0 };
  let failures = failBinds;
  const ports = {
    reconcileL2: (_: readonly DesiredAnnouncement[]) => void calls.reconcile++,
    bindVips: async (_: readonly IP[]) => {
      calls.bind++;
      if (failures > 0) {
        failures--;
        throw new Error('RTNETLINK answers: Operation not permitted');
      }
    },
  };
  const announcements = new LocalAnnouncements(ports, undefined, pino({ level: 'silent' }), clock);
  return { announcements, calls, clock };
}

describe('local announcements', () => {
  it('does nothing for the same owned set again, and applies a changed one', async () => {
    const { announcements, calls, clock } = harness();
    announcements.apply(owned(1, 2, 3), () => 'notOwner');
    await announcements.settled();
    const since = announcements.announced().map((a) => a.since);
    const after = { ...calls };
    const version = announcements.version;
    await clock.advance(5_000);
    announcements.apply(owned(1, 2, 3), () => 'notOwner');
    await announcements.settled();
    expect(calls).toEqual(after);
    // Readers of the announced set (the self-check) are told nothing changed.
    expect(announcements.version).toBe(version);
    expect(announcements.announced().map((a) => a.since)).toEqual(since);
    // Another interface for one of them is a change.
    announcements.apply([...owned(1, 2), { ...owned(3)[0]!, interfaces: ['eth1'] }], () => 'notOwner');
    await announcements.settled();
    expect(calls.bind).toBeGreaterThan(after.bind);
    expect(announcements.version).toBeGreaterThan(version);
    expect(announcements.announced().find((a) => a.ip === '192.0.2.3')?.interfaces).toEqual(['eth1']);
  });

  it('tries a set again after its binding failed', async () => {
    const { announcements, calls } = harness(1);
    announcements.apply(owned(1, 2), () => 'notOwner');
    await announcements.settled();
    const failed = calls.bind;
    announcements.apply(owned(1, 2), () => 'notOwner');
    await announcements.settled();
    expect(calls.bind).toBeGreaterThan(failed);
    const retried = calls.bind;
    // Bound now: the same set once more is nothing.
    announcements.apply(owned(1, 2), () => 'notOwner');
    await announcements.settled();
    expect(calls.bind).toBe(retried);
  });
});

describe('local announcements with the host links', () => {
  const eth0 = (subnets: string[]): LinkInfo => ethernetLink(subnets);
  /** mlb0 as the daemon makes it: a noarp dummy holding every bound VIP. */
  const mlb0 = (bound: number): LinkInfo => vipLink(Array.from({ length: bound }, (_, i) => vip(i + 1)));

  function withLinks(initial: LinkInfo[]) {
    let links: readonly LinkInfo[] = initial;
    const source: LinkSource = { links: () => links, link: (n) => links.find((l) => l.name === n), onChange: () => () => undefined };
    const calls = { reconcile: 0 };
    const answered: DesiredAnnouncement[][] = [];
    const ports = {
      reconcileL2: (d: readonly DesiredAnnouncement[]) => {
        calls.reconcile++;
        answered.push([...d]);
      },
    };
    const announcements = new LocalAnnouncements(ports, source, pino({ level: 'silent' }), new ManualScheduler(1_000));
    return { announcements, calls, answered, relink: (next: LinkInfo[]) => (links = next) };
  }
  const chooseAny = (...ids: number[]) => ids.map((i) => ({ service: `demo/svc-${i}`, ip: vip(i), interfaces: [] as string[] }));

  it('skips a decision that changes nothing though VIPs were bound on mlb0 meanwhile, and follows a change of eth0', () => {
    const { announcements, calls, answered, relink } = withLinks([eth0(['198.51.100.1/24']), mlb0(0)]);
    announcements.apply(chooseAny(1, 2), () => 'notOwner');
    // eth0 has no subnet of the VIPs: every eligible interface, eth0 alone (mlb0 is noarp).
    expect(answered.at(-1)?.map((d) => d.interfaces)).toEqual([['eth0'], ['eth0']]);
    // Binding them changed mlb0's addresses (a new reading of the links): nothing announced changes.
    relink([eth0(['198.51.100.1/24']), mlb0(2)]);
    announcements.apply(chooseAny(1, 2), () => 'notOwner');
    expect(calls.reconcile).toBe(1);
    // eth0 going down is a change every IP's choice must follow.
    relink([{ ...eth0(['198.51.100.1/24']), up: false }, mlb0(2)]);
    announcements.apply(chooseAny(1, 2), () => 'notOwner');
    expect(calls.reconcile).toBe(2);
    expect(answered.at(-1)?.map((d) => d.interfaces)).toEqual([[], []]);
  });
});
