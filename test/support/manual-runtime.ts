/**
 * A runtime whose clock only moves when a test says so: `advanceTo(t)` runs every timer due by `t` in deadline
 * order (each at its own deadline, the clock set to it first), then leaves the clock at `t`. The network is the
 * real one (the shells under test bring their own sockets anyway); randomness is a fixed-seed generator, so a run
 * repeats. Small on purpose: enough to show a shell fires its reducer's deadlines exactly when they are due.
 */
import { REAL_RUNTIME } from '../../src/runtime/real-runtime';
import type { Runtime, Timer } from '../../src/runtime/runtime';

interface Pending {
  readonly at: number;
  readonly seq: number;
  readonly fire: () => void;
  cancelled: boolean;
}

/** Any fixed epoch: the shells must not care what the clock reads, only how it moves. */
export const MANUAL_EPOCH_MS = 1_700_000_000_000;

export class ManualRuntime implements Runtime {
  readonly net = REAL_RUNTIME.net;
  private clock: number;
  private seq = 0;
  private pending: Pending[] = [];
  private seed: number;

  constructor(start = MANUAL_EPOCH_MS, seed = 1) {
    this.clock = start;
    this.seed = seed;
  }

  now(): number {
    return this.clock;
  }

  at(at: number, fire: () => void): Timer {
    const entry: Pending = { at, seq: this.seq++, fire, cancelled: false };
    this.pending.push(entry);
    return { cancel: () => void (entry.cancelled = true) };
  }

  after(ms: number, fire: () => void): Timer {
    return this.at(this.clock + ms, fire);
  }

  every(ms: number, fire: () => void): Timer {
    let current: Timer | undefined;
    let cancelled = false;
    const arm = (): void => {
      current = this.after(ms, () => {
        if (cancelled) return;
        arm();
        fire();
      });
    };
    arm();
    return {
      cancel: () => {
        cancelled = true;
        current?.cancel();
      },
    };
  }

  /** The earliest deadline still armed, if any. */
  get nextDeadline(): number | undefined {
    return this.live()[0]?.at;
  }

  /** Runs every timer due by `t` (including ones they arm), each at its deadline; then the clock reads `t`. */
  advanceTo(t: number): void {
    if (t < this.clock) throw new Error(`the clock does not go back (${t} < ${this.clock})`);
    for (let next = this.live()[0]; next !== undefined && next.at <= t; next = this.live()[0]) {
      next.cancelled = true;
      this.clock = Math.max(this.clock, next.at);
      next.fire();
    }
    this.clock = t;
  }

  advanceBy(ms: number): void {
    this.advanceTo(this.clock + ms);
  }

  randomInt(maxExclusive: number): number {
    return Math.floor(this.random() * maxExclusive);
  }

  /** mulberry32: a tiny seeded generator, uniform in [0, 1). */
  random(): number {
    this.seed = (this.seed + 0x6d2b79f5) | 0;
    let x = this.seed;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  }

  private live(): Pending[] {
    this.pending = this.pending.filter((p) => !p.cancelled);
    return this.pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
  }
}
