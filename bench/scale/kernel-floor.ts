/**
 * The kernel's own cost of the binding row: `ip -batch` adding the same N /32 addresses to a fresh link in the
 * node's namespace, the way iproute2 does it (one RTM_NEWADDR after the other, each waiting for its ACK), then
 * the link deleted (its addresses go with it). Every IPv4 address added to a link is compared with each one the
 * link already holds (the kernel keeps them in one list to find the primary of the new address's subnet, and a
 * /32 is a subnet of its own), so N addresses cost O(N^2) in the kernel whoever adds them: the floor under the
 * daemon's "start -> every VIP bound" at 10,000 is this, not the daemon.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabHost, NetnsLab } from '../../test/support/netns-lab';

/** A link name of its own, never mlb0: the daemon's link is not touched. */
const FLOOR_LINK = 'floor0';

/** Milliseconds `ip -batch` took to add every address in `vips` to a fresh dummy (or ifb) link. */
export function kernelBindFloorMs(lab: NetnsLab, node: LabHost, vips: readonly string[], dir: string): number {
  const batch = join(dir, 'floor.batch');
  writeFileSync(batch, vips.map((vip) => `address add ${vip}/32 dev ${FLOOR_LINK}\n`).join(''));
  // Kernels without CONFIG_DUMMY (mlb0 falls back to ifb the same way: src/announce/addr/vip-link.ts).
  lab.execIn(node, 'sh', ['-c', `ip link add ${FLOOR_LINK} type dummy 2>/dev/null || ip link add ${FLOOR_LINK} type ifb`]);
  try {
    lab.execIn(node, 'ip', ['link', 'set', FLOOR_LINK, 'up']);
    const from = performance.now();
    lab.execIn(node, 'ip', ['-batch', batch]);
    return performance.now() - from;
  } finally {
    lab.execIn(node, 'ip', ['link', 'del', FLOOR_LINK]);
  }
}
