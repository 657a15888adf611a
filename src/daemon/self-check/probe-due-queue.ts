/**
 * The self-check schedule's probes that wait, by due time: a binary min-heap on (due time, owned order) beside the
 * schedule's map of probes, so that a pass takes the few probes due and reads when the next one is due without
 * looking at every owned pair. With 10,000 owned IPs the self-check makes about ten passes a second (the rate
 * limit's pace), and three walks over every pair in each were most of an idle daemon's CPU.
 *
 * An entry is current while its probe in the map still waits with that due time; taking a probe, finishing it
 * again or dropping it leaves the old entry behind, skipped when it reaches the top (lazy deletion). A new map of
 * probes (a new owned set, a membership change) gets a new queue, built from it in one pass.
 */
import { TimeOrderHeap } from '../../runtime/time-order-heap';

/** The part of a scheduled probe the queue reads. */
export interface QueuedProbe {
  readonly key: string;
  readonly dueAt: number;
  readonly inFlight: boolean;
}

interface Entry {
  readonly key: string;
  /** When the probe is due. */
  readonly time: number;
  /** Position in the map when the queue was built: equal due times are taken in owned order. */
  readonly order: number;
}

export class ProbeDueQueue {
  private readonly heap: TimeOrderHeap<Entry>;
  private readonly order = new Map<string, number>();
  /** Probes in flight (released ones included: they hold their slot until they end). */
  inFlight = 0;

  /** Over `probes`, the map the schedule keeps and changes in place; the queue follows it through push(). */
  constructor(private readonly probes: ReadonlyMap<string, QueuedProbe>) {
    const waiting: Entry[] = [];
    for (const p of probes.values()) {
      this.order.set(p.key, this.order.size);
      if (p.inFlight) this.inFlight++;
      else waiting.push({ key: p.key, time: p.dueAt, order: this.order.size - 1 });
    }
    this.heap = new TimeOrderHeap(waiting);
  }

  /** `key` now waits until `dueAt` (its probe in the map says so already). */
  push(key: string, dueAt: number): void {
    this.heap.push({ key, time: dueAt, order: this.order.get(key) ?? this.order.size });
  }

  /** When the earliest waiting probe is due; undefined when none waits. */
  nextDueAt(): number | undefined {
    return this.top()?.time;
  }

  /** Removes and returns the key of the earliest waiting probe due by `now`; undefined when none is. */
  takeDue(now: number): string | undefined {
    const top = this.top();
    if (!top || top.time > now) return undefined;
    this.heap.pop();
    return top.key;
  }

  /** The earliest current entry, after dropping the stale ones above it. */
  private top(): Entry | undefined {
    for (;;) {
      const e = this.heap.peek();
      if (!e) return undefined;
      const p = this.probes.get(e.key);
      if (p && !p.inFlight && p.dueAt === e.time) return e;
      this.heap.pop();
    }
  }
}
