/**
 * The reconnect backoff of MetalLB's native speaker: after a failed dial or a lost session wait 1 s, then 2, 4 ...
 * up to 2 minutes; an Established session resets it. Pure.
 */
import { CONNECT_RETRY_INITIAL_MS, CONNECT_RETRY_MAX_MS } from './session-config';

export interface BackoffBounds {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const METALLB_BACKOFF: BackoffBounds = { initialMs: CONNECT_RETRY_INITIAL_MS, maxMs: CONNECT_RETRY_MAX_MS };

/** The wait after the one that was just used. */
export function nextBackoff(currentMs: number, bounds: BackoffBounds): number {
  return Math.min(currentMs * 2, bounds.maxMs);
}

/** The first `count` waits of a session that never comes up (1000, 2000, 4000 ... 120000, 120000 ...). */
export function backoffSequence(count: number, bounds: BackoffBounds = METALLB_BACKOFF): number[] {
  const waits: number[] = [];
  let wait = bounds.initialMs;
  for (let i = 0; i < count; i++) {
    waits.push(wait);
    wait = nextBackoff(wait, bounds);
  }
  return waits;
}
