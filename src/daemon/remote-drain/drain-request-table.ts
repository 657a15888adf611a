/**
 * Which drain request counts (pure). Every node keeps the newest request per target node; the target applies the
 * newest one for itself once, and a request older than what it applied (a replay from a node that was away, a
 * relay arriving late) changes nothing. "Newer" is by seq, a hybrid logical clock (Kulkarni et al., "Logical
 * Physical Clocks", 2014): a requester stamps max(its wall clock in ms, one more than any seq it has seen), so a
 * request made after another one was heard always outranks it, and between requests that never heard of each
 * other the later one by the clocks wins. Ties (two nodes asking in the same millisecond) go to the requester
 * whose name sorts last, so every node picks the same one.
 */
import type { DrainRequest } from './drain-request-codec';

/**
 * Targets a node keeps requests for. One entry per node of the cluster; this keeps a peer that invents node
 * names from growing every node's memory and push/pull state without bound (a full table evicts its oldest).
 */
export const MAX_DRAIN_REQUEST_TARGETS = 256;

/**
 * A request stamped further ahead of this node's clock than this is dropped. Every new stamp follows the highest
 * seq heard, so one absurd stamp (a node whose clock is days off) would otherwise drag every later request with it
 * and, near 2^53, leave no stamp to give. A day leaves room for any clock NTP keeps; the HLC paper bounds the
 * drift it accepts the same way.
 */
const MAX_SEQ_AHEAD_MS = 24 * 60 * 60 * 1000;

export type DrainRequestTable = ReadonlyMap<string, DrainRequest>;

/** The identity that orders requests for one target. */
export interface RequestStamp {
  readonly seq: number;
  readonly requestedBy: string;
}

/** <0: a is older than b, 0: the same request, >0: a is newer. */
export function compareStamps(a: RequestStamp, b: RequestStamp): number {
  if (a.seq !== b.seq) return a.seq - b.seq;
  return a.requestedBy < b.requestedBy ? -1 : a.requestedBy > b.requestedBy ? 1 : 0;
}

/** Whether a heard request's stamp is too far ahead of this node's clock to be taken (MAX_SEQ_AHEAD_MS). */
export function stampTooFarAhead(seq: number, now: number): boolean {
  return seq > now + MAX_SEQ_AHEAD_MS;
}

/** The next stamp's seq for a requester whose clock (highest seq seen) is `clock`, at wall time `now`. */
export function nextSeq(clock: number, now: number): number {
  return Math.max(clock + 1, Math.floor(now));
}

const OUTCOME_RANK = { pending: 0, applied: 1, failed: 1 } as const;

export type DrainMergeReason = 'firstRequest' | 'newer' | 'acknowledged' | 'same' | 'stale' | 'tableFull';

/**
 * Keeps the newest request per target. The same request heard with its outcome (the target's answer) replaces the
 * pending one; an answer is never undone by a late pending copy. When the table is full, a new target evicts the
 * target whose request is oldest, unless the incoming one is older still (then it is dropped: tableFull).
 */
export function mergeDrainRequest(
  table: DrainRequestTable,
  incoming: DrainRequest,
  maxTargets = MAX_DRAIN_REQUEST_TARGETS,
): { table: DrainRequestTable; changed: boolean; reason: DrainMergeReason } {
  const current = table.get(incoming.target);
  if (current) {
    const order = compareStamps(incoming, current);
    if (order < 0) return { table, changed: false, reason: 'stale' };
    if (order === 0) {
      if (OUTCOME_RANK[incoming.outcome] <= OUTCOME_RANK[current.outcome]) return { table, changed: false, reason: 'same' };
      return { table: new Map(table).set(incoming.target, incoming), changed: true, reason: 'acknowledged' };
    }
    return { table: new Map(table).set(incoming.target, incoming), changed: true, reason: 'newer' };
  }
  const next = new Map(table);
  if (next.size >= maxTargets) {
    const oldest = [...next.values()].reduce((a, b) => (compareStamps(a, b) <= 0 ? a : b));
    if (compareStamps(incoming, oldest) <= 0) return { table, changed: false, reason: 'tableFull' };
    next.delete(oldest.target);
  }
  return { table: next.set(incoming.target, incoming), changed: true, reason: 'firstRequest' };
}

/** What the target does with the newest request for itself (decideApply's answer). */
export type ApplyDecision =
  | { readonly apply: true }
  | { readonly apply: false; readonly reason: 'notForThisNode' | 'alreadyApplied' | 'answered' | 'unauthenticated' };

/**
 * Whether `self` applies `request`, having last applied `applied` (from drain.json; undefined: never through a
 * request). Only a pending request newer than the applied one counts, so a replay changes nothing. An answered one
 * (applied or failed) is news about the past, not a request: a failure is not retried by itself (it would fail in
 * a loop; the operator asks again), and a node whose drain.json was removed to clear it is not drained again by
 * the cluster's memory of an old answer. Without a gossip key nothing heard in gossip may change this node: anyone
 * who can reach its gossip port could forge the request.
 */
export function decideApply(self: string, request: DrainRequest, applied: RequestStamp | undefined, authenticated: boolean): ApplyDecision {
  if (request.target !== self) return { apply: false, reason: 'notForThisNode' };
  if (applied !== undefined && compareStamps(request, applied) <= 0) return { apply: false, reason: 'alreadyApplied' };
  if (request.outcome !== 'pending') return { apply: false, reason: 'answered' };
  if (!authenticated) return { apply: false, reason: 'unauthenticated' };
  return { apply: true };
}

/** The highest seq in the table: a new request must outrank every one this node has heard. */
export function highestSeq(table: DrainRequestTable): number {
  let high = 0;
  for (const r of table.values()) high = Math.max(high, r.seq);
  return high;
}
