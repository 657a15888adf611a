/**
 * mlb's preference tiers (beyond MetalLB): among the eligible nodes, steady ones come first, then nodes warming
 * up after recent restarts (flap damping), then draining ones (`mlb drain`, or a node stopping gracefully).
 * Only the best tier present is elected; the nodes of worse tiers are out with their tier's reason. Deferring
 * rather than excluding keeps an IP answered when the only candidates left are warming up or draining: a whole
 * cluster restarting at once still comes up, and draining the last node does not take the IP down.
 *
 * Used only while every live member is mlb (the daemon passes ElectionConfig.mlb only then), so a mixed
 * cluster computes exactly MetalLB's election.
 */
import type { MlbNodeStates } from './election-input';
import { type NodeReason, Reason, type ReasonName } from './reasons';

/** Tier 0 is steady; higher tiers defer to lower ones. */
function preferenceTier(states: MlbNodeStates, node: string): { tier: number; reason: ReasonName | undefined } {
  if (states.draining.has(node)) return { tier: 2, reason: Reason.nodeDraining };
  if (states.warmingUp.has(node)) return { tier: 1, reason: Reason.nodeWarmingUp };
  return { tier: 0, reason: undefined };
}

/**
 * Splits eligible nodes (order kept) into those that stay eligible, the best tier present, and the deferred
 * ones with their reasons.
 */
export function deferByPreference(
  eligible: readonly string[],
  states: MlbNodeStates | undefined,
): { eligible: string[]; deferred: NodeReason[] } {
  if (!states || (states.draining.size === 0 && states.warmingUp.size === 0)) return { eligible: [...eligible], deferred: [] };
  const tiers = eligible.map((node) => ({ node, ...preferenceTier(states, node) }));
  const best = Math.min(...tiers.map((t) => t.tier));
  return {
    eligible: tiers.filter((t) => t.tier === best).map((t) => t.node),
    deferred: tiers.filter((t) => t.tier !== best).map((t) => ({ node: t.node, reason: t.reason as ReasonName })),
  };
}
