/**
 * MetalLB's L2 ShouldAnnounce (speaker/layer2_controller.go), as a pure function of one node's point of view:
 *  1. no serving endpoint anywhere -> notOwner (mlb: noEndpoints)
 *  2. no L2Advertisement matching the service (pool, serviceSelectors) selects the node -> noMatchingAdvertisement
 *  3. candidates: live members, minus NetworkUnavailable=True, minus the exclusion label (unless
 *     ignoreExcludeLB), minus nodes no matching advertisement selects
 *  4. externalTrafficPolicy Local: only candidates with a local serving endpoint
 *  5. sort by sha256(node + "#" + first IP) bytewise ascending; the first announces, the others are notOwner.
 * Every speaker computes the same list from the same inputs, so exactly one node wins without asking anyone.
 */
import { ElectionContext, type ElectionUnit } from './election-context';
import type { ElectionConfig, LiveMembers, ServiceElectionInput } from './election-input';
import { outcomeOf } from './explain';
import { Reason, metallbL2Reason, type MetalLBReason, type ReasonName } from './reasons';
import { judgeUnit, type UnitVerdict } from './verdict';

export interface ShouldAnnounceResult {
  readonly announce: boolean;
  /** mlb's precise reason (owner / announcing when it announces). */
  readonly reason: ReasonName;
  /** What MetalLB's speaker would return: "" to announce, otherwise its withdraw reason. */
  readonly metallbReason: MetalLBReason;
}

interface L2Election {
  readonly winner: string | null;
  readonly verdict: UnitVerdict;
}

function electL2(ctx: ElectionContext, unit: ElectionUnit, live: LiveMembers): L2Election {
  const verdict = judgeUnit(ctx, unit, live);
  return { winner: outcomeOf(unit, verdict.eligible).winner, verdict };
}

/** The L2 decision of `node` from an election's verdict. */
function l2DecisionOf(election: L2Election, node: string): ShouldAnnounceResult {
  let reason: ReasonName;
  if (election.winner === node) reason = Reason.owner;
  else if (election.verdict.eligible.includes(node)) reason = Reason.notOwner;
  else reason = election.verdict.ineligible.find((c) => c.node === node)?.reason ?? Reason.unknownNode;
  return { announce: reason === Reason.owner, reason, metallbReason: metallbL2Reason(reason) };
}

/**
 * Should `node` answer ARP/NDP for this service's IPs? Builds its own context: for many services use an
 * ElectionContext (or the ElectionIndex) instead.
 */
export function l2ShouldAnnounce(
  config: ElectionConfig | ElectionContext,
  input: ServiceElectionInput,
  node: string,
  live: LiveMembers,
): ShouldAnnounceResult {
  const ctx = config instanceof ElectionContext ? config : new ElectionContext(config);
  const unit = ctx.unitsFor(input).find((u) => u.protocol === 'layer2');
  if (!unit) return noUnitResult(input);
  return l2DecisionOf(electL2(ctx, unit, live), node);
}

/** No layer2 unit: the service has no IP, or its pool is advertised by BGP only. */
function noUnitResult(input: ServiceElectionInput): ShouldAnnounceResult {
  const hasIP = (input.ips ?? input.service.ingressIPs).length > 0;
  const reason = hasIP ? Reason.noMatchingAdvertisement : Reason.noIPAllocated;
  return { announce: false, reason, metallbReason: hasIP ? Reason.noMatchingAdvertisement : Reason.noIPAllocated };
}
