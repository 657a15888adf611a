/**
 * MetalLB's BGP ShouldAnnounce (speaker/bgp_controller.go): no election; every eligible node announces and the
 * routers spread traffic by ECMP. Checked in MetalLB's order:
 *  no advertisement of the pool selects the node -> notOwner; none matching the service -> noMatchingAdvertisement;
 *  LOCAL_PREF conflict between them -> conflictingAdvertisements; NetworkUnavailable -> nodeNetworkUnavailable;
 *  the exclusion label -> nodeLabeledExcludeBalancers; ETP Local without a local endpoint -> noLocalEndpoints;
 *  no serving endpoint anywhere -> noEndpoints. mlb adds notLiveMember last: a node whose speaker is gone
 *  has no sessions, so it announces nothing whatever MetalLB's function would say.
 */
import { ElectionContext, type ElectionUnit } from './election-context';
import type { ElectionConfig, LiveMembers, ServiceElectionInput } from './election-input';
import { bgpAnnouncementsFor, type BGPAnnouncement } from './bgp-announcement';
import type { ShouldAnnounceResult } from './l2-should-announce';
import { Reason, ReasonCode, metallbBGPReason, reasonOfCode, type ReasonName } from './reasons';
import { isLive } from './verdict';

export interface BGPDecision extends ShouldAnnounceResult {
  /** The routes the node sends, one per IP and matching advertisement; empty when it does not announce. */
  readonly announcements: readonly BGPAnnouncement[];
}

/** The BGP decision of one node for one unit. No ranking is involved, so nothing is hashed. */
function bgpDecisionOf(ctx: ElectionContext, unit: ElectionUnit, node: string, live: LiveMembers): BGPDecision {
  const id = ctx.nodeIds.get(node);
  const code =
    id === undefined
      ? isLive(live, node)
        ? ctx.unknownMemberCode(unit, node)
        : ReasonCode.unknownNode
      : ctx.nodeCode(unit, id, isLive(live, node));
  if (code !== ReasonCode.eligible || id === undefined) {
    const reason = reasonOfCode(code);
    return { announce: false, reason, metallbReason: metallbBGPReason(reason), announcements: [] };
  }
  const ads = ctx.nodeAds(unit, id);
  const announcements = unit.ips.flatMap((ip) => bgpAnnouncementsFor(ctx.nodes[id]!, ads, ip, ctx.peersOf(id)));
  return { announce: true, reason: Reason.announcing, metallbReason: '', announcements };
}

/** Should `node` advertise this service's IPs to its BGP peers? */
export function bgpShouldAnnounce(
  config: ElectionConfig | ElectionContext,
  input: ServiceElectionInput,
  node: string,
  live: LiveMembers,
): BGPDecision {
  const ctx = config instanceof ElectionContext ? config : new ElectionContext(config);
  const unit = ctx.unitsFor(input).find((u) => u.protocol === 'bgp');
  if (!unit) {
    const hasIP = (input.ips ?? input.service.ingressIPs).length > 0;
    // No BGPAdvertisement covers the pool: poolMatchesNodeBGP fails for every node.
    const reason: ReasonName = hasIP ? Reason.notOwner : Reason.noIPAllocated;
    return { announce: false, reason, metallbReason: reason, announcements: [] };
  }
  return bgpDecisionOf(ctx, unit, node, live);
}
