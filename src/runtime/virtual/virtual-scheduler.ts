/**
 * Timers on virtual time for one host: `at`, `after` and `every` as the real scheduler offers them, each a task
 * of the shared VirtualClock owned by the host (so a crashed host's timers never fire and a starved host's fire
 * late). Never early: a deadline already past fires on the next task, never inside the call that armed it.
 */
import type { Scheduler, Timer } from '../runtime';
import type { TaskOwner, VirtualClock } from './virtual-clock';

/** Node's setInterval treats a period under 1 ms as 1 ms; so does `every`, so it cannot livelock the clock. */
const MIN_INTERVAL_MS = 1;

export function virtualScheduler(clock: VirtualClock, owner?: TaskOwner): Scheduler {
  const at = (deadline: number, fire: () => void): Timer => clock.schedule(deadline, fire, owner);
  return {
    at,
    after: (ms, fire) => at(clock.now() + Math.max(0, ms), fire),
    every(ms, fire) {
      const period = Math.max(MIN_INTERVAL_MS, ms);
      let timer: Timer;
      let cancelled = false;
      const tick = (): void => {
        // Re-armed before firing, from when it ran (as Node's setInterval), so a `fire` that throws stops nothing.
        timer = at(clock.now() + period, tick);
        fire();
      };
      timer = at(clock.now() + period, tick);
      return {
        cancel() {
          if (cancelled) return;
          cancelled = true;
          timer.cancel();
        },
      };
    },
  };
}
