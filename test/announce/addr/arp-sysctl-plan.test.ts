import { describe, expect, it } from 'vitest';
import {
  arpSysctlPlan,
  isValidInterfaceName,
  type ArpSysctlPlan,
  type ArpSysctlReadings,
} from '../../../src/announce/addr/arp-sysctl-plan';

const values = (arp_ignore: number, arp_announce: number) => ({ arp_ignore, arp_announce });
const changes = (plan: ArpSysctlPlan) => plan.changes.map((c) => `${c.scope}.${c.name} ${c.from}->${c.to} ${c.reason}`);

/**
 * The kernel's behaviour for an effective value, transcribed from net/ipv4/arp.c (arp_ignore(): 1 and 2 check
 * the incoming interface, 3 only excludes scope-host addresses, 4-7 and unknown values reply, 8 never replies;
 * arp_solicit(): 2 picks the outgoing interface's address, unknown values behave as 0).
 */
const kernelAnswersForAddressOnMlb0 = (effectiveIgnore: number) =>
  !(effectiveIgnore === 1 || effectiveIgnore === 2 || effectiveIgnore === 8);
const kernelMayAnnounceVip = (effectiveAnnounce: number) => effectiveAnnounce !== 2;

function apply(readings: Record<string, { arp_ignore: number; arp_announce: number }>, plan: ArpSysctlPlan) {
  const after = structuredClone(readings);
  for (const c of plan.changes) after[c.scope]![c.name] = c.to;
  return after;
}

describe('arpSysctlPlan', () => {
  it('raises a default interface to arp_ignore=1 and arp_announce=2 and leaves conf/all alone', () => {
    const plan = arpSysctlPlan(['eth0'], { all: values(0, 0), eth0: values(0, 0) });
    expect(changes(plan)).toEqual(['eth0.arp_ignore 0->1 answersForOtherInterfaces', 'eth0.arp_announce 0->2 mayAnnounceVip']);
    expect(plan.changes[0]!.why).toContain('mlb0');
    expect(plan.kept).toEqual([]);
  });

  it("changes nothing when the values are already safe, keeping an admin's stricter choice", () => {
    expect(changes(arpSysctlPlan(['eth0'], { all: values(0, 0), eth0: values(1, 2) }))).toEqual([]);
    expect(changes(arpSysctlPlan(['eth0'], { all: values(0, 0), eth0: values(2, 2) }))).toEqual([]);
    const silentEverywhere = arpSysctlPlan(['eth0', 'eth1'], { all: values(8, 2), eth0: values(0, 0), eth1: values(3, 1) });
    expect(changes(silentEverywhere)).toEqual([]);
    expect(silentEverywhere.kept.map((k) => `${k.scope}.${k.name}=${k.value} effective ${k.effective}`)).toEqual([
      'eth0.arp_ignore=0 effective 8',
      'eth0.arp_announce=0 effective 2',
      'eth1.arp_ignore=3 effective 8',
      'eth1.arp_announce=1 effective 2',
    ]);
  });

  it('lowers conf/all/arp_ignore=3 to 1: the kernel takes max(all, interface), so eth0=1 alone still answers', () => {
    const plan = arpSysctlPlan(['eth0'], { all: values(3, 0), eth0: values(1, 2) });
    expect(changes(plan)).toEqual(['all.arp_ignore 3->1 allOverridesInterface']);
    expect(plan.changes[0]!.why).toContain('max(all, interface)');
    // all lowered to 1 makes eth0's 0 effective 1 already: eth0's own arp_ignore is left as it is.
    expect(changes(arpSysctlPlan(['eth0'], { all: values(5, 0), eth0: values(0, 0) }))).toEqual([
      'all.arp_ignore 5->1 allOverridesInterface',
      'eth0.arp_announce 0->2 mayAnnounceVip',
    ]);
    expect(changes(arpSysctlPlan(['eth0'], { all: values(3, 2), eth0: values(9, 2) }))).toEqual([
      'all.arp_ignore 3->1 allOverridesInterface',
      'eth0.arp_ignore 9->1 answersForOtherInterfaces',
    ]);
    // The only interface already outvotes all=3 (8 is the max and silent): all stays.
    expect(changes(arpSysctlPlan(['eth0'], { all: values(3, 2), eth0: values(8, 0) }))).toEqual([]);
  });

  it('raises the interface for a low conf/all/arp_announce, and lowers an out-of-range all (handled as 0)', () => {
    expect(changes(arpSysctlPlan(['eth0'], { all: values(1, 1), eth0: values(0, 0) }))).toEqual(['eth0.arp_announce 0->2 mayAnnounceVip']);
    expect(changes(arpSysctlPlan(['eth0'], { all: values(1, 7), eth0: values(0, 2) }))).toEqual([
      'all.arp_announce 7->2 allOverridesInterface',
    ]);
  });

  it('never turns a bad name into a path, and skips interfaces it cannot read', () => {
    const plan = arpSysctlPlan(['../../../etc', 'all', 'default', '', 'eth0:1', 'a-very-long-name0', 'eth9', 'eth0'], {
      all: values(0, 0),
      eth0: values(0, 0),
    });
    expect(plan.skipped.map((s) => `${s.scope} ${s.reason}`)).toEqual([
      '../../../etc invalidInterfaceName',
      'all invalidInterfaceName',
      'default invalidInterfaceName',
      ' invalidInterfaceName',
      'eth0:1 invalidInterfaceName',
      'a-very-long-name0 invalidInterfaceName',
      'eth9 interfaceUnreadable',
    ]);
    expect(plan.changes.every((c) => c.scope === 'eth0')).toBe(true);
    expect(isValidInterfaceName('eth0.100')).toBe(true);
    expect(isValidInterfaceName('enp0s31f6')).toBe(true);
    expect(arpSysctlPlan(['eth0'], { eth0: values(0, 0) }).skipped).toEqual([
      expect.objectContaining({ scope: 'all', reason: 'allUnreadable' }),
    ]);
  });

  it('for every combination of values, leaves each interface silent for mlb0 and never announcing a VIP, touching conf/all only when needed', () => {
    const range = [-1, 0, 1, 2, 3, 4, 7, 8, 9];
    for (const allIgnore of range)
      for (const allAnnounce of range)
        for (const ifIgnore of range)
          for (const ifAnnounce of range) {
            const readings = {
              all: values(allIgnore, allAnnounce),
              eth0: values(ifIgnore, ifAnnounce),
              eth1: values(0, 0),
            } satisfies ArpSysctlReadings;
            const plan = arpSysctlPlan(['eth0', 'eth1'], readings);
            const after = apply(readings, plan);
            const label = JSON.stringify(readings);
            for (const name of ['eth0', 'eth1']) {
              expect(kernelAnswersForAddressOnMlb0(Math.max(after.all!.arp_ignore, after[name]!.arp_ignore)), label).toBe(false);
              expect(kernelMayAnnounceVip(Math.max(after.all!.arp_announce, after[name]!.arp_announce)), label).toBe(false);
            }
            // Minimal: conf/all changes only when some interface could not be made safe on its own.
            const allChanged = plan.changes.some((c) => c.scope === 'all' && c.name === 'arp_ignore');
            const interfaceAloneSuffices = [1, 2].some((v) => !kernelAnswersForAddressOnMlb0(Math.max(allIgnore, v)));
            const someUnsafe = ['eth0', 'eth1'].some((n) =>
              kernelAnswersForAddressOnMlb0(Math.max(allIgnore, readings[n as 'eth0']!.arp_ignore)),
            );
            expect(allChanged, label).toBe(someUnsafe && !interfaceAloneSuffices);
            // Idempotent: planning again on the result changes nothing.
            expect(arpSysctlPlan(['eth0', 'eth1'], after).changes, label).toEqual([]);
          }
  });
});
