/**
 * Flap damping's policy (src/daemon/damping/warm-up-policy.ts), pure, with an injected clock: the rule case by
 * case with its sentences, and simulations of the restart patterns it exists for. The simulations model one IP
 * that the flapping node wins whenever it is eligible and a steady node that holds it otherwise (the election
 * elects a warming node only when no steady one is eligible), and count how often the IP changes owner.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_RESTART_HISTORY,
  withCleanStop,
  withRunning,
  withUncleanEndNoticed,
  type RestartHistory,
} from '../../../src/daemon/damping/restart-history';
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

/**
 * A node's daemon as the restart history sees it, through the same pure updates the shell (warm-up.ts) makes: a
 * start notices how the last run ended and decides; a start that gets running is recorded; a graceful exit marks it.
 */
class Node {
  history: RestartHistory = EMPTY_RESTART_HISTORY;
  private runningSince: number | undefined;

  /** A start that gets running (configuration loaded, gossip joined) at `t`; returns its warm-up. */
  start(t: number): WarmUpDecision {
    const decision = this.refusedStart(t);
    this.history = withRunning(this.history, t);
    this.runningSince = t;
    return decision;
  }

  /** A start that fails before running (a configuration refused): decides, records nothing of its own. */
  refusedStart(t: number): WarmUpDecision {
    const decision = warmUpFor(this.history, t);
    this.history = withUncleanEndNoticed(this.history, t);
    this.runningSince = undefined;
    return decision;
  }

  stopCleanly(t: number): void {
    if (this.runningSince !== undefined) this.history = withCleanStop(this.history, this.runningSince, t);
    this.runningSince = undefined;
  }
}

/** A node that has run since `since`, then each start at `crashes` (the run before it crashed). */
function crashedAt(crashes: number[], since = -DAY): Node {
  const node = new Node();
  node.start(since);
  for (const t of crashes) node.start(t);
  return node;
}

const NOT_COUNTED = 'clean stops and starts that never got running are not counted';

describe('warmUpFor', () => {
  it('no earlier run on record: no warm-up', () => {
    expect(new Node().start(0)).toEqual({
      durationMs: 0,
      code: 'noEarlierRun',
      uncleanEnds: 0,
      lastStop: 'none',
      reason: 'no earlier run on record under --state-dir: no warm-up',
    });
  });

  it('the first crash of a long-running node warms up for BASE, and says what it counted', () => {
    const node = crashedAt([]);
    expect(node.start(0)).toEqual({
      durationMs: WARM_UP_BASE_MS,
      code: 'recentUncleanEnds',
      uncleanEnds: 1,
      lastStop: 'unclean',
      reason: `1 unclean end of a running daemon in the last 1 h (the last run, running since ${new Date(-DAY).toISOString()}, has no clean stop on record: it crashed or was killed; ${NOT_COUNTED}): warming up for 30 s`,
    });
  });

  it('a clean stop does not count: an upgrade or `systemctl restart` starts without warm-up', () => {
    const node = crashedAt([]);
    node.stopCleanly(-5 * S);
    expect(node.start(0)).toEqual({
      durationMs: 0,
      code: 'noRecentUncleanEnd',
      uncleanEnds: 0,
      lastStop: 'clean',
      reason: `no unclean end of a running daemon in the last 1 h (the last run, running since ${new Date(-DAY).toISOString()}, stopped cleanly 5 s ago; ${NOT_COUNTED}): no warm-up`,
    });
    node.stopCleanly(10 * S);
    node.start(20 * S);
    node.stopCleanly(30 * S);
    expect(node.start(40 * S)).toMatchObject({ durationMs: 0, uncleanEnds: 0 });
  });

  it('starts refused for a configuration typo (systemd retrying 4 times) do not count, nor warm the fixed start', () => {
    const node = crashedAt([]);
    node.stopCleanly(-60 * S);
    const refused = [0, 10 * S, 20 * S, 30 * S].map((t) => node.refusedStart(t));
    expect(refused.map((d) => d.durationMs)).toEqual([0, 0, 0, 0]);
    expect(node.start(40 * S)).toMatchObject({ durationMs: 0, code: 'noRecentUncleanEnd', uncleanEnds: 0, lastStop: 'clean' });
  });

  it('a crash followed by refused starts is one unclean end, counted once', () => {
    const node = crashedAt([]);
    const decisions = [0, 10 * S, 20 * S].map((t) => node.refusedStart(t));
    decisions.push(node.start(30 * S));
    expect(decisions.map((d) => [d.uncleanEnds, d.durationMs])).toEqual(decisions.map(() => [1, WARM_UP_BASE_MS]));
    expect(decisions.at(-1)?.reason).toMatch(
      /^1 unclean end of a running daemon in the last 1 h \(the last run, running since .*, ended uncleanly, noticed 30 s ago;/,
    );
  });

  it('earlier crashes still count after a clean stop within the window', () => {
    const node = crashedAt([0, 10 * S]);
    node.stopCleanly(15 * S);
    expect(node.start(20 * S)).toMatchObject({ uncleanEnds: 2, lastStop: 'clean', durationMs: 2 * WARM_UP_BASE_MS });
  });

  it('doubles with each unclean end in the window, up to MAX, and says so', () => {
    const durations = [1, 2, 3, 4, 5, 6, 7, 20].map((n) => {
      const crashes = Array.from({ length: n - 1 }, (_, i) => i * 10 * S);
      return crashedAt(crashes).start(n * 10 * S).durationMs / S;
    });
    expect(durations).toEqual([30, 60, 120, 240, 480, 600, 600, 600]);
    expect(crashedAt([0, 10 * S, 20 * S]).start(30 * S).reason).toMatch(
      /^4 unclean ends of a running daemon in the last 1 h .*: warming up for 4 min$/,
    );
    expect(crashedAt([0, 1, 2, 3, 4]).start(5).reason).toMatch(/^6 unclean ends .*warming up for 10 min \(the longest warm-up\)$/);
  });

  it('unclean ends noticed longer ago than the window no longer count', () => {
    const node = crashedAt([0, 10 * S, 20 * S]);
    expect(node.start(WARM_UP_WINDOW_MS + 20 * S)).toMatchObject({ uncleanEnds: 1, durationMs: WARM_UP_BASE_MS });
  });

  it('a clock stepped back does not hide a loop', () => {
    // Ends noticed "in the future" relative to now still count within one window.
    expect(crashedAt([30 * S, 40 * S, 50 * S]).start(0).uncleanEnds).toBe(4);
  });

  it('property: never negative, never above MAX, 0 or at least BASE; 0 exactly when no crash; one more crash never shortens it', () => {
    const step = fc.record({ gap: fc.integer({ min: 0, max: 2 * 60 * MIN }), end: fc.constantFrom('crash', 'clean', 'refused') });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        const node = new Node();
        node.start(0);
        let t = 0;
        let decision: WarmUpDecision | undefined;
        for (const { gap, end } of steps) {
          t += gap;
          if (end === 'clean') node.stopCleanly(t);
          decision = end === 'refused' ? node.refusedStart(t) : node.start(t);
        }
        const d = decision!.durationMs;
        expect(d === 0 || (d >= WARM_UP_BASE_MS && d <= WARM_UP_MAX_MS)).toBe(true);
        expect(d === 0).toBe(decision!.uncleanEnds === 0);
        // The run started last crashes too: started again at once.
        expect(node.start(t).durationMs).toBeGreaterThanOrEqual(d);
      }),
    );
  });
});

describe('durationText', () => {
  it('the largest unit and the next one when not zero', () => {
    expect([0, 400, 30 * S, 90 * S, 4 * MIN, 60 * MIN, 125 * MIN, 3 * DAY + 5 * MIN].map(durationText)).toEqual([
      '0 s',
      '0 s',
      '30 s',
      '1 min 30 s',
      '4 min',
      '1 h',
      '2 h 5 min',
      '3 d',
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
 * ending by a crash, or cleanly when `clean`), then stays up. `policy` is warmUpFor, or a stand-in to show the
 * model counts.
 */
function simulate(
  restarts: number[],
  options: { clean?: boolean; until: number; policy?: (h: RestartHistory, now: number) => number },
): Simulation {
  const policy = options.policy ?? ((h, now) => warmUpFor(h, now).durationMs);
  const node = new Node();
  node.start(-30 * DAY);
  const warmUps: Simulation['warmUps'] = [];
  const intervals: { up: number; eligibleAt: number }[] = [{ up: -30 * DAY, eligibleAt: -30 * DAY }];
  for (const stop of restarts) {
    if (options.clean) node.stopCleanly(stop);
    const start = stop + DOWN_MS;
    const durationMs = policy(node.history, start);
    warmUps.push({ at: start, decision: node.start(start) });
    intervals.push({ up: start, eligibleAt: start + durationMs });
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

describe('simulation: crashed every 10 s for 3 minutes (the e2e flap-damping case)', () => {
  const restarts = every(10 * S, 3 * MIN);

  it('after the first crash the node is warming up the whole run, and the IP moves twice: away, then back once', () => {
    const sim = simulate(restarts, { until: 3 * MIN + WARM_UP_MAX_MS + MIN });
    expect(restarts).toHaveLength(18);
    for (const [i, w] of sim.warmUps.entries()) {
      const next = sim.warmUps[i + 1]?.at;
      if (next !== undefined) expect(w.at + w.decision.durationMs).toBeGreaterThan(next);
    }
    expect(sim.heldOffThroughout).toBe(true);
    expect(sim.moves).toBe(2);
    expect(sim.warmUps.at(-1)?.decision.reason).toMatch(
      /^18 unclean ends of a running daemon in the last 1 h .*: warming up for 10 min \(the longest warm-up\)$/,
    );
  });

  it('graceful restarts (SIGTERM each time) are not damped: each hands the IP over and takes it back', () => {
    const sim = simulate(restarts, { clean: true, until: 3 * MIN + MIN });
    expect(sim.warmUps.map((w) => w.decision.durationMs)).toEqual(restarts.map(() => 0));
    expect(sim.moves).toBe(2 * restarts.length);
  });

  it('without damping the crash loop moves the IP on every restart (the model counts what matters)', () => {
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

  it('one crash a day for a week: each warm-up is BASE, and only the crash itself moves the IP', () => {
    const restarts = every(DAY, 7 * DAY);
    const sim = simulate(restarts, { until: 7 * DAY });
    expect(sim.warmUps.map((w) => w.decision.durationMs)).toEqual(restarts.map(() => WARM_UP_BASE_MS));
    expect(sim.moves).toBe(2 * restarts.length);
  });
});
