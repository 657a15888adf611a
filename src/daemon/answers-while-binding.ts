/**
 * What the announcer answers ARP/NDP for while a change is still being bound to mlb0. A VIP is answered only once it
 * is bound (a client sent to it earlier would have its connections refused), but binding thousands of VIPs takes
 * seconds, and answering none of a change until the last one landed left every VIP of it dark meanwhile, those
 * already bound too. So the announcer is told again as batches land: every VIP of the change that is bound by now,
 * and whatever it answered before the change (a VIP being withdrawn stops only after the binding, as before).
 */
import type { DesiredAnnouncement } from '../announce/l2/l2-announcer-state';
import { ipKey } from '../announce/l2/l2-interface';
import type { IP } from '../ip';

/**
 * The least time between two progress updates of the announcer during one binding. A batch of VIPs lands every few
 * milliseconds, and each update hands the announcer the whole owned set: updating after each batch would spend
 * the binding's time on the updates. 100 ms keeps a freshly bound VIP unanswered for at most that long, within an
 * ARP client's first retry (1 s, arping(8) and the kernel's retrans_time).
 */
export const ANSWER_PROGRESS_MIN_MS = 100;

/**
 * After an update that took t ms, the next waits at least this many times t: updates cost at most a tenth of the
 * binding's time however large the owned set (at 10,000 VIPs on a loaded host an update takes tens of ms).
 */
export const ANSWER_PROGRESS_COST_FACTOR = 9;

/** When the next progress update may run, after one that started at `startedAt` and ended at `endedAt`. */
export function nextProgressAt(startedAt: number, endedAt: number): number {
  return endedAt + Math.max(ANSWER_PROGRESS_MIN_MS, ANSWER_PROGRESS_COST_FACTOR * (endedAt - startedAt));
}

/**
 * The announcer's list mid-binding, for one change: given the set of VIPs bound so far (ipKey), `desired` restricted
 * to those bound or answered already, each with its new interfaces, plus the entries of `before` (what it answered
 * until this change) that the change drops. The keys are computed once per change, not once per update.
 */
export function answersWhileBinding(
  desired: readonly DesiredAnnouncement[],
  before: readonly DesiredAnnouncement[],
): (bound: ReadonlySet<string>) => DesiredAnnouncement[] {
  const keys = desired.map((d) => ipKey(d.ip));
  const wanted = new Set(keys);
  const answered = new Set(before.map((d) => ipKey(d.ip)));
  const dropped = before.filter((d) => !wanted.has(ipKey(d.ip)));
  return (bound) => {
    const now: DesiredAnnouncement[] = [];
    for (let i = 0; i < desired.length; i++) {
      const key = keys[i]!;
      if (bound.has(key) || answered.has(key)) now.push(desired[i]!);
    }
    return now.concat(dropped);
  };
}

/**
 * The entries of `desired` for a batch of VIPs that just landed, to be answered at once (L2Announcer.answerAhead)
 * rather than at the next progress update: O(batch) per batch, the index built once per change.
 */
export function answerAheadOf(desired: readonly DesiredAnnouncement[]): (landed: readonly IP[]) => DesiredAnnouncement[] {
  const byKey = new Map(desired.map((d) => [ipKey(d.ip), d]));
  return (landed) => {
    const out: DesiredAnnouncement[] = [];
    for (const ip of landed) {
      const d = byKey.get(ipKey(ip));
      if (d) out.push(d);
    }
    return out;
  };
}
