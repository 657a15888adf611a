/**
 * Keeps the TUI's picture of the daemon current: follows GET /v1/events and re-reads the snapshot ~50 ms after an
 * event (a failover shows within the 200 ms the TUI promises), polls it every second anyway (ages tick, and a
 * missed event heals), and reconnects when the daemon goes away, saying so meanwhile. A daemon that restarted
 * numbers its events from 1 again: the feed notices the new start time and follows the new run from its start.
 * The shell around the client; everything shown is computed from its FeedView by pure code.
 */
import type { ControlSnapshot } from '../../daemon/control/control-snapshot';
import type { ExplainFilter } from '../../daemon/control/explain-filter';
import type { DaemonEvent } from '../../daemon/daemon-events';
import type { Explanation } from '../../election';
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import type { Scheduler, Timer } from '../../runtime/runtime';
import type { ExplainState } from './explain-lines';

/** The calls the feed makes; the ControlClient has them, a test gives a fake. */
export interface StatusFeedClient {
  getSnapshot(): Promise<ControlSnapshot>;
  getExplain(filter?: Partial<ExplainFilter>): Promise<Explanation[]>;
  followEvents(after: number, onEvent: (event: DaemonEvent) => void, signal: AbortSignal): Promise<void>;
}

export interface FeedTiming {
  /** An event's burst (a failover brings an ownerChanged per IP and a memberFailed) becomes one snapshot read. */
  readonly debounceMs: number;
  /** The fallback when no event comes: ages move, and a change without an event still shows. */
  readonly pollMs: number;
  /** The pause between attempts to reopen the event stream. */
  readonly reconnectMs: number;
}

/** 50 ms of debounce plus a local snapshot read stays well inside the 200 ms the TUI promises after a change. */
const FEED_TIMING: FeedTiming = { debounceMs: 50, pollMs: 1_000, reconnectMs: 500 };
/** Recent events kept for the screen; the daemon holds more (EVENT_LOG_SIZE) for a reconnect. */
const FEED_EVENTS_KEPT = 100;

export interface FeedView {
  /** The last snapshot read (kept while disconnected, so the screen does not go blank). */
  readonly snapshot: ControlSnapshot;
  /** Recent events, oldest first. */
  readonly events: readonly DaemonEvent[];
  readonly connected: boolean;
  /** Why the daemon cannot be read, null while connected. */
  readonly problem: string | null;
  /** The explanation of the watched IP (the open details), null when none is watched. */
  readonly explain: ExplainState | null;
}

export class StatusFeed {
  private view: FeedView;
  private stopped = false;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private emitQueued = false;
  private pollTimer: Timer | null = null;
  private debounceTimer: Timer | null = null;
  private stream: AbortController | null = null;
  /** The daemon run (its start time) the stream's sequence numbers belong to. */
  private streamRun: string | null = null;
  private lastSeq = 0;
  private explainIP: string | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly client: StatusFeedClient,
    initial: ControlSnapshot,
    private readonly onChange: (view: FeedView) => void,
    private readonly timing: FeedTiming = FEED_TIMING,
    /** The timers (polling, debounce, reconnect pause); tests move time by hand. */
    private readonly scheduler: Scheduler = REAL_RUNTIME,
  ) {
    this.view = { snapshot: initial, events: [], connected: true, problem: null, explain: null };
  }

  get current(): FeedView {
    return this.view;
  }

  start(): void {
    this.pollTimer = this.scheduler.every(this.timing.pollMs, () => void this.refresh());
    void this.followLoop();
  }

  /** Stops every timer and the stream; the process may exit after this. */
  stop(): void {
    this.stopped = true;
    this.pollTimer?.cancel();
    this.debounceTimer?.cancel();
    this.stream?.abort();
    this.wake?.();
  }

  /** Keeps the explanation of `ip` current (null: none); it is re-read with every snapshot. */
  watchExplain(ip: string | null): void {
    if (ip === this.explainIP) return;
    this.explainIP = ip;
    this.update({ explain: ip === null ? null : { ip, explanations: null, problem: null } });
    if (ip !== null) void this.readExplain();
  }

  /** Reads the snapshot (and the watched explanation) now; calls made meanwhile coalesce into one more read. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = this.readSnapshot().finally(() => {
      this.refreshing = null;
      if (this.refreshAgain && !this.stopped) {
        this.refreshAgain = false;
        void this.refresh();
      }
    });
    return this.refreshing;
  }

  private async readSnapshot(): Promise<void> {
    try {
      const snapshot = await this.client.getSnapshot();
      if (this.stopped) return;
      this.update({ snapshot, connected: true, problem: null });
      // A new daemon run behind the same socket: the stream's sequence numbers mean nothing to it any more.
      if (this.streamRun !== null && snapshot.node.startedAt !== this.streamRun) this.stream?.abort();
      await this.readExplain();
    } catch (error) {
      if (!this.stopped) this.update({ connected: false, problem: errorText(error) });
    }
  }

  private async readExplain(): Promise<void> {
    const ip = this.explainIP;
    if (ip === null) return;
    try {
      const explanations = await this.client.getExplain({ ips: [ip] });
      if (this.explainIP === ip && !this.stopped) this.update({ explain: { ip, explanations, problem: null } });
    } catch (error) {
      if (this.explainIP === ip && !this.stopped) this.update({ explain: { ip, explanations: null, problem: errorText(error) } });
    }
  }

  /** Opens the stream, and again whenever it ends, until stopped; the snapshot read first says if it can. */
  private async followLoop(): Promise<void> {
    while (!this.stopped) {
      await this.refresh();
      if (this.stopped) return;
      if (this.view.connected) {
        const run = this.view.snapshot.node.startedAt;
        if (run !== this.streamRun) {
          this.streamRun = run;
          this.lastSeq = 0;
        }
        const controller = new AbortController();
        this.stream = controller;
        try {
          await this.client.followEvents(this.lastSeq, (event) => this.onEvent(event), controller.signal);
        } catch {
          // The snapshot read at the top of the loop tells the operator whether the daemon is gone.
        }
        this.stream = null;
        if (this.stopped) return;
        void this.refresh();
      }
      await this.pause(this.timing.reconnectMs);
    }
  }

  private onEvent(event: DaemonEvent): void {
    this.lastSeq = event.seq;
    this.update({ events: [...this.view.events, event].slice(-FEED_EVENTS_KEPT) });
    this.debounceTimer ??= this.scheduler.after(this.timing.debounceMs, () => {
      this.debounceTimer = null;
      void this.refresh();
    });
  }

  /** Changes the view; listeners hear once per turn of the event loop (a replay of 200 events is one redraw). */
  private update(change: Partial<FeedView>): void {
    this.view = { ...this.view, ...change };
    if (this.emitQueued) return;
    this.emitQueued = true;
    queueMicrotask(() => {
      this.emitQueued = false;
      if (!this.stopped) this.onChange(this.view);
    });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        timer.cancel();
        this.wake = null;
        resolve();
      };
      const timer = this.scheduler.after(ms, done);
      this.wake = done;
    });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
