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

/** The part of a scheduled probe the queue reads. */
export interface QueuedProbe {
  readonly key: string;
  readonly dueAt: number;
  readonly inFlight: boolean;
}

interface Entry {
  readonly key: string;
  readonly dueAt: number;
  /** Position in the map when the queue was built: equal due times are taken in owned order. */
  readonly order: number;
}

export class ProbeDueQueue {
  private readonly heap: Entry[] = [];
  private readonly order = new Map<string, number>();
  /** Probes in flight (released ones included: they hold their slot until they end). */
  inFlight = 0;

  /** Over `probes`, the map the schedule keeps and changes in place; the queue follows it through push(). */
  constructor(private readonly probes: ReadonlyMap<string, QueuedProbe>) {
    for (const p of probes.values()) {
      this.order.set(p.key, this.order.size);
      if (p.inFlight) this.inFlight++;
      else this.heap.push({ key: p.key, dueAt: p.dueAt, order: this.order.size - 1 });
    }
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** `key` now waits until `dueAt` (its probe in the map says so already). */
  push(key: string, dueAt: number): void {
    const h = this.heap;
    h.push({ key, dueAt, order: this.order.get(key) ?? this.order.size });
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  /** When the earliest waiting probe is due; undefined when none waits. */
  nextDueAt(): number | undefined {
    return this.top()?.dueAt;
  }

  /** Removes and returns the key of the earliest waiting probe due by `now`; undefined when none is. */
  takeDue(now: number): string | undefined {
    const top = this.top();
    if (!top || top.dueAt > now) return undefined;
    this.pop();
    return top.key;
  }

  /** The earliest current entry, after dropping the stale ones above it. */
  private top(): Entry | undefined {
    for (;;) {
      const e = this.heap[0];
      if (!e) return undefined;
      const p = this.probes.get(e.key);
      if (p && !p.inFlight && p.dueAt === e.dueAt) return e;
      this.pop();
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      this.down(0);
    }
  }

  private down(from: number): void {
    const h = this.heap;
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.order < b.order);
}
