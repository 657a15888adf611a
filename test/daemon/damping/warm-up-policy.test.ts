/**
 * Flap damping's policy (src/daemon/damping/warm-up-policy.ts), pure, with an injected clock: the rule case by
 * case with its sentences, and simulations of the restart patterns it exists for. The simulations model one IP
 * that the flapping node wins whenever it is eligible and a steady node that holds it otherwise (the election
 * elects a warming node only when no steady one is eligible), and count how often the IP changes owner.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_RESTART_HISTORY, withCleanStop, withStart, type RestartHistory } from '../../../src/daemon/damping/restart-history';
import {
  durationText,
  WARM_UP_BASE_MS,
  WARM_UP_MAX_MS,
  WARM_UP_WINDOW_MS,
  warmUpFor,
  type WarmUpDecision,
} from '../../../src/daemon/damping/warm-up-policy';

const S = 1000;
const MIN = 60 * S;
const DAY = 24 * 60 * MIN;

/** Starts at each time; `clean` says whether the run before each start stopped gracefully. */
function historyOf(starts: number[], clean = false): RestartHistory {
  let h = EMPTY_RESTART_HISTORY;
  for (const t of starts) {
    if (clean && h.runs.length > 0) h = withCleanStop(h, t - 100);
    h = withStart(h, t);
  }
  return h;
}

describe('warmUpFor', () => {
  it('the first start on record has no warm-up', () => {
    expect(warmUpFor(historyOf([0]), 0)).toEqual({
      durationMs: 0, code: 'firstStart', recentStarts: 1, lastStop: 'none', reason: 'first start on record under --state-dir: no warm-up',
    });
  });

  it('a first restart after a long run warms up for BASE, crash or clean stop', () => {
    const crash = warmUpFor(historyOf([-5 * DAY, 0]), 0);
    expect(crash).toMatchObject({ durationMs: WARM_UP_BASE_MS, code: 'restarted', recentStarts: 1, lastStop: 'crash' });
    expect(crash.reason).toBe('first start in 1 h (last stop was a crash): warming up for 30 s');
    const upgrade = warmUpFor(historyOf([-5 * DAY, 0], true), 0);
    expect(upgrade).toMatchObject({ durationMs: WARM_UP_BASE_MS, lastStop: 'clean' });
    expect(upgrade.reason).toBe('first start in 1 h (last stop was clean): warming up for 30 s');
  });

  it('doubles with each start in the window, up to MAX, and says so', () => {
    const durations = [1, 2, 3, 4, 5, 6, 7, 20].map((n) => {
      const starts = [-DAY, ...Array.from({ length: n }, (_, i) => i * 10 * S)];
      return warmUpFor(historyOf(starts), starts[starts.length - 1] as number).durationMs / S;
    });
    expect(durations).toEqual([30, 60, 120, 240, 480, 600, 600, 600]);
    const fourth = warmUpFor(historyOf([-DAY, 0, 10 * S, 20 * S, 30 * S]), 30 * S);
    expect(fourth.reason).toBe('started 4 times in 1 h (last stop was a crash): warming up for 4 min');
    expect(warmUpFor(historyOf([-DAY, 0, 1, 2, 3, 4, 5]), 5).reason).toMatch(/started 6 times in 1 h .*warming up for 10 min \(the longest warm-up\)$/);
  });

  it('starts older than the window no longer count', () => {
    const h = historyOf([-DAY, 0, 10 * S, 20 * S, WARM_UP_WINDOW_MS + 20 * S]);
    expect(warmUpFor(h, WARM_UP_WINDOW_MS + 20 * S)).toMatchObject({ recentStarts: 1, durationMs: WARM_UP_BASE_MS });
  });

  it('back after a clean stop longer than the window ago: a planned return, no warm-up', () => {
    let h = withStart(EMPTY_RESTART_HISTORY, -3 * DAY);
    h = withCleanStop(h, -2 * DAY);
    h = withStart(h, 0);
    const d = warmUpFor(h, 0);
    expect(d).toMatchObject({ durationMs: 0, code: 'returnAfterLongStop', lastStop: 'clean' });
    expect(d.reason).toBe('the last run stopped cleanly 2 d ago (longer than 1 h): no warm-up');
  });

  it('a clock stepped back does not hide a loop', () => {
    // Starts stamped "in the future" relative to now still count within one window.
    const d = warmUpFor(historyOf([-DAY, 30 * S, 40 * S, 50 * S, 0]), 0);
    expect(d.recentStarts).toBe(4);
  });

  it('property: never negative, never above MAX, either 0 or at least BASE, and more starts never shorten it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 * 60 * MIN }), { minLength: 1, maxLength: 40 }), fc.boolean(), (gaps, clean) => {
        const starts: number[] = [];
        let t = 0;
        for (const g of gaps) starts.push((t += g));
        const now = starts[starts.length - 1] as number;
        const d = warmUpFor(historyOf(starts, clean), now).durationMs;
        expect(d === 0 || (d >= WARM_UP_BASE_MS && d <= WARM_UP_MAX_MS)).toBe(true);
        if (starts.length >= 2) {
          const oneMore = historyOf([...starts.slice(0, -1), now - 1, now], clean);
          expect(warmUpFor(oneMore, now).durationMs).toBeGreaterThanOrEqual(d);
        }
      }),
    );
  });
});

describe('durationText', () => {
  it('the largest unit and the next one when not zero', () => {
    expect([0, 400, 30 * S, 90 * S, 4 * MIN, 60 * MIN, 125 * MIN, 3 * DAY + 5 * MIN].map(durationText)).toEqual([
      '0 s', '0 s', '30 s', '1 min 30 s', '4 min', '1 h', '2 h 5 min', '3 d',
    ]);
  });
});

// --- simulations ------------------------------------------------------------------------------------------------

/** How long a restart leaves the node out of the cluster (the process dies, systemd starts it again). */
const DOWN_MS = 1 * S;
const STEP_MS = 100;

interface Simulation {
  /** Every warm-up decided, with the time of its start. */
  readonly warmUps: { at: number; decision: WarmUpDecision }[];
  /** How many times the IP changed owner between `from` and `to`. */
  readonly moves: number;
  /** Whether the node was warming up (or down) at every instant from the first restart to the last one. */
  readonly heldOffThroughout: boolean;
}

/**
 * The node has run since long before; it restarts at each time in `restarts` (down for DOWN_MS, the run before
 * stopping cleanly when `clean`), then stays up. `policy` is warmUpFor, or a stand-in to show the model counts.
 */
function simulate(restarts: number[], options: { clean?: boolean; until: number; policy?: (h: RestartHistory, now: number) => number }): Simulation {
  const policy = options.policy ?? ((h, now) => warmUpFor(h, now).durationMs);
  let history = withStart(EMPTY_RESTART_HISTORY, -30 * DAY);
  const warmUps: Simulation['warmUps'] = [];
  const intervals: { up: number; eligibleAt: number }[] = [{ up: -30 * DAY, eligibleAt: -30 * DAY }];
  for (const crash of restarts) {
    if (options.clean) history = withCleanStop(history, crash);
    const start = crash + DOWN_MS;
    history = withStart(history, start);
    const decision = warmUpFor(history, start);
    warmUps.push({ at: start, decision });
    intervals.push({ up: start, eligibleAt: start + policy(history, start) });
  }
  const ownerAt = (t: number): 'flapper' | 'steady' => {
    if (restarts.some((c) => t >= c && t < c + DOWN_MS)) return 'steady';
    const run = [...intervals].reverse().find((i) => i.up <= t);
    return run && t >= run.eligibleAt ? 'flapper' : 'steady';
  };
  let moves = 0;
  let heldOffThroughout = true;
  const from = (restarts[0] ?? 0) - 10 * S;
  let last = ownerAt(from);
  for (let t = from; t <= options.until; t += STEP_MS) {
    const owner = ownerAt(t);
    if (owner !== last) moves++;
    last = owner;
    if (t >= (restarts[0] ?? 0) && t <= (restarts[restarts.length - 1] ?? 0) && owner === 'flapper') heldOffThroughout = false;
  }
  return { warmUps, moves, heldOffThroughout };
}

const every = (periodMs: number, forMs: number): number[] => Array.from({ length: Math.floor(forMs / periodMs) }, (_, i) => i * periodMs);

describe('simulation: restarted every 10 s for 3 minutes (the acceptance case)', () => {
  const restarts = every(10 * S, 3 * MIN);

  it('after the first restart the node is warming up the whole run, and the IP moves twice: away, then back once', () => {
    const sim = simulate(restarts, { until: 3 * MIN + WARM_UP_MAX_MS + MIN });
    expect(restarts).toHaveLength(18);
    for (const [i, w] of sim.warmUps.entries()) {
      const next = sim.warmUps[i + 1]?.at;
      if (next !== undefined) expect(w.at + w.decision.durationMs).toBeGreaterThan(next);
    }
    expect(sim.heldOffThroughout).toBe(true);
    expect(sim.moves).toBe(2);
    expect(sim.warmUps.at(-1)?.decision.reason).toBe('started 18 times in 1 h (last stop was a crash): warming up for 10 min (the longest warm-up)');
  });

  it('the same with graceful restarts (SIGTERM each time)', () => {
    const sim = simulate(restarts, { clean: true, until: 3 * MIN + WARM_UP_MAX_MS + MIN });
    expect(sim.heldOffThroughout).toBe(true);
    expect(sim.moves).toBe(2);
  });

  it('without damping the same loop moves the IP on every restart (the model counts what matters)', () => {
    const sim = simulate(restarts, { until: 3 * MIN + MIN, policy: () => 0 });
    expect(sim.moves).toBe(2 * restarts.length);
  });
});

describe('simulation: other loops', () => {
  it("Kubernetes' CrashLoopBackOff (10 s doubling to 5 min) for an hour: the IP moves twice", () => {
    const restarts: number[] = [];
    for (let t = 0, gap = 10 * S; t < 60 * MIN; t += gap, gap = Math.min(gap * 2, 5 * MIN)) restarts.push(t);
    const sim = simulate(restarts, { until: 60 * MIN + WARM_UP_MAX_MS + MIN });
    expect(sim.heldOffThroughout).toBe(true);
    expect(sim.moves).toBe(2);
  });

  it('one restart a day for a week: each warm-up is at most BASE, and only the restart itself moves the IP', () => {
    const restarts = every(DAY, 7 * DAY);
    const sim = simulate(restarts, { until: 7 * DAY });
    expect(sim.warmUps.map((w) => w.decision.durationMs)).toEqual(restarts.map(() => WARM_UP_BASE_MS));
    expect(sim.moves).toBe(2 * restarts.length);
  });
});
