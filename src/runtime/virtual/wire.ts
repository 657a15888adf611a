/**
 * Carries one TCP segment (a SYN, a SYN-ACK, data, a FIN) from one host to another the way TCP does: it takes the
 * link's delay; when it is lost, or a partition lies between the hosts when it arrives, it is sent again after the
 * retransmission timeout, doubling each time, until TCP gives up. Nothing crosses a partition: a stream across
 * one stalls, and resumes (after the pending timeout) once it heals.
 */
import type { Fabric, VirtualHost } from './virtual-host';

export interface Segment {
  readonly from: VirtualHost;
  readonly to: VirtualHost;
  /** SYN and SYN-ACK retransmit on the 1 s initial RTO, everything else on the 200 ms minimum. */
  readonly syn: boolean;
  /** Runs when the segment gets through (a wire task: the receiver decides which host's CPU handles it). */
  arrive(): void;
  /** Whether the sender stopped caring (the connection is gone, the dial gave up): no more tries. */
  abandoned(): boolean;
  /** TCP gave up after its last try. */
  giveUp?(): void;
}

export function carry(fabric: Fabric, segment: Segment, attempt = 0, leaveAt = segment.from.departure(fabric.clock.now())): void {
  const { clock, link } = fabric;
  const from = segment.from.name;
  const to = segment.to.name;
  const delay = link.delay(from, to);
  clock.schedule(leaveAt + delay, () => {
    if (segment.abandoned()) return;
    if (link.reachable(from, to) && !link.lost(from, to)) {
      segment.arrive();
      return;
    }
    const retryAfter = link.retransmitAfter(attempt, segment.syn);
    if (retryAfter === undefined) segment.giveUp?.();
    else carry(fabric, segment, attempt + 1, leaveAt + retryAfter);
  });
}

/**
 * A reset (RST) or refusal: one packet, no retransmission (TCP never retransmits a RST); lost or blocked by a
 * partition, it simply never arrives and the other side's own timeout decides.
 */
export function carryOnce(fabric: Fabric, from: VirtualHost, to: VirtualHost, arrive: () => void): void {
  const { clock, link } = fabric;
  const delay = link.delay(from.name, to.name);
  clock.schedule(from.departure(clock.now()) + delay, () => {
    if (link.reachable(from.name, to.name) && !link.lost(from.name, to.name)) arrive();
  });
}
