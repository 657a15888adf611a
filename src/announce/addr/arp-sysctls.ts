/**
 * Reads and writes the ARP sysctls under /proc/sys/net/ipv4/conf: the file half of
 * `VipBinder.prepareInterfaces` (the decisions are in arp-sysctl-plan.ts).
 *
 * Files, not netlink: the kernel does accept per-interface IPv4 devconf values over RTM_NEWLINK
 * (IFLA_AF_SPEC/AF_INET/IFLA_INET_CONF), but conf/all is no link and can only be set here, and /proc is what an
 * admin reads to check. /proc/sys/net belongs to the network namespace of the process that opens it, so a
 * daemon in a namespace changes that namespace only.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ALL_SCOPE,
  ARP_SYSCTL_NAMES,
  isValidInterfaceName,
  type ArpSysctlName,
  type ArpSysctlReadings,
  type ArpSysctlValues,
} from './arp-sysctl-plan';
import { vipBindErrorFrom } from './vip-bind-error';

export const PROC_IPV4_CONF = '/proc/sys/net/ipv4/conf';

function pathOf(root: string, scope: string, name: ArpSysctlName): string {
  // The plan never hands over a name that could leave conf/ (isValidInterfaceName); checked again here.
  if (scope !== ALL_SCOPE && !isValidInterfaceName(scope)) throw new RangeError(`not an interface name: ${scope}`);
  return join(root, scope, name);
}

async function readValue(path: string): Promise<number | undefined> {
  try {
    const value = Number.parseInt((await readFile(path, 'utf8')).trim(), 10);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The current values for conf/all and each valid name; a scope that cannot be read is left undefined. */
export async function readArpSysctls(interfaceNames: readonly string[], root = PROC_IPV4_CONF): Promise<ArpSysctlReadings> {
  const readings: Record<string, ArpSysctlValues | undefined> = {};
  for (const scope of [ALL_SCOPE, ...new Set(interfaceNames)]) {
    if (scope !== ALL_SCOPE && !isValidInterfaceName(scope)) continue;
    const [ignore, announce] = await Promise.all(ARP_SYSCTL_NAMES.map((name) => readValue(pathOf(root, scope, name))));
    readings[scope] = ignore === undefined || announce === undefined ? undefined : { arp_ignore: ignore, arp_announce: announce };
  }
  return readings;
}

/** Writes one value; throws a VipBindError (sysctlWriteFailed or permissionDenied). */
export async function writeArpSysctl(scope: string, name: ArpSysctlName, value: number, root = PROC_IPV4_CONF): Promise<void> {
  const path = pathOf(root, scope, name);
  try {
    await writeFile(path, `${value}\n`);
  } catch (error) {
    throw vipBindErrorFrom('sysctlWriteFailed', `cannot write ${value} to ${path}`, error, `net.ipv4.conf.${scope}.${name}`);
  }
}
