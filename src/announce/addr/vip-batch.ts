/**
 * Netlink changes to mlb0 sent many at a time: one request in flight per VIP made binding 10,000 VIPs 10,000
 * round trips through the event loop, one after another. The kernel answers each RTM_NEWADDR/RTM_DELADDR on
 * its own (matched by sequence number, rtnetlink(7)), so a batch is sent at once and its answers awaited
 * together; each VIP keeps its own outcome, so a refused one is still reported by name with its reason.
 */

/**
 * Requests in flight at once. Each answer (an ACK, or an error carrying the request back) waits in the socket's
 * receive buffer until the event loop reads it, and costs the buffer a whole socket buffer (about 1-2 KiB of
 * kernel memory, not its 36-100 bytes). The buffer is capped by net.core.rmem_max (208 KiB by default, doubled):
 * 64 answers fit it with room to spare on a busy loop (an overflow is ENOBUFS and every dropped answer a request
 * failed by timeout), and 10,000 VIPs take 157 round trips instead of 10,000.
 */
export const VIP_NETLINK_BATCH = 64;

/**
 * Runs `each` on every item, `size` at a time, a batch after the previous one settled, and `afterBatch` once each
 * batch settled. `each` must not reject.
 */
export async function inBatches<T>(
  items: readonly T[],
  size: number,
  each: (item: T) => Promise<void>,
  afterBatch?: () => void,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map(each));
    afterBatch?.();
  }
}
