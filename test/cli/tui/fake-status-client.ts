/**
 * A daemon as the TUI's feed sees it, in memory: a snapshot to read, explanations to ask for, and an event stream
 * backed by the real EventLog, that a test can crash and restart (a new run numbers its events from 1 again).
 */
import type { ControlSnapshot } from '../../../src/daemon/control/control-snapshot';
import type { ExplainFilter } from '../../../src/daemon/control/explain-filter';
import { EventLog, type DaemonEvent, type DaemonEventBody } from '../../../src/daemon/daemon-events';
import type { Explanation } from '../../../src/election';
import type { StatusFeedClient } from '../../../src/cli/tui/status-feed';

interface Follower {
  readonly onEvent: (event: DaemonEvent) => void;
  readonly end: (error?: Error) => void;
}

export class FakeStatusClient implements StatusFeedClient {
  down = false;
  snapshotReads = 0;
  /** The `after` of every followEvents call, in order. */
  readonly follows: number[] = [];
  readonly explainAsks: string[][] = [];
  private log = new EventLog();
  private readonly followers = new Set<Follower>();

  constructor(
    public snapshot: ControlSnapshot,
    public explanations: Explanation[] = [],
  ) {}

  async getSnapshot(): Promise<ControlSnapshot> {
    this.snapshotReads++;
    if (this.down) throw new Error('no control socket at /run/mlb/mlb.sock: is mlb daemon running?');
    return structuredClone(this.snapshot);
  }

  async getExplain(filter: Partial<ExplainFilter> = {}): Promise<Explanation[]> {
    if (this.down) throw new Error('no control socket');
    this.explainAsks.push([...(filter.ips ?? [])]);
    const ips = filter.ips ?? [];
    return this.explanations.filter((e) => ips.length === 0 || ips.includes(e.ip));
  }

  followEvents(after: number, onEvent: (event: DaemonEvent) => void, signal: AbortSignal): Promise<void> {
    this.follows.push(after);
    if (this.down) return Promise.reject(new Error('no control socket'));
    return new Promise((resolve, reject) => {
      const follower: Follower = {
        onEvent,
        end: (error) => {
          this.followers.delete(follower);
          if (error) reject(error);
          else resolve();
        },
      };
      this.followers.add(follower);
      signal.addEventListener('abort', () => follower.end(), { once: true });
      for (const event of this.log.since(after)) onEvent(event);
    });
  }

  /** Records an event as the daemon would and streams it to every follower. */
  record(body: DaemonEventBody): DaemonEvent {
    const event = this.log.record(body);
    for (const f of this.followers) f.onEvent(event);
    return event;
  }

  get following(): number {
    return this.followers.size;
  }

  /** kill -9: every stream breaks, nothing answers. */
  crash(): void {
    this.down = true;
    for (const f of [...this.followers]) f.end(new Error('the event stream broke off'));
  }

  /** A new daemon run on the same socket: a later start time, events numbered from 1. */
  restart(startedAt: string): void {
    this.log = new EventLog();
    this.snapshot = { ...this.snapshot, node: { ...this.snapshot.node, startedAt } };
    this.down = false;
  }
}

/** Polls until check() holds (the feed works on real timers). */
export async function until(check: () => boolean, timeoutMs = 5_000, onTimeout?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms${onTimeout ? `: ${onTimeout()}` : ''}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
