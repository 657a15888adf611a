/**
 * Timers on the wall clock. Node's timers run on a monotonic clock that may lag the epoch clock reducers are
 * stepped with, so a timer that fires before its deadline is re-armed for the rest; a due timer then waits one
 * turn of the event loop (setImmediate runs after the I/O poll), because after a blocked loop (a starved CPU, a
 * GC pause) Node runs due timers before it reads the sockets, and an ack already in the buffer would otherwise
 * lose to the deadline it answers.
 */
import type { Clock, Scheduler, Timer } from './runtime';

export interface RealSchedulerOptions {
  /**
   * Timers that never keep the process alive by themselves (Node's unref): for background loops such as health
   * checks, which must not hold a daemon up once its sockets are closed.
   */
  readonly unref?: boolean;
}

export function realScheduler(clock: Clock, options: RealSchedulerOptions = {}): Scheduler {
  const background = <T extends { unref(): unknown }>(handle: T): T => {
    if (options.unref) handle.unref();
    return handle;
  };
  const at = (deadline: number, fire: () => void): Timer => {
    let cancelled = false;
    let timeout: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    const check = (): void => {
      timeout = undefined;
      if (cancelled) return;
      const early = deadline - clock.now();
      if (early > 0) {
        timeout = background(setTimeout(check, Math.ceil(early)));
        return;
      }
      // Never unref'd: it lasts one turn, and an unref'd immediate does not stop the loop from blocking in its
      // I/O poll, so it would run only when some socket next wakes the loop, seconds late.
      immediate = setImmediate(() => {
        immediate = undefined;
        if (!cancelled) fire();
      });
    };
    timeout = background(setTimeout(check, Math.max(0, Math.ceil(deadline - clock.now()))));
    return {
      cancel() {
        cancelled = true;
        if (timeout) clearTimeout(timeout);
        if (immediate) clearImmediate(immediate);
      },
    };
  };
  return {
    at,
    after: (ms, fire) => at(clock.now() + ms, fire),
    every(ms, fire) {
      const interval = background(setInterval(fire, ms));
      return { cancel: () => clearInterval(interval) };
    },
  };
}
