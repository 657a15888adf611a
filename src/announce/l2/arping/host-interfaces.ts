/**
 * The interfaces of this network namespace as a probe needs them (name, MAC, up, addresses), read without
 * netlink: os.networkInterfaces() for addresses, /sys/class/net for the interfaces that have none, their link
 * type and whether they are up. Used by `mlb arping` (which must start fast and needs no event stream) and by the
 * daemon's self-check when it is not handed the announcer's netlink link table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { parseIP } from '../../../ip';
import { parseMAC, type MacAddress } from '../mac-address';
import type { InterfaceAddress } from './neighbor-probe';

/** ARPHRD_ETHER (linux/if_arp.h): the only link type ARP and NDP frames are built for here. */
const ARPHRD_ETHER = 1;
/** IFF_UP (linux/if.h). */
const IFF_UP = 0x1;

export interface HostInterface {
  readonly name: string;
  /** Undefined when the link has no Ethernet address (loopback, tun, wireguard). */
  readonly mac: MacAddress | undefined;
  readonly up: boolean;
  readonly addresses: readonly InterfaceAddress[];
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
