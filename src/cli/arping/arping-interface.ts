/**
 * Which interface `mlb arping` asks on: -I names it; otherwise the one interface whose subnet holds the target.
 * chooseInterface is pure; readHostInterfaces reads this network namespace (os.networkInterfaces() for addresses,
 * /sys/class/net for the interfaces that have none, their link type and whether they are up).
 *
 * This is deliberately simpler than the announcer's interface selection (src/announce/l2): arping is a probe an
 * operator aims, so an ambiguous choice is a usage error naming the candidates, never a guess.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { cidrContains, formatIP, makeCIDR, parseIP, type IP } from '../../ip';
import { parseMAC, type MacAddress } from '../../announce/l2/mac-address';
import type { ArpingInterface, InterfaceAddress } from './arping-session';

/** ARPHRD_ETHER (linux/if_arp.h): the only link type ARP and NDP frames are built for here. */
export const ARPHRD_ETHER = 1;
/** IFF_UP (linux/if.h). */
const IFF_UP = 0x1;

export interface HostInterface {
  readonly name: string;
  /** Undefined when the link has no Ethernet address (loopback, tun, wireguard). */
  readonly mac: MacAddress | undefined;
  readonly up: boolean;
  readonly addresses: readonly InterfaceAddress[];
}

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
    return typeof u === 'string' ? { ok: false, problem: `${u} (it is the interface on ${formatIP(target)}'s subnet)` } : { ok: true, iface: u };
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
      `Candidates: ${ethernet.filter((i) => i.up).map(describe).join(', ') || '(no Ethernet interface is up)'}`,
  };
}

function readSys(name: string, file: string): string | undefined {
  try {
    return readFileSync(`/sys/class/net/${name}/${file}`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The interfaces of this network namespace, in name order. */
export function readHostInterfaces(): HostInterface[] {
  const fromOs = networkInterfaces();
  let names: string[];
  try {
    names = readdirSync('/sys/class/net');
  } catch {
    names = [];
  }
  const all = [...new Set([...names, ...Object.keys(fromOs)])].sort();
  return all.map((name) => {
    const entries = fromOs[name] ?? [];
    const addresses: InterfaceAddress[] = [];
    for (const e of entries) {
      const ip = parseIP(e.address.split('%')[0] as string);
      const prefix = Number(e.cidr?.split('/')[1]);
      if (ip && Number.isInteger(prefix)) addresses.push({ ip, prefix });
    }
    const type = readSys(name, 'type');
    const internal = entries.some((e) => e.internal);
    const macText = readSys(name, 'address') ?? entries[0]?.mac;
    const isEthernet = type === undefined ? !internal : Number(type) === ARPHRD_ETHER;
    const mac = isEthernet && macText ? parseMAC(macText) : undefined;
    const flags = readSys(name, 'flags');
    // Without /sys, an interface listed with addresses by the OS is taken as up.
    const up = flags === undefined ? entries.length > 0 : (Number.parseInt(flags, 16) & IFF_UP) !== 0;
    return { name, mac: mac && mac.some((b) => b !== 0) ? mac : undefined, up, addresses };
  });
}
