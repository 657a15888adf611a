/** The runtime production uses: the epoch clock, Node's timers, crypto randomness and real sockets. */
import { randomInt } from 'node:crypto';
import { realNetwork } from './real-network';
import { realScheduler } from './real-scheduler';
import type { Clock, Runtime } from './runtime';

const wallClock: Clock = { now: () => Date.now() };

/** The real runtime; `clock` replaces the epoch clock (tests that skew time). */
export function realRuntime(clock: Clock = wallClock): Runtime {
  return {
    now: () => clock.now(),
    ...realScheduler(clock),
    randomInt: (maxExclusive) => randomInt(maxExclusive),
    random: () => Math.random(),
    net: realNetwork,
  };
}

/** One shared instance for callers that take the defaults. */
export const REAL_RUNTIME: Runtime = realRuntime();
