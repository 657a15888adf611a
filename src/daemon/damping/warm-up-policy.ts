/**
 * Flap damping (beyond MetalLB; seed 000: one speaker restarting 360 times moved IPs 1,275 times in a day). A node
 * that starts again soon after earlier starts is "warming up" for a while: it publishes the flag in its gossip meta,
 * and the election (src/election/deferral.ts) elects it only when no steady node is eligible. So a crash-looping
 * node neither pulls its IPs back on every start nor pushes them away on every crash: each of its IPs moves away
 * once when the trouble starts and back once when the node has stayed up through a whole warm-up.
 *
 * Pure: warmUpFor(history, now) reads the restart history (restart-history.ts) and returns the warm-up with a
 * sentence for logs and `mlb status`.
 *
 * The rule, and why:
 * - No run on record before this one (a fresh install, or --state-dir wiped): no warm-up; nothing to damp.
 * - The previous run stopped cleanly longer than WARM_UP_WINDOW_MS ago (a machine powered off for maintenance, a
 *   planned return): no warm-up; a node that stayed down that long has not been flapping.
 * - Otherwise (any restart: after a crash, which gives no stop time, or after a clean stop within the window)
 *   BASE x 2^(starts in the window - 1), at most MAX. The first restart already warms up: a long-running node
 *   whose first crash starts a loop must not take its IPs back before the second crash, or each IP moves three
 *   times. A clean stop is not discounted: a liveness probe that kills a wedged daemon with SIGTERM, or a script
 *   restarting it, moves IPs exactly like a crash loop does; a single upgrade still gets only BASE.
 * The warm-up only needs to outlast the time to the node's next restart; the exponential finds that length for
 * any loop period up to MAX within a few restarts, and never costs a steady node more than BASE.
 */
import type { RestartHistory } from './restart-history';

/**
 * The first warm-up. Longer than the quick restart loops: systemd's RestartSec (100 ms by default, seconds as
 * usually configured) and Kubernetes' first CrashLoopBackOff delay (10 s) plus a daemon's start-up, so a node
 * that crashes again soon after starting is still warming when it does. Short enough that a single upgrade
 * leaves the node off its share of IPs for only half a minute (other nodes serve them meanwhile).
 */
export const WARM_UP_BASE_MS = 30_000;
/**
 * The longest warm-up. Covers Kubernetes' largest CrashLoopBackOff delay (5 min) twice over, so a pod in that loop
 * stays warming between crashes; short enough that a node that has truly recovered takes its share back within
 * a time an operator watching `mlb status` will wait.
 */
export const WARM_UP_MAX_MS = 10 * 60_000;
/**
 * How far back starts are counted. With doubling from BASE, n starts in the window give BASE x 2^(n-1); a loop of
 * period P puts WINDOW/P starts in it, and the warm-up outlasts P for every P up to MAX only if the window holds
 * enough of them: at P = 10 min, 6 starts in an hour give 16 min (capped to 10). A 15-minute window would leave
 * the 5-minute CrashLoopBackOff loop at 2 min of warm-up, shorter than its period, moving IPs on every cycle.
 */
export const WARM_UP_WINDOW_MS = 60 * 60_000;

export type WarmUpCode = 'firstStart' | 'returnAfterLongStop' | 'restarted';

export interface WarmUpDecision {
  /** 0: not warming up. */
  readonly durationMs: number;
  readonly code: WarmUpCode;
  /** For logs and status: "started 4 times in 1 h (last stop was a crash): warming up for 4 min". */
  readonly reason: string;
  /** Starts within WARM_UP_WINDOW_MS, this one included. */
  readonly recentStarts: number;
  /** How the run before this one ended; 'none' when there is none on record. */
  readonly lastStop: 'none' | 'clean' | 'crash';
}

/** `history` must include this start as its last run (restart-history.ts recordStart returns it so). */
export function warmUpFor(history: RestartHistory, now: number): WarmUpDecision {
  const runs = history.runs;
  const previous = runs[runs.length - 2];
  // Either side of now, so a clock stepped back does not hide a loop (and forgets it after one window).
  const recentStarts = Math.max(1, runs.filter((r) => Math.abs(now - r.startedAt) < WARM_UP_WINDOW_MS).length);
  if (!previous) {
    return { durationMs: 0, code: 'firstStart', recentStarts, lastStop: 'none', reason: 'first start on record under --state-dir: no warm-up' };
  }
  const lastStop = previous.stoppedCleanlyAt === undefined ? 'crash' : 'clean';
  if (previous.stoppedCleanlyAt !== undefined && now - previous.stoppedCleanlyAt >= WARM_UP_WINDOW_MS) {
    return {
      durationMs: 0,
      code: 'returnAfterLongStop',
      recentStarts,
      lastStop,
      reason: `the last run stopped cleanly ${durationText(now - previous.stoppedCleanlyAt)} ago (longer than ${durationText(WARM_UP_WINDOW_MS)}): no warm-up`,
    };
  }
  const doublings = Math.min(recentStarts - 1, Math.ceil(Math.log2(WARM_UP_MAX_MS / WARM_UP_BASE_MS)));
  const durationMs = Math.min(WARM_UP_MAX_MS, WARM_UP_BASE_MS * 2 ** doublings);
  const starts = recentStarts === 1 ? `first start in ${durationText(WARM_UP_WINDOW_MS)}` : `started ${recentStarts} times in ${durationText(WARM_UP_WINDOW_MS)}`;
  const capped = durationMs === WARM_UP_MAX_MS ? ' (the longest warm-up)' : '';
  return {
    durationMs,
    code: 'restarted',
    recentStarts,
    lastStop,
    reason: `${starts} (last stop was ${lastStop === 'clean' ? 'clean' : 'a crash'}): warming up for ${durationText(durationMs)}${capped}`,
  };
}

const UNITS: readonly [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/** "30 s", "4 min", "1 h", "2 h 5 min", "3 d": the largest unit and the next one when not zero, whole numbers. */
export function durationText(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000)) * 1000;
  const i = UNITS.findIndex(([, size]) => total >= size);
  if (i < 0) return '0 s';
  const [unit, size] = UNITS[i] as [string, number];
  const whole = Math.floor(total / size);
  const next = UNITS[i + 1];
  const part = next ? Math.floor((total - whole * size) / next[1]) : 0;
  return part > 0 && next ? `${whole} ${unit} ${part} ${next[0]}` : `${whole} ${unit}`;
}
