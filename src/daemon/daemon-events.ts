/**
 * What happened, in order: the control API's live event stream (`mlb status` shows the recent ones, a script can
 * follow them) and the "recent events" of a snapshot. Each event has a sequence number, so a client that
 * reconnects asks for what it missed. The log keeps the last EVENT_LOG_SIZE events in memory; the JSON logs are
 * the durable record.
 */
import { REAL_RUNTIME } from '../runtime/real-runtime';
import type { Clock } from '../runtime/runtime';
import type { UnheldReason } from './owner-history';

/** Enough for an operator's screen and a reconnect after a few seconds; small enough to copy into a snapshot. */
const EVENT_LOG_SIZE = 200;

interface EventBase {
  /** 1, 2, 3 ... within one daemon run. */
  readonly seq: number;
  /** ISO 8601. */
  readonly at: string;
}

export type DaemonEventBody =
  /**
   * An IP got new holders. unheldMs: how long nobody answered for it before (null when nobody holds it now), from a
   * crashed holder's last packet when every previous holder is gone; unheldReason says how it was measured and
   * detectionMs the failure detector's share (owner-history.ts). Both are optional: daemons before them sent neither.
   */
  | {
      readonly type: 'ownerChanged';
      readonly service: string;
      readonly protocol: 'layer2' | 'bgp';
      readonly ips: readonly string[];
      readonly from: readonly string[];
      readonly to: readonly string[];
      readonly unheldMs: number | null;
      readonly unheldReason?: UnheldReason;
      readonly detectionMs?: number | null;
    }
  | { readonly type: 'memberJoined' | 'memberLeft' | 'memberFailed' | 'memberUpdated'; readonly member: string }
  /** This node's own health check of a service flipped. */
  | { readonly type: 'healthChanged'; readonly service: string; readonly node: string; readonly passing: boolean; readonly detail: string }
  /** Another MAC answers for an IP this node announces (split brain, or the address configured elsewhere). */
  | {
      readonly type: 'conflict' | 'conflictCleared';
      readonly ip: string;
      readonly mac: string;
      readonly node: string | null;
      readonly interface: string;
    }
  | { readonly type: 'configReloaded'; readonly file: string }
  | { readonly type: 'configStale'; readonly file: string; readonly errors: readonly string[] }
  /** requestedBy: the node whose control socket was asked (absent from daemons before remote drain). */
  | { readonly type: 'drainChanged'; readonly draining: boolean; readonly requestedBy?: string };

export type DaemonEvent = EventBase & DaemonEventBody;

export type EventListener = (event: DaemonEvent) => void;

export class EventLog {
  private readonly events: DaemonEvent[] = [];
  private readonly listeners = new Set<EventListener>();
  private seq = 0;

  /** `clock`: what each event's `at` reads (the real one by default; a simulated node's virtual clock). */
  constructor(private readonly clock: Clock = REAL_RUNTIME) {}

  record(body: DaemonEventBody): DaemonEvent {
    const event = { ...body, seq: ++this.seq, at: new Date(this.clock.now()).toISOString() } as DaemonEvent;
    this.events.push(event);
    if (this.events.length > EVENT_LOG_SIZE) this.events.shift();
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A subscriber's failure (a client gone mid-write) must not stop the others or the daemon.
      }
    }
    return event;
  }

  /** Events after `afterSeq` still held (all held ones by default), oldest first. */
  since(afterSeq = 0): DaemonEvent[] {
    return this.events.filter((e) => e.seq > afterSeq);
  }

  /** The sequence number of the latest event (0 before any). */
  get lastSeq(): number {
    return this.seq;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
