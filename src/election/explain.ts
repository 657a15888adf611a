/**
 * `mlb explain --json`: one explanation per service IP and protocol. The shape of Explanation (service, ip,
 * protocol, winner, announcing, candidates[node, rank, eligible, reason]) is a contract scripts rely on: add
 * optional fields only, never change these.
 */
import type { ElectionContext, ElectionUnit } from './election-context';
import type { ElectionProtocol } from './election-input';
import { bgpAnnouncementsFor, type BGPAnnouncement } from './bgp-announcement';
import { hashOrderIndices } from './hash-order';
import { Reason, type ReasonName } from './reasons';
import { compareNames } from './verdict';
import type { NodeReason } from './reasons';

export interface CandidateExplanation {
  readonly node: string;
  /** 1-based position among the eligible nodes in hash order; null when not eligible. */
  readonly rank: number | null;
  readonly eligible: boolean;
  readonly reason: ReasonName;
  /**
   * 1-based position among every listed node in hash order, eligible or not (optional, beyond the contract):
   * what says that a rank-1 owner is second in hash order because the first is not eligible.
   */
  readonly hashPosition?: number;
  /** healthCheckFailing only, when the node's report says why (optional; the daemon adds it). */
  readonly healthCheck?: FailingCheckFacts;
  /** nodeWarmingUp only, for the explaining node itself: how long its warm-up still runs (optional). */
  readonly warmUpLeftMs?: number;
}

/** Why a node's health check fails, as that node reported it in gossip. */
export interface FailingCheckFacts {
  /** When the check turned failing (or monitoring began there), that node's clock, epoch ms. */
  readonly since: number;
  /** Its latest probe: "HTTP 503", "connect ECONNREFUSED 127.0.0.1:8080", "timed out after 1000 ms". */
  readonly result: string;
}

export interface Explanation {
  /** "namespace/name". */
  readonly service: string;
  /** Go's canonical text of the IP. */
  readonly ip: string;
  readonly protocol: ElectionProtocol;
  /** L2: the one announcing node; BGP: null (every eligible node announces). */
  readonly winner: string | null;
  /** L2: [winner] or []; BGP: the announcing nodes sorted by name. */
  readonly announcing: readonly string[];
  /** Every known node: eligible ones first in hash order, then the rest sorted by name. */
  readonly candidates: readonly CandidateExplanation[];
  /** BGP only: the routes each announcing node sends for this IP (optional, beyond the contract). */
  readonly announcements?: readonly BGPAnnouncement[];
  /** Why the explaining node elects this service at all when that is not plain (optional, beyond the contract). */
  readonly notes?: readonly string[];
  /** Whose view this is: the daemon that computed it (optional; absent offline, where the view is the file's). */
  readonly viewer?: string;
}

/** The decision of a unit without the per-node detail: what the daemon applies and the index diffs. */
export interface ElectionOutcome {
  readonly service: string;
  readonly protocol: ElectionProtocol;
  /** Canonical IP texts, the first being the one hashed. */
  readonly ips: readonly string[];
  readonly winner: string | null;
  readonly announcing: readonly string[];
}

/** The outcome of a unit from its eligible nodes in hash order. */
export function outcomeOf(unit: ElectionUnit, eligibleInHashOrder: readonly string[]): ElectionOutcome {
  if (unit.protocol === 'layer2') {
    const winner = eligibleInHashOrder[0] ?? null;
    return { service: unit.service, protocol: unit.protocol, ips: unit.ipTexts, winner, announcing: winner === null ? [] : [winner] };
  }
  return {
    service: unit.service,
    protocol: unit.protocol,
    ips: unit.ipTexts,
    winner: null,
    announcing: [...eligibleInHashOrder].sort(compareNames),
  };
}

/**
 * Explanations of a unit, one per IP (dual stack: the same winner and ranks for both, ranked by the first IP).
 * `ineligible` must already be sorted by name.
 */
export function explainUnit(
  ctx: ElectionContext,
  unit: ElectionUnit,
  eligibleInHashOrder: readonly string[],
  ineligible: readonly NodeReason[],
): Explanation[] {
  const outcome = outcomeOf(unit, eligibleInHashOrder);
  const eligibleReason = (i: number): ReasonName =>
    unit.protocol === 'bgp' ? Reason.announcing : i === 0 ? Reason.owner : Reason.notOwner;
  const position = hashPositions(eligibleInHashOrder, ineligible, unit.hashText);
  const candidates: CandidateExplanation[] = [
    ...eligibleInHashOrder.map((node, i) => ({
      node,
      rank: i + 1,
      eligible: true,
      reason: eligibleReason(i),
      hashPosition: position(i),
    })),
    ...ineligible.map(({ node, reason }, i) => ({
      node,
      rank: null,
      eligible: false,
      reason,
      hashPosition: position(eligibleInHashOrder.length + i),
    })),
  ];
  return unit.ips.map((ip, i) => {
    const explanation: Explanation = {
      service: unit.service,
      ip: unit.ipTexts[i] as string,
      protocol: unit.protocol,
      winner: outcome.winner,
      announcing: outcome.announcing,
      candidates,
    };
    if (unit.protocol !== 'bgp') return explanation;
    const announcements = outcome.announcing.flatMap((node) => {
      const id = ctx.nodeIds.get(node) as number;
      return bgpAnnouncementsFor(ctx.nodes[id]!, ctx.nodeAds(unit, id), ip, ctx.peersOf(id));
    });
    return { ...explanation, announcements };
  });
}

/**
 * Every listed node's place in hash order, 1-based, by its index in eligible-then-ineligible order: the eligible
 * ones' ranks alone hide who was skipped before them. With no ineligible node (offline, every node live and
 * serving: the common case) the eligible order is the hash order itself, and nothing is hashed again; else one
 * array of positions, not a map of node names (explain is called once per service IP: at 1,000 nodes, the garbage
 * of each call is what grows the process, election/explain-each.ts).
 */
function hashPositions(eligibleInHashOrder: readonly string[], ineligible: readonly NodeReason[], hashText: string): (i: number) => number {
  if (ineligible.length === 0) return (i) => i + 1;
  const order = hashOrderIndices([...eligibleInHashOrder, ...ineligible.map((n) => n.node)], hashText);
  const positions = new Uint32Array(order.length);
  for (let place = 0; place < order.length; place++) positions[order[place] as number] = place + 1;
  return (i) => positions[i] as number;
}
