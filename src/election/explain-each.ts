/**
 * The full election's explanations one unit at a time: each service IP is judged and explained only when the
 * consumer asks for it, and nothing is kept afterwards. 10,000 services over 1,000 nodes are ten million
 * candidate lines; built at once (elect.ts's explain()) they outgrow a process, streamed they need one unit's.
 */
import { ElectionContext } from './election-context';
import type { ElectionConfig, LiveMembers, ServiceElectionInput } from './election-input';
import { explainUnit, type Explanation } from './explain';
import { judgeUnit } from './verdict';

/** The explanations electAll(...).explain() returns, in the same order, as a lazy sequence. */
export function* explainEach(
  config: ElectionConfig | ElectionContext,
  services: readonly ServiceElectionInput[],
  live: LiveMembers,
): Generator<Explanation> {
  const ctx = config instanceof ElectionContext ? config : new ElectionContext(config);
  for (const service of services) {
    for (const unit of ctx.unitsFor(service)) {
      const verdict = judgeUnit(ctx, unit, live);
      yield* explainUnit(ctx, verdict.unit, verdict.eligible, verdict.ineligible);
    }
  }
}
