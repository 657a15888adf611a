/**
 * MetalLB's `announceFailed`: this node won a layer 2 service, but the L2Advertisements that select it name only
 * interfaces this node cannot answer on, so nobody answers for the IP. MetalLB's speaker
 * (v0.14+ speaker/layer2_controller.go SetBalancer) then skips the IP, leaves it out of the ServiceL2Status and
 * emits a Warning per IP, `the interfaces specified by LB IP %q doesn't exist in assigned node %q with protocol
 * %q`. Here the same condition is read off what the node answers for: an IP whose advertisement restricts the
 * interfaces (OwnedL2.interfaces non-empty; empty means every eligible one) and that ended up on none
 * (local-announcements.ts selects among the node's usable links). Pure.
 */
import { formatIP } from '../../ip';
import type { OwnedL2 } from '../cluster-decision';
import type { AnnouncedIP } from '../local-announcements';
import { PROTOCOL_NAMES, failureKey, goQuote, type FailedAnnouncement, type SpeakerEvent } from './announced-services';

/**
 * The owned layer 2 IPs whose named interfaces are absent here. `announced`: what the node answers for now, with
 * the interfaces it chose; an IP not listed there was not looked at (announcing off), so it has not failed.
 */
export function failedAnnouncements(
  owned: readonly OwnedL2[],
  announced: readonly Pick<AnnouncedIP, 'ip' | 'interfaces'>[],
): FailedAnnouncement[] {
  const chosen = new Map(announced.map((a) => [a.ip, a.interfaces]));
  const failed: FailedAnnouncement[] = [];
  for (const o of owned) {
    const ip = formatIP(o.ip);
    if (o.interfaces.length > 0 && chosen.get(ip)?.length === 0) failed.push({ service: o.service, ip });
  }
  return failed;
}

export function announceFailedEvent(failed: FailedAnnouncement, node: string): SpeakerEvent {
  return {
    service: failed.service,
    type: 'Warning',
    reason: 'announceFailed',
    message: `the interfaces specified by LB IP ${goQuote(failed.ip)} doesn't exist in assigned node ${goQuote(node)} with protocol ${goQuote(PROTOCOL_NAMES.layer2)}`,
  };
}

/**
 * The `announceFailed` events owed now: one per IP that has failed since the previous plan. MetalLB repeats it on
 * every pass over the service; mlb passes only on a change, so a failure that ends and comes back is the repeat,
 * counted on the same Event by the correlator.
 */
export function newlyFailed(previous: readonly FailedAnnouncement[], now: readonly FailedAnnouncement[], node: string): SpeakerEvent[] {
  const before = new Set(previous.map(failureKey));
  return now.filter((f) => !before.has(failureKey(f))).map((f) => announceFailedEvent(f, node));
}
