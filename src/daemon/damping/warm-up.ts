/**
 * The daemon's warm-up (flap damping) as a small shell around restart-history.ts and warm-up-policy.ts:
 * - at start, it notes the last run's unclean end if there was one, asks the policy how long to warm up, logs the
 *   decision with what was counted, and calls onEnd when the warm-up is over so the daemon republishes its gossip
 *   meta without the flag;
 * - markRunning, once the daemon serves, records this run, so a crash from then on is counted at the next start;
 * - markCleanStop, on a graceful exit, records that this run did not crash.
 *
 * Damping is an optimisation, never a reason not to run: an unwritable or damaged file is logged and the decision
 * is made from what could be read.
 */
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import type { Clock, Scheduler, Timer } from '../../runtime/runtime';
import type { StateFiles } from '../../runtime/state-files';
import { stateFilesOf, type StateFilesOption } from '../directory-state-files';
import {
  loadRestartHistory,
  recordCleanStop,
  recordRunning,
  saveRestartHistory,
  withUncleanEndNoticed,
  type RestartHistory,
} from './restart-history';
import { warmUpFor, type WarmUpDecision } from './warm-up-policy';
import { type Log } from '../../runtime/log';

/** The subset of a pino logger used here. */
/** `stateDir` (the --state-dir path) or `stateFiles` (the node's store): where restarts.json lives. */
export type WarmUpOptions = StateFilesOption & {
  /** When this run started, epoch ms. */
  readonly startedAt: number;
  readonly logger: Log;
  /** Called once when an active warm-up ends (not when there was none, nor after close()). */
  readonly onEnd?: () => void;
  /** The clock markRunning/markCleanStop stamp with and the timer that ends the warm-up; the real one by default. */
  readonly runtime?: Clock & Scheduler;
};

export class WarmUp {
  private timer: Timer | undefined;
  private ended: boolean;
  /** Set once markRunning recorded this run: what markCleanStop marks. */
  private runningSince: number | undefined;

  private constructor(
    /** The decision made at start, with its reason sentence. */
    readonly decision: WarmUpDecision,
    /** The earlier runs as read at start, the last one's end noted. */
    readonly history: RestartHistory,
    private readonly endsAt: number,
    private readonly options: WarmUpOptions,
    private readonly files: StateFiles,
    private readonly runtime: Clock & Scheduler,
  ) {
    this.ended = decision.durationMs === 0;
  }

  static async start(options: WarmUpOptions): Promise<WarmUp> {
    const { startedAt, logger } = options;
    const files = stateFilesOf(options);
    const loaded = await loadRestartHistory(files);
    if (loaded.problem) logger.warn({ event: 'restartHistoryDamaged' }, loaded.problem);
    const history = withUncleanEndNoticed(loaded.history, startedAt);
    if (history !== loaded.history || loaded.problem !== undefined) {
      // Saved now, so that starts refused after this one find the end already counted and do not count it again.
      await saveRestartHistory(files, history).catch((error: Error) => {
        logger.warn(
          { event: 'restartHistoryUnwritable', error: error.message },
          'cannot record how the last run ended under --state-dir; deciding from what was read',
        );
      });
    }
    const decision = warmUpFor(history, startedAt);
    const warmUp = new WarmUp(decision, history, startedAt + decision.durationMs, options, files, options.runtime ?? REAL_RUNTIME);
    logger.info(
      {
        event: decision.durationMs > 0 ? 'warmUpStarted' : 'warmUpSkipped',
        reason: decision.code,
        uncleanEnds: decision.uncleanEnds,
        lastStop: decision.lastStop,
        durationMs: decision.durationMs,
      },
      decision.reason,
    );
    warmUp.arm();
    return warmUp;
  }

  /**
   * Whether this node is warming up now (publish it in meta). Ended by a timer, not by comparing clock readings,
   * so a clock stepped back by NTP cannot stretch the warm-up (the real scheduler re-arms a timer that fires early
   * by the clock it was given, which stretches it by at most that step).
   */
  get active(): boolean {
    return !this.ended;
  }

  /** When the warm-up ends (epoch ms: start + duration) while it is active; undefined otherwise. */
  get until(): number | undefined {
    return this.active ? this.endsAt : undefined;
  }

  get reason(): string {
    return this.decision.reason;
  }

  /**
   * The daemon serves (configuration loaded, gossip up, first join attempt over): records this run, so that an end
   * without markCleanStop counts toward flap damping at the next start. A failure is logged: a crash of this run
   * then goes uncounted, which only weakens damping.
   */
  async markRunning(): Promise<void> {
    const at = this.now();
    try {
      await recordRunning(this.files, at);
      this.runningSince = at;
      this.options.logger.info(
        { event: 'runRecorded', runningSince: new Date(at).toISOString() },
        'serving: an end of this run without a clean stop will count toward flap damping',
      );
    } catch (error) {
      this.options.logger.warn(
        { event: 'restartHistoryUnwritable', error: (error as Error).message },
        'cannot record this run under --state-dir: a crash of it will not count toward flap damping',
      );
    }
  }

  /** Records a graceful exit of this run; a failure is logged (the next start then counts this run as a crash). */
  async markCleanStop(): Promise<void> {
    // Never got running (or could not record it): there is no run of ours to mark, and an earlier one must stay as it ended.
    if (this.runningSince === undefined) return;
    try {
      await recordCleanStop(this.files, this.runningSince, this.now());
    } catch (error) {
      this.options.logger.warn(
        { event: 'restartHistoryUnwritable', error: (error as Error).message },
        'cannot record the clean stop under --state-dir: the next start will count this run as a crash',
      );
    }
  }

  close(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.ended = true;
  }

  private arm(): void {
    if (this.ended) return;
    this.timer = this.runtime.after(this.decision.durationMs, () => this.end());
  }

  /**
   * `mlb warmup end`: an operator who knows why the node restarted (planned maintenance) ends its warm-up now.
   * Returns whether a warm-up was running; logged as warmUpEnded with reason "operator" and how much was left.
   */
  endNow(): boolean {
    if (this.ended) return false;
    this.timer?.cancel();
    this.end('operator');
    return true;
  }

  private end(reason: 'elapsed' | 'operator' = 'elapsed'): void {
    this.timer = undefined;
    if (this.ended) return;
    this.ended = true;
    const leftMs = Math.max(0, this.endsAt - this.now());
    this.options.logger.info(
      { event: 'warmUpEnded', reason, durationMs: this.decision.durationMs, ...(reason === 'operator' ? { leftMs } : {}) },
      reason === 'operator'
        ? `warm-up ended by an operator (mlb warmup end) with ${Math.ceil(leftMs / 1000)} s left: taking part in elections as a steady node`
        : 'warm-up over: taking part in elections as a steady node',
    );
    this.options.onEnd?.();
  }

  private now(): number {
    return this.runtime.now();
  }
}
