import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  announcedPairs,
  EMPTY_L2_ANNOUNCER_STATE,
  formatMAC,
  L2EffectReason,
  ownedOn,
  reconcileL2,
  solicitedNodeAddress,
  type DesiredAnnouncement,
  type L2AnnouncerState,
  type L2Effect,
} from '../../../src/announce/l2';
import { formatIP } from '../../../src/ip';
import { ip } from './l2-fixtures';

/** Effects as short strings for readable expectations. */
function show(effects: readonly L2Effect[]): string[] {
  return effects.map((e) => {
    switch (e.kind) {
      case 'joinSolicitedNodeGroup':
      case 'leaveSolicitedNodeGroup':
        return `${e.kind} ${e.interface} ${formatIP(e.group)} ${formatMAC(e.mac)} (${e.reason})`;
      case 'startGratuitous':
      case 'stopGratuitous':
        return `${e.kind} ${e.interface} ${formatIP(e.ip)} (${e.reason})`;
      default:
        return `${e.kind} ${e.interface} (${e.reason})`;
    }
  });
}

function apply(state: L2AnnouncerState, desired: DesiredAnnouncement[]): { state: L2AnnouncerState; effects: string[] } {
  const r = reconcileL2(state, desired);
  return { state: r.state, effects: show(r.effects) };
}

const V4 = ip('192.168.10.200');
const V6A = ip('fd00:10::1:2');
const V6B = ip('fd00:20::1:2'); // same low 24 bits as V6A: same solicited-node group
const V6C = ip('fd00:10::9');

describe('L2 announcer reconciler', () => {
  it('gaining an IPv4 address opens the ARP responder and starts its gratuitous schedule', () => {
    const r = apply(EMPTY_L2_ANNOUNCER_STATE, [{ ip: V4, interfaces: ['eth0'] }]);
    expect(r.effects).toEqual(['createARPResponder eth0 (firstAddressOnInterface)', 'startGratuitous eth0 192.168.10.200 (ipGained)']);
  });

  it('applying the same desired set twice yields no effects (idempotent)', () => {
    const desired = [
      { ip: V4, interfaces: ['eth0', 'eth1'] },
      { ip: V6A, interfaces: ['eth0'] },
    ];
    const first = apply(EMPTY_L2_ANNOUNCER_STATE, desired);
    expect(first.effects.length).toBeGreaterThan(0);
    expect(apply(first.state, desired).effects).toEqual([]);
    // Order and duplicates in the input do not matter either.
    expect(
      apply(first.state, [
        { ip: V6A, interfaces: ['eth0', 'eth0'] },
        { ip: V4, interfaces: ['eth1'] },
        { ip: V4, interfaces: ['eth0'] },
      ]).effects,
    ).toEqual([]);
  });

  it('IPv6: NDP responder, solicited-node group joined once per group, refcounted on the way out', () => {
    let r = apply(EMPTY_L2_ANNOUNCER_STATE, [{ ip: V6A, interfaces: ['eth0'] }]);
    expect(r.effects).toEqual([
      'createNDPResponder eth0 (firstAddressOnInterface)',
      'joinSolicitedNodeGroup eth0 ff02::1:ff01:2 33:33:ff:01:00:02 (firstAddressInGroup)',
      'startGratuitous eth0 fd00:10::1:2 (ipGained)',
    ]);
    r = apply(r.state, [
      { ip: V6A, interfaces: ['eth0'] },
      { ip: V6B, interfaces: ['eth0'] },
      { ip: V6C, interfaces: ['eth0'] },
    ]);
    expect(r.effects).toEqual([
      'joinSolicitedNodeGroup eth0 ff02::1:ff00:9 33:33:ff:00:00:09 (firstAddressInGroup)',
      'startGratuitous eth0 fd00:10::9 (ipGained)',
      'startGratuitous eth0 fd00:20::1:2 (ipGained)',
    ]);
    r = apply(r.state, [
      { ip: V6B, interfaces: ['eth0'] },
      { ip: V6C, interfaces: ['eth0'] },
    ]);
    expect(r.effects).toEqual(['stopGratuitous eth0 fd00:10::1:2 (ipWithdrawn)']);
    r = apply(r.state, []);
    expect(r.effects).toEqual([
      'stopGratuitous eth0 fd00:10::9 (ipWithdrawn)',
      'stopGratuitous eth0 fd00:20::1:2 (ipWithdrawn)',
      'leaveSolicitedNodeGroup eth0 ff02::1:ff00:9 33:33:ff:00:00:09 (lastAddressInGroup)',
      'leaveSolicitedNodeGroup eth0 ff02::1:ff01:2 33:33:ff:01:00:02 (lastAddressInGroup)',
      'deleteNDPResponder eth0 (lastAddressOnInterface)',
    ]);
    expect(r.state.announced.size).toBe(0);
  });

  it('moving an address between interfaces releases first, then acquires, with interface reasons', () => {
    const r1 = apply(EMPTY_L2_ANNOUNCER_STATE, [{ ip: V4, interfaces: ['eth0'] }]);
    const r2 = apply(r1.state, [{ ip: V4, interfaces: ['eth1'] }]);
    expect(r2.effects).toEqual([
      'stopGratuitous eth0 192.168.10.200 (interfaceRemoved)',
      'deleteARPResponder eth0 (lastAddressOnInterface)',
      'createARPResponder eth1 (firstAddressOnInterface)',
      'startGratuitous eth1 192.168.10.200 (interfaceAdded)',
    ]);
  });

  it('a dual-stack interface keeps its ARP responder while only the IPv6 side goes', () => {
    const r1 = apply(EMPTY_L2_ANNOUNCER_STATE, [
      { ip: V4, interfaces: ['eth0'] },
      { ip: V6C, interfaces: ['eth0'] },
    ]);
    expect(r1.effects.filter((e) => e.includes('Responder'))).toEqual([
      'createARPResponder eth0 (firstAddressOnInterface)',
      'createNDPResponder eth0 (firstAddressOnInterface)',
    ]);
    const r2 = apply(r1.state, [{ ip: V4, interfaces: ['eth0'] }]);
    expect(r2.effects.filter((e) => e.includes('Responder'))).toEqual(['deleteNDPResponder eth0 (lastAddressOnInterface)']);
  });

  it('an entry with no interfaces announces nothing', () => {
    expect(apply(EMPTY_L2_ANNOUNCER_STATE, [{ ip: V4, interfaces: [] }]).effects).toEqual([]);
  });

  it('ownedOn gives each interface its own set for the responder', () => {
    const { state } = reconcileL2(EMPTY_L2_ANNOUNCER_STATE, [
      { ip: V4, interfaces: ['eth0'] },
      { ip: V6A, interfaces: ['eth1'] },
    ]);
    expect(ownedOn(state, 'eth0').has(V4)).toBe(true);
    expect(ownedOn(state, 'eth0').has(V6A)).toBe(false);
    expect(ownedOn(state, 'eth1').has(V6A)).toBe(true);
    expect(ownedOn(state, 'eth2').has(V4)).toBe(false);
    expect(announcedPairs(state).map((p) => `${p.iface} ${formatIP(p.ip)}`)).toEqual(['eth0 192.168.10.200', 'eth1 fd00:10::1:2']);
  });

  it('property: effects replayed on a resource ledger give exactly the desired resources, never twice, and re-applying is silent', () => {
    const ips = [V4, ip('192.168.10.201'), V6A, V6B, V6C];
    const ifaces = ['eth0', 'eth1', 'eth2'];
    const desiredArb = fc.array(fc.record({ ip: fc.constantFrom(...ips), interfaces: fc.subarray(ifaces) }), { maxLength: 6 });
    fc.assert(
      fc.property(fc.array(desiredArb, { minLength: 1, maxLength: 8 }), (sequence) => {
        const responders = new Set<string>();
        const groups = new Set<string>();
        const running = new Set<string>();
        let state = EMPTY_L2_ANNOUNCER_STATE;
        for (const desired of sequence) {
          const r = reconcileL2(state, desired);
          for (const e of r.effects) {
            expect(Object.keys(L2EffectReason)).toContain(e.reason);
            const toggle = (set: Set<string>, key: string, add: boolean) => {
              expect(set.has(key), `${e.kind} ${key}`).toBe(!add);
              if (add) set.add(key);
              else set.delete(key);
            };
            if (e.kind === 'createARPResponder' || e.kind === 'deleteARPResponder')
              toggle(responders, `arp ${e.interface}`, e.kind.startsWith('create'));
            else if (e.kind === 'createNDPResponder' || e.kind === 'deleteNDPResponder')
              toggle(responders, `ndp ${e.interface}`, e.kind.startsWith('create'));
            else if (e.kind === 'joinSolicitedNodeGroup' || e.kind === 'leaveSolicitedNodeGroup')
              toggle(groups, `${e.interface} ${formatIP(e.group)}`, e.kind.startsWith('join'));
            else if (e.kind === 'startGratuitous' || e.kind === 'stopGratuitous')
              toggle(running, `${e.interface} ${formatIP(e.ip)}`, e.kind === 'startGratuitous');
          }
          state = r.state;
          expect(reconcileL2(state, desired).effects).toEqual([]);
          // The ledger matches what the desired set implies.
          const want = { responders: new Set<string>(), groups: new Set<string>(), running: new Set<string>() };
          for (const d of desired) {
            for (const i of d.interfaces) {
              want.responders.add(`${d.ip.family === 4 ? 'arp' : 'ndp'} ${i}`);
              if (d.ip.family === 6) want.groups.add(`${i} ${formatIP(solicitedNodeAddress(d.ip))}`);
              want.running.add(`${i} ${formatIP(d.ip)}`);
            }
          }
          expect(responders).toEqual(want.responders);
          expect(groups).toEqual(want.groups);
          expect(running).toEqual(want.running);
        }
      }),
      { numRuns: 300 },
    );
  });
});
