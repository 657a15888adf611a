/**
 * A clock and scheduler the test moves by hand (src/runtime/runtime.ts Clock & Scheduler): nothing fires until
 * advance() says time has passed, so a test of "probes every 100 ms" runs in microseconds and never depends on
 * how busy the machine is. Callbacks run in deadline order (ties in the order they were scheduled); between two
 * of them, the promises the previous one started are given their turns, so an async probe that resolves at once
 * has recorded its result before the next timer fires, as it would on a real event loop.
 *
 * A small test helper for one shell at a time; whole clusters run on the virtual runtime (src/runtime/virtual/).
 * ManualRuntime (manual-runtime.ts) is this clock with a network and seeded randomness.
 */
import type { Clock, Scheduler, Timer } from '../../src/runtime/runtime';

interface Pending {
  at: number;
  readonly seq: number;
  readonly fire: () => void;
  /** For every(): re-armed this many ms after each run. */
  readonly repeatMs: number | undefined;
  cancelled: boolean;
}

/**
 * Callbacks run at one instant before advance() gives up: code that keeps re-arming a timer for a time already
 * past would spin forever here (and burn a CPU core on real timers); failing names the instant instead of hanging.
 */
const MAX_CALLBACKS_PER_INSTANT = 10_000;

/** Turns of the event loop given to promise chains after each callback; an immediate per turn lets I/O-free chains of any length settle. */
const SETTLE_TURNS = 3;

export class ManualScheduler implements Clock, Scheduler {
  private time: number;
  private seq = 0;
  private readonly queue: Pending[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  now = (): number => this.time;

  at = (at: number, fire: () => void): Timer => this.add(at, fire, undefined);

  after = (ms: number, fire: () => void): Timer => this.add(this.time + ms, fire, undefined);

  every = (ms: number, fire: () => void): Timer => this.add(this.time + ms, fire, ms);

  /** The earliest deadline still armed, if any. */
  get nextDeadline(): number | undefined {
    let best: number | undefined;
    for (const p of this.queue) if (!p.cancelled && (best === undefined || p.at < best)) best = p.at;
    return best;
  }

  /** Callbacks waiting to fire (cancelled ones excluded). */
  get pending(): number {
    return this.queue.filter((p) => !p.cancelled).length;
  }

  /** Moves time forward by `ms`, running every callback that falls due on the way, each at its own deadline. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    let sameInstant = 0;
    for (;;) {
      const next = this.nextDue(end);
      if (!next) break;
      sameInstant = next.at <= this.time ? sameInstant + 1 : 0;
      if (sameInstant > MAX_CALLBACKS_PER_INSTANT) {
        throw new Error(`timers keep firing at ${this.time} without time passing: a timer re-armed for a time already past?`);
      }
      this.time = Math.max(this.time, next.at);
      if (next.repeatMs === undefined) this.remove(next);
      else next.at += Math.max(1, next.repeatMs);
      next.fire();
      await settle();
    }
    this.time = end;
  }

  private add(at: number, fire: () => void, repeatMs: number | undefined): Timer {
    const entry: Pending = { at, seq: this.seq++, fire, repeatMs, cancelled: false };
    this.queue.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
        this.remove(entry);
      },
    };
  }

  private nextDue(end: number): Pending | undefined {
    let best: Pending | undefined;
    for (const p of this.queue) {
      if (p.cancelled || p.at > end) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    }
    return best;
  }

  private remove(entry: Pending): void {
    const i = this.queue.indexOf(entry);
    if (i >= 0) this.queue.splice(i, 1);
  }
}

/** Lets promise chains started by a callback run to completion (those that wait on no I/O or real timer). */
export async function settle(): Promise<void> {
  for (let i = 0; i < SETTLE_TURNS; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
