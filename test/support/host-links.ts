/**
 * Links as the daemon reads them from netlink, written by hand for tests of interface selection: an Ethernet link
 * that can answer, and mlb0 as the daemon makes it (a NOARP dummy holding every bound VIP as a /32).
 */
import type { LinkInfo } from '../../src/announce/l2/interfaces';
import { parseIP, type IP } from '../../src/ip';

/** eth0 (index 2), up, with a MAC and these addresses ("10.0.0.1/24"). */
export function ethernetLink(addresses: readonly string[], name = 'eth0', index = 2): LinkInfo {
  return {
    index,
    name,
    mac: Uint8Array.of(2, 0, 0, 0, 0, index),
    up: true,
    master: undefined,
    noarp: false,
    addresses: addresses.map((a) => {
      const [address, prefix] = a.split('/') as [string, string];
      return { ip: parseIP(address) as IP, prefix: Number(prefix) };
    }),
  };
}

/** mlb0 (index 3) holding `bound` as single addresses. */
export function vipLink(bound: readonly IP[]): LinkInfo {
  return {
    index: 3,
    name: 'mlb0',
    mac: Uint8Array.of(2, 0, 0, 0, 0, 3),
    up: true,
    master: undefined,
    noarp: true,
    addresses: bound.map((ip) => ({ ip, prefix: ip.family === 4 ? 32 : 128 })),
  };
}
