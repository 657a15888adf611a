/**
 * Lifeguard's suspicion timer (memberlist suspicion.go) as a value. A suspicion starts at `max` (at `min` when
 * no confirmations are expected, k = 0) and each new independent confirmation c = 1..k moves the deadline to
 *   start + max(min, floor_ms(max - ln(c + 1) / ln(k + 1) x (max - min)))
 * so k confirmations bring it down to min. Confirmations from the same member, or beyond k, change nothing.
 */
export interface Suspicion {
  /** Confirmations expected before the timeout reaches min. */
  readonly k: number;
  readonly min: number;
  readonly max: number;
  readonly start: number;
  /** Members who reported the suspicion, the first one included (it is not a confirmation). */
  readonly confirmedBy: readonly string[];
  /** Confirmations counted so far (0..k). */
  readonly confirmations: number;
  /** When the k-th confirmation arrived (set by suspectNode; confirmed-suspects.ts); undefined before. */
  readonly confirmedAt?: number;
  /** When the node is declared dead unless it refutes first. */
  readonly deadline: number;
  /** The member's stateChange when the suspicion began: a timer firing for an older state is stale. */
  readonly stateChange: number;
}

/**
 * The timeout measured from the start of the suspicion after n confirmations (memberlist
 * remainingSuspicionTime without the elapsed part): floored to whole milliseconds, never below min.
 */
export function suspicionTimeoutAfter(n: number, k: number, min: number, max: number): number {
  if (k < 1) return min;
  const fraction = Math.log(n + 1) / Math.log(k + 1);
  const raw = max / 1000 - fraction * (max / 1000 - min / 1000);
  const timeout = Math.floor(1000 * raw);
  return timeout < min ? min : timeout;
}

export function startSuspicion(from: string, k: number, min: number, max: number, now: number): Suspicion {
  const timeout = k < 1 ? min : max;
  return { k, min, max, start: now, confirmedBy: [from], confirmations: 0, deadline: now + timeout, stateChange: now };
}

/**
 * Counts `from` as a confirmation. Returns the updated suspicion, or undefined when the report is not new
 * (already heard from that member, or k confirmations reached): the caller then does not re-gossip it.
 * A deadline that the new timeout puts in the past is due immediately (the caller's timer loop runs it).
 */
export function confirmSuspicion(s: Suspicion, from: string): Suspicion | undefined {
  if (s.confirmations >= s.k) return undefined;
  if (s.confirmedBy.includes(from)) return undefined;
  const confirmations = s.confirmations + 1;
  const deadline = s.start + suspicionTimeoutAfter(confirmations, s.k, s.min, s.max);
  return { ...s, confirmations, confirmedBy: [...s.confirmedBy, from], deadline };
}
