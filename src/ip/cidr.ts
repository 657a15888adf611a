import { type IP, type IPFamily, bitsOf, maxValueOf } from './ip-address';
import { formatIP } from './format-ip';
import { parseIP } from './parse-ip';

/** A network: its first address (host bits zero) and prefix length. */
export interface CIDR {
  readonly ip: IP;
  readonly prefix: number;
}

const IPV4_MAPPED_PREFIX_BITS = 96;

/** The mask of a prefix length as an integer, e.g. /24 in IPv4 -> 0xffffff00. */
function maskValue(family: IPFamily, prefix: number): bigint {
  const bits = bitsOf(family);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) {
    throw new RangeError(`prefix length ${prefix} is outside 0-${bits} for IPv${family}`);
  }
  return maxValueOf(family) ^ ((1n << BigInt(bits - prefix)) - 1n);
}

/** The address with its host bits cleared (Go's IP.Mask with a CIDR mask). */
function maskIP(ip: IP, prefix: number): IP {
  return { family: ip.family, value: ip.value & maskValue(ip.family, prefix) };
}

export function makeCIDR(ip: IP, prefix: number): CIDR {
  return { ip: maskIP(ip, prefix), prefix };
}

/**
 * Parses "address/length" as Go's net.ParseCIDR does and returns the masked network, so "10.0.0.7/24" is
 * 10.0.0.0/24 (MetalLB builds pools from the network, not the address). An IPv4-mapped IPv6 prefix of /96 or
 * longer is the IPv4 network it maps. Undefined for anything else.
 */
export function parseCIDR(text: string): CIDR | undefined {
  const slash = text.indexOf('/');
  if (slash === -1) return undefined;
  const addressText = text.slice(0, slash);
  const lengthText = text.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(lengthText)) return undefined;
  const ip = parseIP(addressText);
  if (!ip) return undefined;
  let prefix = Number(lengthText);
  const writtenAsIPv6 = addressText.includes(':');
  if (ip.family === 4 && writtenAsIPv6) {
    if (prefix < IPV4_MAPPED_PREFIX_BITS || prefix > 128) return undefined;
    prefix -= IPV4_MAPPED_PREFIX_BITS;
  }
  if (prefix > bitsOf(ip.family)) return undefined;
  return makeCIDR(ip, prefix);
}

/** Go's IPNet.String(): canonical address, slash, prefix length. */
export function formatCIDR(cidr: CIDR): string {
  return `${formatIP(cidr.ip)}/${cidr.prefix}`;
}

export function cidrFirst(cidr: CIDR): IP {
  return cidr.ip;
}

export function cidrLast(cidr: CIDR): IP {
  const hostBits = BigInt(bitsOf(cidr.ip.family) - cidr.prefix);
  return { family: cidr.ip.family, value: cidr.ip.value | ((1n << hostBits) - 1n) };
}

/** How many addresses the network holds (2^(bits - prefix)). */
export function cidrSize(cidr: CIDR): bigint {
  return 1n << BigInt(bitsOf(cidr.ip.family) - cidr.prefix);
}

export function cidrContains(cidr: CIDR, ip: IP): boolean {
  return ip.family === cidr.ip.family && (ip.value & maskValue(ip.family, cidr.prefix)) === cidr.ip.value;
}

export function cidrsOverlap(a: CIDR, b: CIDR): boolean {
  if (a.ip.family !== b.ip.family) return false;
  const shorter = Math.min(a.prefix, b.prefix);
  const mask = maskValue(a.ip.family, shorter);
  return (a.ip.value & mask) === (b.ip.value & mask);
}
