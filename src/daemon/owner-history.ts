/**
 * Since when each service IP has had its current holder(s): the "since" column of `mlb status`, and the owner
 * changes (with how long the IP went unanswered) that logs and, later, the event stream report. Pure: fed every
 * election outcome with the time it was made.
 */
import type { ElectionOutcome } from '../election';

export interface Holding {
  /** layer2: [owner] or []; bgp: the announcing nodes, sorted. */
  readonly holders: readonly string[];
  /** When these holders took over (epoch ms). */
  readonly since: number;
}

export interface OwnerChange {
  readonly service: string;
  readonly protocol: ElectionOutcome['protocol'];
  readonly ips: readonly string[];
  readonly from: readonly string[];
  readonly to: readonly string[];
  /** How long nobody held the IP before `to` took it (0 for a direct move), null when `to` is empty. */
  readonly unheldMs: number | null;
}

export type OwnerHistory = ReadonlyMap<string, Holding>;

export function holdingKey(o: Pick<ElectionOutcome, 'service' | 'protocol' | 'ips'>): string {
  return `${o.service}|${o.protocol}|${o.ips.join(',')}`;
}

/** The next history and the changes it records. Outcomes that disappear (service deleted) are forgotten. */
export function trackOwners(
  history: OwnerHistory, outcomes: readonly ElectionOutcome[], now: number,
): { history: Map<string, Holding>; changes: OwnerChange[] } {
  const next = new Map<string, Holding>();
  const changes: OwnerChange[] = [];
  for (const outcome of outcomes) {
    const key = holdingKey(outcome);
    const holders = outcome.announcing;
    const previous = history.get(key);
    if (previous && sameList(previous.holders, holders)) {
      next.set(key, previous);
      continue;
    }
    next.set(key, { holders, since: now });
    if (!previous && holders.length === 0) continue;
    const from = previous?.holders ?? [];
    const unheldMs = holders.length === 0 ? null : from.length === 0 && previous ? now - previous.since : 0;
    changes.push({ service: outcome.service, protocol: outcome.protocol, ips: outcome.ips, from, to: holders, unheldMs });
  }
  return { history: next, changes };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
