/**
 * Which interface `mlb arping` asks on: -I names it; otherwise the one interface whose subnet holds the target.
 * chooseInterface is pure; readHostInterfaces (src/announce/l2/arping/host-interfaces.ts, shared with the daemon's
 * self-check) reads this network namespace and is re-exported here for the command.
 *
 * This is deliberately simpler than the announcer's interface selection (src/announce/l2): arping is a probe an
 * operator aims, so an ambiguous choice is a usage error naming the candidates, never a guess.
 */
import { cidrContains, formatIP, makeCIDR, type IP } from '../../ip';
import type { HostInterface } from '../../announce/l2/arping/host-interfaces';
import type { ArpingInterface } from '../../announce/l2/arping/neighbor-probe';

export { readHostInterfaces, type HostInterface } from '../../announce/l2/arping/host-interfaces';

export type InterfaceChoice = { readonly ok: true; readonly iface: ArpingInterface } | { readonly ok: false; readonly problem: string };

const listNames = (ifaces: readonly HostInterface[]): string => ifaces.map((i) => i.name).join(', ') || '(none)';

function describe(i: HostInterface): string {
  const addresses = i.addresses.map((a) => `${formatIP(a.ip)}/${a.prefix}`).join(' ');
  return `${i.name}${addresses ? ` (${addresses})` : ''}`;
}

function usable(i: HostInterface): ArpingInterface | string {
  if (!i.mac) return `${i.name} has no Ethernet address: ARP and NDP need an Ethernet interface`;
  if (!i.up) return `${i.name} is down`;
  return { name: i.name, mac: i.mac, addresses: i.addresses };
}

export function chooseInterface(target: IP, interfaces: readonly HostInterface[], requested?: string): InterfaceChoice {
  const ethernet = interfaces.filter((i) => i.mac !== undefined);
  if (requested !== undefined) {
    const named = interfaces.find((i) => i.name === requested);
    if (!named) return { ok: false, problem: `no interface named "${requested}" here; Ethernet interfaces: ${listNames(ethernet)}` };
    const u = usable(named);
    return typeof u === 'string' ? { ok: false, problem: u } : { ok: true, iface: u };
  }
  const onSubnet = ethernet.filter((i) => i.addresses.some((a) => cidrContains(makeCIDR(a.ip, a.prefix), target)));
  if (onSubnet.length === 1) {
    const u = usable(onSubnet[0] as HostInterface);
    return typeof u === 'string'
      ? { ok: false, problem: `${u} (it is the interface on ${formatIP(target)}'s subnet)` }
      : { ok: true, iface: u };
  }
  if (onSubnet.length > 1) {
    return {
      ok: false,
      problem: `${formatIP(target)} is on the subnet of ${onSubnet.length} interfaces: ${onSubnet.map(describe).join(', ')}; choose one with -I`,
    };
  }
  return {
    ok: false,
    problem:
      `no interface has a subnet holding ${formatIP(target)}; choose one with -I. ` +
      `Candidates: ${
        ethernet
          .filter((i) => i.up)
          .map(describe)
          .join(', ') || '(no Ethernet interface is up)'
      }`,
  };
}
