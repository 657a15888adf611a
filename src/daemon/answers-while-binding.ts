/**
 * What the announcer answers ARP/NDP for while a change is still being bound to mlb0. A VIP is answered only once it
 * is bound (a client sent to it earlier would have its connections refused), but binding thousands of VIPs takes
 * seconds, and answering none of a change until the last one landed left every VIP of it dark meanwhile, those
 * already bound too. So the announcer is told again as batches land: every VIP of the change that is bound by now,
 * and whatever it answered before the change (a VIP being withdrawn stops only after the binding, as before).
 */
import type { DesiredAnnouncement } from '../announce/l2/l2-announcer-state';
import { ipKey } from '../announce/l2/l2-interface';

/**
 * The least time between two progress updates of the announcer during one binding. Each update compares the whole
 * owned set (a few milliseconds at 10,000 VIPs), and a batch of VIPs lands every few milliseconds: updating after
 * each would spend the binding's time on the updates. 100 ms keeps a freshly bound VIP unanswered for at most that
 * long, within an ARP client's first retry (1 s, arping(8) and the kernel's retrans_time).
 */
export const ANSWER_PROGRESS_MIN_MS = 100;

/**
 * The announcer's list mid-binding: `desired` restricted to the VIPs in `bound` (ipKey) or answered already, each
 * with its new interfaces, plus the entries of `before` (what it answered until this change) that the change drops.
 */
export function answerableWhileBinding(
  desired: readonly DesiredAnnouncement[],
  before: readonly DesiredAnnouncement[],
  bound: ReadonlySet<string>,
): DesiredAnnouncement[] {
  const wanted = new Set(desired.map((d) => ipKey(d.ip)));
  const answered = new Set(before.map((d) => ipKey(d.ip)));
  const now = desired.filter((d) => bound.has(ipKey(d.ip)) || answered.has(ipKey(d.ip)));
  for (const d of before) if (!wanted.has(ipKey(d.ip))) now.push(d);
  return now;
}
