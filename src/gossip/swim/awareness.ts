/**
 * Lifeguard local health (memberlist awareness.go): a score in 0..AwarenessMaxMultiplier-1 that rises when this
 * node shows signs of being the problem (failed probes without the expected nacks, having to refute) and falls
 * with each successful probe. It stretches the probe deadline: a node that is itself slow waits longer before
 * accusing others.
 */

/** What moves the score, and by how much (memberlist state.go probeNode and refute). */
export const HealthDelta = {
  /** A probe answered (directly, indirectly, or only over TCP). */
  probeSucceeded: -1,
  /** We had to refute a suspicion or death of ourselves: we may be the slow one. */
  refuted: 1,
  /** A failed probe when no relay could send nacks: plain penalty. */
  probeFailedWithoutNackers: 1,
} as const;

export function applyHealthDelta(score: number, delta: number, maxMultiplier: number): number {
  return Math.min(Math.max(score + delta, 0), Math.max(0, maxMultiplier - 1));
}

/** A failed probe costs one point per expected nack that did not come (relays that stayed silent too). */
export function failedProbeDelta(expectedNacks: number, nacksReceived: number): number {
  if (expectedNacks === 0) return HealthDelta.probeFailedWithoutNackers;
  return Math.max(0, expectedNacks - nacksReceived);
}

/** ScaleTimeout: timeout x (score + 1). */
export function scaleByHealth(timeout: number, score: number): number {
  return timeout * (score + 1);
}
