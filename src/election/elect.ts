/**
 * The full election of every service, recomputed from scratch: the reference the ElectionIndex must always
 * equal, and the simplest entry point for one-shot callers (`mlb explain --config`).
 */
import { ElectionContext, type ElectionUnit } from './election-context';
import type { ElectionConfig, LiveMembers, ServiceElectionInput } from './election-input';
import { explainUnit, outcomeOf, type ElectionOutcome, type Explanation } from './explain';
import { judgeUnit } from './verdict';

export interface FullElection {
  readonly outcomes: readonly ElectionOutcome[];
  /** Per unit, computed on demand (a large cluster has services x nodes candidates). */
  explain(): Explanation[];
}

/** Units of every service, in input order (layer2 before bgp within a service). */
export function unitsOf(ctx: ElectionContext, services: readonly ServiceElectionInput[]): ElectionUnit[] {
  return services.flatMap((s) => ctx.unitsFor(s));
}

export function electAll(
  config: ElectionConfig | ElectionContext,
  services: readonly ServiceElectionInput[],
  live: LiveMembers,
): FullElection {
  const ctx = config instanceof ElectionContext ? config : new ElectionContext(config);
  const verdicts = unitsOf(ctx, services).map((unit) => judgeUnit(ctx, unit, live));
  return {
    outcomes: verdicts.map((v) => outcomeOf(v.unit, v.eligible)),
    explain: () => verdicts.flatMap((v) => explainUnit(ctx, v.unit, v.eligible, v.ineligible)),
  };
}
