/**
 * The conflicts a node knows of (src/daemon/self-check/conflict-registry.ts), pure: keyed by (IP, MAC), probe
 * answers and passive observations merged, forgotten after a minute unseen or when the IP is no longer ours,
 * listed with the node behind the MAC when the caller knows it.
 */
import { describe, expect, it } from 'vitest';
import { parseIP, type IP } from '../../../src/ip';
import { admitConflictLog, closeWindows, EMPTY_LOG_GATE, nextWindowEnd } from '../../../src/daemon/self-check/conflict-log-gate';
import {
  activeConflicts,
  CONFLICT_FIRST_MACS_PER_IP,
  CONFLICT_LAST_MACS_PER_IP,
  CONFLICT_LISTED_MAX,
  CONFLICT_FORGET_MS,
  conflictText,
  EMPTY_CONFLICT_REGISTRY,
  forget,
  listConflicts,
  nextForgetAt,
  recordSighting,
  type ConflictRegistry,
  type ConflictSighting,
} from '../../../src/daemon/self-check/conflict-registry';

const ip = (text: string): IP => parseIP(text) as IP;
const T0 = Date.parse('2026-10-04T08:00:00Z');
const sight = (r: ConflictRegistry, s: Partial<ConflictSighting> & { at: number }) =>
  recordSighting(r, { ip: ip('10.213.0.100'), mac: '02:13:00:00:00:02', interface: 'eth0', evidence: 'probeReply', ...s });
const everyOwned = (): boolean => true;

describe('conflict registry', () => {
  it('the first sighting is new; later ones, by probe or passively, update the same conflict', () => {
    const first = sight(EMPTY_CONFLICT_REGISTRY, { at: T0 });
    expect(first.isNew).toBe(true);
    const again = sight(first.registry, { at: T0 + 5000, evidence: 'arpAnnouncement', interface: 'eth1' });
    expect(again.isNew).toBe(false);
    expect(listConflicts(again.registry, () => undefined)).toEqual([
      {
        ip: '10.213.0.100',
        mac: '02:13:00:00:00:02',
        node: null,
        interface: 'eth1',
        evidence: 'arpAnnouncement',
        reason: 'notMember',
        firstSeen: '2026-10-04T08:00:00.000Z',
        lastSeen: '2026-10-04T08:00:05.000Z',
        sightings: 2,
      },
    ]);
  });

  it('two other MACs on one IP are two conflicts; the node is named when the caller knows the MAC', () => {
    let r = sight(EMPTY_CONFLICT_REGISTRY, { at: T0, mac: '02:13:00:00:00:03' }).registry;
    r = sight(r, { at: T0, mac: '02:13:00:00:00:02' }).registry;
    r = sight(r, { at: T0, mac: '02:13:00:00:00:03', ip: ip('10.213.0.9'), reason: 'noReason' }).registry;
    r = sight(r, { at: T0, ip: ip('10.213.0.9') }).registry;
    r = sight(r, { at: T0, ip: ip('fd00:213::100') }).registry;
    const nodes = new Map([['02:13:00:00:00:03', 'node-c']]);
    const list = listConflicts(r, (m) => nodes.get(m));
    expect(list.map((c) => `${c.ip} ${c.mac} ${c.node}`)).toEqual([
      '10.213.0.9 02:13:00:00:00:02 null',
      '10.213.0.9 02:13:00:00:00:03 node-c',
      '10.213.0.100 02:13:00:00:00:02 null',
      '10.213.0.100 02:13:00:00:00:03 node-c',
      'fd00:213::100 02:13:00:00:00:02 null',
    ]);
    // The text says why, as the caller judged it (expected-answer.ts): a stranger, or a member without a reason.
    expect(conflictText(list[2]!)).toBe(
      '10.213.0.100 on eth0 is also answered by 02:13:00:00:00:02: no cluster member has that MAC: the address is configured on another machine',
    );
    expect(conflictText(list[1]!)).toBe(
      '10.213.0.9 on eth0 is also answered by 02:13:00:00:00:03 (node node-c): the election gives that node no reason to answer: ' +
        'two nodes each think they own it (split brain: is gossip between them cut?)',
    );
  });

  it('forgotten CONFLICT_FORGET_MS after the last sighting, not before', () => {
    let r = sight(EMPTY_CONFLICT_REGISTRY, { at: T0 }).registry;
    r = sight(r, { at: T0 + 10_000 }).registry;
    expect(nextForgetAt(r)).toBe(T0 + 10_000 + CONFLICT_FORGET_MS);
    expect(forget(r, T0 + 10_000 + CONFLICT_FORGET_MS - 1, everyOwned).forgotten).toEqual([]);
    const gone = forget(r, T0 + 10_000 + CONFLICT_FORGET_MS, everyOwned);
    expect(gone.forgotten).toMatchObject([{ reason: 'notSeen', entry: { mac: '02:13:00:00:00:02', sightings: 2 } }]);
    expect(gone.registry.entries.size).toBe(0);
    expect(nextForgetAt(gone.registry)).toBeUndefined();
  });

  it('forgotten at once when the IP is no longer ours', () => {
    let r = sight(EMPTY_CONFLICT_REGISTRY, { at: T0 }).registry;
    r = sight(r, { at: T0, ip: ip('10.213.0.9') }).registry;
    const result = forget(r, T0 + 1, (a) => a.value !== ip('10.213.0.9').value);
    expect(result.forgotten.map((f) => [f.reason, f.entry.key])).toEqual([['notOwned', '10.213.0.9|02:13:00:00:00:02']]);
    expect(result.registry.entries.size).toBe(1);
  });
});

describe('conflict registry caps', () => {
  const mac = (i: number) => `02:99:00:00:${((i >> 8) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`;
  const PER_IP = CONFLICT_FIRST_MACS_PER_IP + CONFLICT_LAST_MACS_PER_IP;

  it('keeps the first MACs of an IP and the latest ones, folding the rest into exact counts', () => {
    let r = EMPTY_CONFLICT_REGISTRY;
    for (let i = 0; i < 100; i++) r = sight(r, { at: T0 + i, mac: mac(i) }).registry;
    const macs = listConflicts(r, () => undefined)
      .map((c) => c.mac)
      .sort();
    const expected = [0, 1, 2, 3, 96, 97, 98, 99].slice(0, PER_IP).map(mac);
    expect(macs).toEqual(expected.sort());
    expect(r.unlisted.get('10.213.0.100')).toMatchObject({ macs: 100 - PER_IP, sightings: 100 - PER_IP });
    expect(activeConflicts(r)).toBe(100);
    // The summary is forgotten like the entries: a minute unseen.
    const gone = forget(r, T0 + 99 + CONFLICT_FORGET_MS, everyOwned);
    expect(activeConflicts(gone.registry)).toBe(0);
  });

  it('lists at most CONFLICT_LISTED_MAX entries over all IPs and only counts replies past that', () => {
    let r = EMPTY_CONFLICT_REGISTRY;
    const ips = CONFLICT_LISTED_MAX / PER_IP + 2;
    for (let n = 0; n < ips; n++) for (let i = 0; i < PER_IP; i++) r = sight(r, { at: T0, ip: ip(`10.213.1.${n}`), mac: mac(i) }).registry;
    expect(r.entries.size).toBe(CONFLICT_LISTED_MAX);
    const sightings = [...r.unlisted.values()].reduce((n, u) => n + u.sightings, 0);
    expect(sightings).toBe(2 * PER_IP);
  });
});

describe('conflict log gate', () => {
  it('says the first conflict of an IP at once, holds the rest of the interval, and sums them up once it ends', () => {
    let g = admitConflictLog(EMPTY_LOG_GATE, '10.0.0.1', 0, 10_000);
    expect(g.log).toBe(true);
    for (let t = 1; t <= 5; t++) {
      g = admitConflictLog(g.gate, '10.0.0.1', t * 1000, 10_000);
      expect(g).toMatchObject({ log: false, reason: 'held' });
    }
    expect(admitConflictLog(g.gate, '10.0.0.2', 5000, 10_000).log).toBe(true);
    expect(nextWindowEnd(g.gate, 10_000)).toBe(10_000);
    const closed = closeWindows(g.gate, 10_000, 10_000);
    expect(closed.summaries).toEqual([{ ip: '10.0.0.1', held: 5 }]);
    // The summary opened the next window: a flood that goes on is held again, not said line by line.
    expect(admitConflictLog(closed.gate, '10.0.0.1', 10_500, 10_000).log).toBe(false);
  });
});
