/**
 * A binary min-heap on (time, order): the earliest time first, equal times in ascending order. Both agendas of mlb
 * keep one: the in-memory network's and the virtual clock's events (src/gossip/swim/event-queue.ts, where order is
 * the insertion count, so work due at the same instant runs as it was scheduled) and the self-check's waiting
 * probes (src/daemon/self-check/probe-due-queue.ts, where it is the owned order). Pure.
 *
 * Both are hot paths (a gossip simulation steps millions of events), so push and pop allocate nothing: the entry
 * moving up or down is held aside and the others are shifted into the hole it leaves, one write per level.
 */

/** What the heap orders by. */
export interface TimeOrdered {
  readonly time: number;
  readonly order: number;
}

export class TimeOrderHeap<T extends TimeOrdered> {
  private readonly items: T[];

  /** A heap of `items` (taken over, not copied), ordered in one O(n) pass. */
  constructor(items: T[] = []) {
    this.items = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.down(i, items[i]!);
  }

  get size(): number {
    return this.items.length;
  }

  /** The earliest entry, left in place; undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const h = this.items;
    let i = h.length;
    h.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent]!;
      if (!before(item, p)) break;
      h[i] = p;
      i = parent;
    }
    h[i] = item;
  }

  /** Removes and returns the earliest entry; undefined when empty. */
  pop(): T | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) this.down(0, last);
    return top;
  }

  /** Puts `item` at `from` and moves it down to where neither child comes before it. */
  private down(from: number, item: T): void {
    const h = this.items;
    const n = h.length;
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      let child = h[l]!;
      if (r < n && before(h[r]!, child)) {
        m = r;
        child = h[r]!;
      }
      if (!before(child, item)) break;
      h[i] = child;
      i = m;
    }
    h[i] = item;
  }
}

function before(a: TimeOrdered, b: TimeOrdered): boolean {
  return a.time < b.time || (a.time === b.time && a.order < b.order);
}
