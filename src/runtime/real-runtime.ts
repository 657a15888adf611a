/** The runtime production uses: the epoch clock, Node's timers, crypto randomness and real sockets. */
import { randomInt } from 'node:crypto';
import { realNetwork } from './real-network';
import { realScheduler } from './real-scheduler';
import type { Clock, Runtime, Scheduler } from './runtime';

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

/**
 * The epoch clock with timers that never keep the process alive on their own (unref'd): for background loops
 * (health checks, the split-brain self-check) that must not hold the daemon up once everything else is closed.
 */
export const REAL_BACKGROUND_RUNTIME: Clock & Scheduler = { now: () => wallClock.now(), ...realScheduler(wallClock, { unref: true }) };
