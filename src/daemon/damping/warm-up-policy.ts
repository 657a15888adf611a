/**
 * Flap damping (beyond MetalLB: one speaker restarting 360 times in a day moved IPs 1,275 times). A node
 * whose daemon recently ended uncleanly while running is "warming up" for a while after it starts again: it
 * publishes the flag in its gossip meta, and the election (src/election/deferral.ts) elects it only when no steady
 * node is eligible. So a crash-looping node neither pulls its IPs back on every start nor pushes them away on
 * every crash: each of its IPs moves away once when the trouble starts and back once when the node has stayed up
 * through a whole warm-up.
 *
 * Pure: warmUpFor(history, now) reads the restart history (restart-history.ts) and returns the warm-up with a
 * sentence for logs and `mlb status` saying what was counted.
 *
 * The rule, and why:
 * - Only unclean ends of a running daemon count (restart-history.ts defines running). A start refused for a
 *   configuration typo never held an IP, so systemd retrying it moves nothing; a clean stop (SIGTERM, an upgrade,
 *   `systemctl restart`) hands every IP over while still answering (handover.ts), so clients see no gap. Counting
 *   either kept a healthy node off its IPs for up to MAX after an operator's fix.
 * - No unclean end noticed within WARM_UP_WINDOW_MS: no warm-up.
 * - Otherwise BASE x 2^(unclean ends in the window - 1), at most MAX. The first crash already warms up: a
 *   long-running node whose first crash starts a loop must not take its IPs back before the second crash, or
 *   each IP moves three times.
 * An unclean end is dated when the next start noticed it (the crash itself leaves no time), which for a loop is
 * one period after the previous one. The warm-up only needs to outlast the time to the node's next crash; the
 * exponential finds that length for any loop period up to MAX within a few crashes, and never costs a node that
 * crashed once more than BASE.
 */
import { runEnd, withUncleanEndNoticed, type DaemonRun, type RestartHistory } from './restart-history';

/**
 * The first warm-up. Longer than the quick restart loops: systemd's RestartSec (100 ms by default, seconds as
 * usually configured) and Kubernetes' first CrashLoopBackOff delay (10 s) plus a daemon's start-up, so a node
 * that crashes again soon after starting is still warming when it does. Short enough that a single crash
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
 * How far back unclean ends are counted. With doubling from BASE, n in the window give BASE x 2^(n-1); a crash loop
 * of period P puts WINDOW/P of them in it, and the warm-up outlasts P for every P up to MAX only if the window holds
 * enough of them: at P = 10 min, 6 crashes in an hour give 16 min (capped to 10). A 15-minute window would leave
 * the 5-minute CrashLoopBackOff loop at 2 min of warm-up, shorter than its period, moving IPs on every cycle.
 */
export const WARM_UP_WINDOW_MS = 60 * 60_000;

export type WarmUpCode = 'noEarlierRun' | 'noRecentUncleanEnd' | 'recentUncleanEnds';

export interface WarmUpDecision {
  /** 0: not warming up. */
  readonly durationMs: number;
  readonly code: WarmUpCode;
  /** For logs and status: "2 unclean ends of a running daemon in the last 1 h (...): warming up for 1 min". */
  readonly reason: string;
  /** Unclean ends of a running daemon noticed within WARM_UP_WINDOW_MS of now, the last run's included. */
  readonly uncleanEnds: number;
  /** How the last run on record ended; 'none' when there is none on record. */
  readonly lastStop: 'none' | 'clean' | 'unclean';
}

const NOT_COUNTED = 'clean stops and starts that never got running are not counted';

/**
 * The warm-up for a start at `now`. `history` holds the runs before this start; a last run with no end on record
 * is taken as ended uncleanly now (restart-history.ts withUncleanEndNoticed, which the shell saves).
 */
export function warmUpFor(recorded: RestartHistory, now: number): WarmUpDecision {
  const history = withUncleanEndNoticed(recorded, now);
  const last = history.runs[history.runs.length - 1];
  if (!last) {
    return {
      durationMs: 0,
      code: 'noEarlierRun',
      uncleanEnds: 0,
      lastStop: 'none',
      reason: 'no earlier run on record under --state-dir: no warm-up',
    };
  }
  // Either side of now, so a clock stepped back does not hide a loop (and forgets it after one window).
  const uncleanEnds = history.runs.filter(
    (r) => r.uncleanEndNoticedAt !== undefined && Math.abs(now - r.uncleanEndNoticedAt) < WARM_UP_WINDOW_MS,
  ).length;
  const lastStop = runEnd(last) === 'clean' ? 'clean' : 'unclean';
  const lastRun = lastRunText(last, now);
  const window = durationText(WARM_UP_WINDOW_MS);
  if (uncleanEnds === 0) {
    return {
      durationMs: 0,
      code: 'noRecentUncleanEnd',
      uncleanEnds,
      lastStop,
      reason: `no unclean end of a running daemon in the last ${window} (${lastRun}; ${NOT_COUNTED}): no warm-up`,
    };
  }
  const doublings = Math.min(uncleanEnds - 1, Math.ceil(Math.log2(WARM_UP_MAX_MS / WARM_UP_BASE_MS)));
  const durationMs = Math.min(WARM_UP_MAX_MS, WARM_UP_BASE_MS * 2 ** doublings);
  const counted = uncleanEnds === 1 ? '1 unclean end' : `${uncleanEnds} unclean ends`;
  const capped = durationMs === WARM_UP_MAX_MS ? ' (the longest warm-up)' : '';
  return {
    durationMs,
    code: 'recentUncleanEnds',
    uncleanEnds,
    lastStop,
    reason: `${counted} of a running daemon in the last ${window} (${lastRun}; ${NOT_COUNTED}): warming up for ${durationText(durationMs)}${capped}`,
  };
}

/** "the last run, running since 2026-12-01T14:02:11.000Z, stopped cleanly 5 min ago" and the like. */
function lastRunText(run: DaemonRun, now: number): string {
  const since = `the last run, running since ${new Date(run.runningSince).toISOString()},`;
  if (run.stoppedCleanlyAt !== undefined) return `${since} stopped cleanly ${durationText(now - run.stoppedCleanlyAt)} ago`;
  const noticed = run.uncleanEndNoticedAt ?? now;
  return noticed === now
    ? `${since} has no clean stop on record: it crashed or was killed`
    : `${since} ended uncleanly, noticed ${durationText(now - noticed)} ago`;
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
