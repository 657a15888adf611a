/**
 * The conflicts a node knows of (src/daemon/self-check/conflict-registry.ts), pure: keyed by (IP, MAC), probe
 * answers and passive observations merged, forgotten after a minute unseen or when the IP is no longer ours,
 * listed with the node behind the MAC when the caller knows it.
 */
import { describe, expect, it } from 'vitest';
import { parseIP, type IP } from '../../../src/ip';
import {
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
        ip: '10.213.0.100', mac: '02:13:00:00:00:02', node: null, interface: 'eth1', evidence: 'arpAnnouncement',
        firstSeen: '2026-10-04T08:00:00.000Z', lastSeen: '2026-10-04T08:00:05.000Z', sightings: 2,
      },
    ]);
  });

  it('two other MACs on one IP are two conflicts; the node is named when the caller knows the MAC', () => {
    let r = sight(EMPTY_CONFLICT_REGISTRY, { at: T0, mac: '02:13:00:00:00:03' }).registry;
    r = sight(r, { at: T0, mac: '02:13:00:00:00:02' }).registry;
    r = sight(r, { at: T0, ip: ip('10.213.0.9') }).registry;
    r = sight(r, { at: T0, ip: ip('fd00:213::100') }).registry;
    const nodes = new Map([['02:13:00:00:00:03', 'node-c']]);
    const list = listConflicts(r, (m) => nodes.get(m));
    expect(list.map((c) => `${c.ip} ${c.mac} ${c.node}`)).toEqual([
      '10.213.0.9 02:13:00:00:00:02 null',
      '10.213.0.100 02:13:00:00:00:02 null',
      '10.213.0.100 02:13:00:00:00:03 node-c',
      'fd00:213::100 02:13:00:00:00:02 null',
    ]);
    expect(conflictText(list[2]!)).toBe(
      '10.213.0.100 on eth0 is also answered by 02:13:00:00:00:03 (node node-c): two nodes each think they own it ' +
        '(split brain: is gossip between them cut?), or the address is configured on another machine',
    );
  });

  it('forgotten CONFLICT_FORGET_MS after the last sighting, not before', () => {
    let r = sight(EMPTY_CONFLICT_REGISTRY, { at: T0 }).registry;
    r = sight(r, { at: T0 + 10_000 }).registry;
    expect(nextForgetAt(r)).toBe(T0 + 10_000 + CONFLICT_FORGET_MS);
    expect(forget(r, T0 + 10_000 + CONFLICT_FORGET_MS - 1, everyOwned).forgotten).toEqual([]);
    const gone = forget(r, T0 + 10_000 + CONFLICT_FORGET_MS, everyOwned);
    expect(gone.forgotten).toMatchObject([{ reason: 'notSeen', entry: { mac: '02:13:00:00:00:02', sightings: 2 } }]);
    expect(gone.registry.size).toBe(0);
    expect(nextForgetAt(gone.registry)).toBeUndefined();
  });

  it('forgotten at once when the IP is no longer ours', () => {
    let r = sight(EMPTY_CONFLICT_REGISTRY, { at: T0 }).registry;
    r = sight(r, { at: T0, ip: ip('10.213.0.9') }).registry;
    const result = forget(r, T0 + 1, (a) => a.value !== ip('10.213.0.9').value);
    expect(result.forgotten.map((f) => [f.reason, f.entry.key])).toEqual([['notOwned', '10.213.0.9|02:13:00:00:00:02']]);
    expect(result.registry.size).toBe(1);
  });
});
