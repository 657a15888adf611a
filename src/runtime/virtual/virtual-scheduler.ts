/**
 * Timers on virtual time for one host: `at`, `after` and `every` as the real scheduler offers them, each a task
 * of the shared VirtualClock owned by the host (so a crashed host's timers never fire and a starved host's fire
 * late). Never early, by now() either: a fractional deadline fires at its next whole millisecond. A deadline
 * already past fires on the next task, never inside the call that armed it.
 */
import type { Scheduler, Timer } from '../runtime';
import type { TaskOwner, VirtualClock } from './virtual-clock';

/** Node's setInterval treats a period under 1 ms as 1 ms; so does `every`, so it cannot livelock the clock. */
const MIN_INTERVAL_MS = 1;

export function virtualScheduler(clock: VirtualClock, owner?: TaskOwner): Scheduler {
  // now() is whole milliseconds (the floor of the clock), so `fire` may run only once the clock has reached the
  // deadline's next whole millisecond: a fractional deadline (memberlist's suspicion timeout is log10(n) x an
  // interval, 1018.8 ms at n = 50 in the fast profile) run at the fractional instant itself would see a now()
  // before it; a driver re-arming "not due yet" at that same instant would spin forever without time moving.
  const at = (deadline: number, fire: () => void): Timer => clock.schedule(Math.ceil(deadline), fire, owner);
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
