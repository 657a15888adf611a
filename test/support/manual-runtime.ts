/**
 * A whole Runtime whose clock only moves when a test says so: ManualScheduler's clock and timers (each callback at
 * its own deadline, promises settled between them), the real network (the shells under test bring their own
 * sockets anyway) and a fixed-seed generator, so a run repeats. Enough to show a shell fires its reducer's deadlines
 * exactly when they are due.
 */
import { REAL_RUNTIME } from '../../src/runtime/real-runtime';
import type { Runtime } from '../../src/runtime/runtime';
import { ManualScheduler } from './manual-scheduler';

/** Any fixed epoch: the shells must not care what the clock reads, only how it moves. */
export const MANUAL_EPOCH_MS = 1_700_000_000_000;

export class ManualRuntime extends ManualScheduler implements Runtime {
  readonly net = REAL_RUNTIME.net;
  private seed: number;

  constructor(start = MANUAL_EPOCH_MS, seed = 1) {
    super(start);
    this.seed = seed;
  }

  /** Runs every timer due by `t` (including ones they arm), each at its deadline; then the clock reads `t`. */
  advanceTo(t: number): Promise<void> {
    if (t < this.now()) throw new Error(`the clock does not go back (${t} < ${this.now()})`);
    return this.advance(t - this.now());
  }

  advanceBy(ms: number): Promise<void> {
    return this.advance(ms);
  }

  randomInt = (maxExclusive: number): number => Math.floor(this.random() * maxExclusive);

  /** mulberry32: a tiny seeded generator, uniform in [0, 1). */
  random = (): number => {
    this.seed = (this.seed + 0x6d2b79f5) | 0;
    let x = this.seed;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}
