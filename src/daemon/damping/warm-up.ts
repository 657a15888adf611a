/**
 * The daemon's warm-up (flap damping) as a small shell: at start it records this run in --state-dir
 * (restart-history.ts), asks warm-up-policy.ts how long to warm up, logs the decision, and calls onEnd when the
 * warm-up is over so the daemon republishes its gossip meta without the flag. On a graceful exit the daemon calls
 * markCleanStop, so the next start knows this run did not crash.
 *
 * Damping is an optimisation, never a reason not to run: an unwritable or damaged file is logged and the decision
 * is made from what could be read.
 */
import { recordStart, markCleanStop as markCleanStopIn, type RestartHistory, EMPTY_RESTART_HISTORY, withStart } from './restart-history';
import { warmUpFor, type WarmUpDecision } from './warm-up-policy';

/** The subset of a pino logger used here. */
export interface WarmUpLogger {
  info(fields: object, msg?: string): void;
  warn(fields: object, msg?: string): void;
}

export interface WarmUpOptions {
  readonly stateDir: string;
  /** When this run started, epoch ms. */
  readonly startedAt: number;
  readonly logger: WarmUpLogger;
  /** Called once when an active warm-up ends (not when there was none, nor after close()). */
  readonly onEnd?: () => void;
  /** Epoch ms; Date.now by default. */
  readonly now?: () => number;
}

export class WarmUp {
  private timer: NodeJS.Timeout | undefined;
  private ended: boolean;

  private constructor(
    /** The decision made at start, with its reason sentence. */
    readonly decision: WarmUpDecision,
    /** The history as recorded at start (this run last). */
    readonly history: RestartHistory,
    private readonly endsAt: number,
    private readonly options: WarmUpOptions,
  ) {
    this.ended = decision.durationMs === 0;
  }

  static async start(options: WarmUpOptions): Promise<WarmUp> {
    const { stateDir, startedAt, logger } = options;
    let history: RestartHistory;
    try {
      const recorded = await recordStart(stateDir, startedAt);
      if (recorded.problem) logger.warn({ event: 'restartHistoryDamaged' }, recorded.problem);
      history = recorded.history;
    } catch (error) {
      // Unwritable: decide from nothing on record (no warm-up) rather than refuse to start.
      logger.warn({ event: 'restartHistoryUnwritable', error: (error as Error).message }, 'cannot record this start under --state-dir: flap damping is off for this run');
      history = withStart(EMPTY_RESTART_HISTORY, startedAt);
    }
    const decision = warmUpFor(history, startedAt);
    const warmUp = new WarmUp(decision, history, startedAt + decision.durationMs, options);
    logger.info(
      { event: decision.durationMs > 0 ? 'warmUpStarted' : 'warmUpSkipped', reason: decision.code, recentStarts: decision.recentStarts, lastStop: decision.lastStop, durationMs: decision.durationMs },
      decision.reason,
    );
    warmUp.arm();
    return warmUp;
  }

  /**
   * Whether this node is warming up now (publish it in meta). Ended by a timer, not by comparing wall-clock times,
   * so a clock stepped back by NTP cannot stretch the warm-up.
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

  /** Records a graceful exit; a failure is logged (the next start then counts this run as a crash). */
  async markCleanStop(): Promise<void> {
    try {
      await markCleanStopIn(this.options.stateDir, this.now());
    } catch (error) {
      this.options.logger.warn({ event: 'restartHistoryUnwritable', error: (error as Error).message }, 'cannot record the clean stop under --state-dir');
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.ended = true;
  }

  private arm(): void {
    if (this.ended) return;
    // Not keeping the process alive for it: the daemon's sockets do that; a test's process may exit.
    this.timer = setTimeout(() => this.end(), this.decision.durationMs);
    this.timer.unref();
  }

  private end(): void {
    this.timer = undefined;
    if (this.ended) return;
    this.ended = true;
    this.options.logger.info({ event: 'warmUpEnded', durationMs: this.decision.durationMs }, 'warm-up over: taking part in elections as a steady node');
    this.options.onEnd?.();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
