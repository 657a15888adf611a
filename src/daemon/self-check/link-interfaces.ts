/**
 * The self-check's view of this host's interfaces, read from the daemon's netlink link table instead of
 * os.networkInterfaces(): that call lists every address of the host, so with 10,000 VIPs on mlb0 each probe
 * parsed 10,000 entries (most of the daemon's idle CPU). The table is kept from netlink notifications
 * (link-table.ts) and hands out the same snapshot until something changes, so the conversion runs once per
 * change, not per probe.
 */
import type { HostInterface } from '../../announce/l2/arping/host-interfaces';
import type { LinkInfo, LinkSource } from '../../announce/l2/interfaces';

export function interfacesFromLinks(source: Pick<LinkSource, 'links'>): () => readonly HostInterface[] {
  let seen: readonly LinkInfo[] | undefined;
  let cached: readonly HostInterface[] = [];
  return () => {
    const links = source.links();
    if (links !== seen) {
      seen = links;
      cached = links.map((l) => ({
        name: l.name,
        // An all-zero MAC (loopback) is no MAC, as readHostInterfaces has it.
        mac: l.mac && l.mac.some((b) => b !== 0) ? l.mac : undefined,
        up: l.up,
        addresses: l.addresses,
      }));
    }
    return cached;
  };
}
