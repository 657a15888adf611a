/**
 * Failover at a confirmed suspicion instead of at death. The election leaves out a member whose suspicion is
 * confirmed (gossip/swim/confirmed-suspects.ts: k other members independently failed to reach it), so the next node
 * in each of its VIPs' order takes them over without waiting for the suspicion minimum, which only a refutation can
 * cut short and which a crashed or unplugged node never sends. With the fast profile in a 3-node LAN that minimum
 * (suspicionMult x probeInterval = 600 ms) was most of the 0.9 s a client saw between a node's death and its VIP
 * answering elsewhere.
 *
 * Trade-off: memberlist treats a suspect node as alive until it is declared dead, and MetalLB elects among alive
 * and suspect speakers; mlb's election stops counting on it one suspicion minimum earlier. A false confirmation
 * (a live node that two probers could not reach in the same window: a loss burst, a stalled host) moves its VIPs
 * to the next node and back when it refutes, where memberlist would have logged a suspicion and nothing else.
 * Every member sees the same suspect messages by gossip, so all nodes elect the same owner; only the members, not
 * the address allocation or the configuration agreement, see the difference: a suspicion never releases an IP.
 */
import type { Logger } from 'pino';
import type { GossipNode } from '../gossip/gossip-node';
import type { Member } from '../gossip/swim';
import { goneHoldersFrom, type GoneHolders } from './owner-history';

/** The live members the election may elect: every live one but those whose suspicion is confirmed. */
export function electableMembers<T extends { readonly name: string }>(live: readonly T[], confirmed: ReadonlyMap<string, number>): T[] {
  return confirmed.size === 0 ? [...live] : live.filter((m) => !confirmed.has(m.name));
}

/**
 * Who stopped answering, for the owner change's report: the dead and left members (owner-history.ts), and the
 * confirmed suspects since their confirmation, so a VIP they held is reported as taken over from a gone holder.
 */
export function goneOrConfirmedHolders(
  members: readonly Pick<Member, 'name' | 'state' | 'stateChange'>[],
  confirmed: ReadonlyMap<string, number>,
  lastHeardAt: (node: string) => number | undefined,
): GoneHolders {
  const gone = goneHoldersFrom(members, lastHeardAt);
  return (node) => {
    const at = confirmed.get(node);
    return gone(node) ?? (at === undefined ? undefined : { lastHeardAt: lastHeardAt(node), goneAt: at });
  };
}

/**
 * The gossip 'suspicion' listener: recomputes the election, and says why when it changes (a confirmed suspicion
 * of a member heard from since it was suspected changes nothing: it is elected until it dies or refutes).
 */
export function suspicionListener(
  gossip: Pick<GossipNode, 'confirmedSuspects'>,
  logger: Logger,
  recompute: () => void,
): (member: Member, confirmed: boolean) => void {
  return (member, confirmed) => {
    recompute();
    if (!confirmed)
      logger.info({ event: 'suspectRefuted', member: member.name }, `${member.name} refuted a confirmed suspicion: it is elected again`);
    else if (gossip.confirmedSuspects().has(member.name))
      logger.warn(
        { event: 'suspectConfirmed', member: member.name },
        `members agree ${member.name} is unreachable and it has been silent: its IPs go to the next node before it is declared dead`,
      );
  };
}
