/**
 * A decision's explanations by (service, protocol, IP), made once per decision and kept while the decision is
 * (the speaker holds its last one). The status pages, the TUI's reads and every IP a stop or a handover
 * withdraws look one up: a search of the 10,000 explanations for each was 10,000 x 10,000 comparisons. A decision
 * never changes once made, so its index stays right; the map holds nothing the decision does not.
 */
import type { Explanation } from '../election';
import type { ClusterDecision } from './cluster-decision';

const indexes = new WeakMap<ClusterDecision, Map<string, Explanation>>();

const keyOf = (service: string, protocol: string, ip: string | undefined) => `${service}\u0000${protocol}\u0000${ip ?? ''}`;

/** The first explanation of (service, protocol, ip), as a search in the decision's order would find it. */
export function explanationOf(
  decision: ClusterDecision,
  service: string,
  protocol: string,
  ip: string | undefined,
): Explanation | undefined {
  let index = indexes.get(decision);
  if (!index) {
    index = new Map();
    for (const e of decision.explain()) {
      const key = keyOf(e.service, e.protocol, e.ip);
      if (!index.has(key)) index.set(key, e);
    }
    indexes.set(decision, index);
  }
  return index.get(keyOf(service, protocol, ip));
}
