/**
 * What the running daemon knows beyond the election and adds to its explanations: whose view they are, why each
 * failing health check fails (as its node reported it in gossip) and how long this node's own warm-up still
 * runs. Pure; the sentences that read these facts are in election/candidate-text.ts.
 */
import type { CandidateExplanation, Explanation } from '../election';
import type { HealthDetails } from './health/health-details';

export interface LiveFacts {
  /** The explaining node (--node-name). */
  readonly viewer: string;
  /** Per node, its failing checks' details (health/health-details-sharing.ts). */
  readonly healthDetails: ReadonlyMap<string, HealthDetails>;
  /** This node's warm-up left, ms; undefined when not warming up. */
  readonly warmUpLeftMs: number | undefined;
}

export function withLiveFacts(explanations: readonly Explanation[], facts: LiveFacts): Explanation[] {
  return explanations.map((e) => ({ ...e, viewer: facts.viewer, candidates: e.candidates.map((c) => candidateFacts(e, c, facts)) }));
}

function candidateFacts(e: Explanation, c: CandidateExplanation, facts: LiveFacts): CandidateExplanation {
  if (c.reason === 'healthCheckFailing') {
    // Object.hasOwn: a service key is data from the file and gossip, never a prototype property.
    const failing = facts.healthDetails.get(c.node)?.failing;
    const check = failing && Object.hasOwn(failing, e.service) ? failing[e.service] : undefined;
    return check ? { ...c, healthCheck: { since: check.since, result: check.detail } } : c;
  }
  if (c.reason === 'nodeWarmingUp' && c.node === facts.viewer && facts.warmUpLeftMs !== undefined) {
    return { ...c, warmUpLeftMs: facts.warmUpLeftMs };
  }
  return c;
}
