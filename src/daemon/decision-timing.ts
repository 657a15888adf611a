/**
 * How long each decision (the recomputation: allocation, election, plan, applying it) held the event loop in one
 * piece. It runs in a few synchronous turns (decision-turns.ts), and while one runs nothing else does: gossip probes
 * wait unanswered in the socket, so a turn longer than the gossip probe timeout lets peers start suspecting this
 * node (they see a late ack, as from an overloaded host). At 10,000 services the first decision's allocation turn
 * takes about a second on a small VM, so the daemon says so: the last decision's longest turn as a metric, and a
 * warning, at most once per SLOW_DECISION_LOG_INTERVAL_MS, when one outlasts the probe timeout. Pure: the caller
 * passes the times.
 */

/** At most one warning per minute: every gossip change recomputes, and a slow decision stays slow. */
export const SLOW_DECISION_LOG_INTERVAL_MS = 60_000;

export interface DecisionTimingView {
  /** The last decision's duration (ms); undefined before the first. */
  readonly lastMs: number | undefined;
  /** Decisions that outlasted the probe timeout, since start. */
  readonly slow: number;
}

export interface SlowDecisionWarning {
  readonly tookMs: number;
  readonly probeTimeoutMs: number;
  readonly services: number;
  readonly message: string;
}

export class DecisionTiming {
  private last: number | undefined;
  private slowCount = 0;
  private lastWarnedAt = -Infinity;

  constructor(private readonly probeTimeoutMs: number) {}

  /**
   * Records one decision: `heldMs`, the longest time it held the event loop in one piece (decision-turns.ts),
   * ended at `endedAt`. Returns the warning to log, if it is slow and none was logged lately.
   */
  record(heldMs: number, endedAt: number, services: number): SlowDecisionWarning | undefined {
    const tookMs = Math.max(0, heldMs);
    this.last = tookMs;
    if (tookMs <= this.probeTimeoutMs) return undefined;
    this.slowCount++;
    if (endedAt - this.lastWarnedAt < SLOW_DECISION_LOG_INTERVAL_MS) return undefined;
    this.lastWarnedAt = endedAt;
    return {
      tookMs,
      probeTimeoutMs: this.probeTimeoutMs,
      services,
      message:
        `a decision over ${services} services held the event loop for ${tookMs} ms, longer than the gossip probe ` +
        `timeout (${this.probeTimeoutMs} ms): peers may suspect this node meanwhile (metric mlb_decision_duration_seconds)`,
    };
  }

  view(): DecisionTimingView {
    return { lastMs: this.last, slow: this.slowCount };
  }
}
