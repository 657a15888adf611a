/**
 * The memory network's agenda: a binary min-heap of callbacks on (time, insertion order), so that work
 * scheduled for the same virtual instant runs in the order it was scheduled (deterministic runs).
 */
interface Scheduled {
  readonly time: number;
  readonly order: number;
  readonly run: () => void;
}

/** A binary min-heap on (time, insertion order): equal times run in the order they were scheduled. */
export class EventQueue {
  private readonly heap: Scheduled[] = [];
  private order = 0;

  get size(): number {
    return this.heap.length;
  }

  peekTime(): number {
    return this.heap[0]?.time ?? Number.POSITIVE_INFINITY;
  }

  push(time: number, run: () => void): void {
    const item = { time, order: this.order++, run };
    const h = this.heap;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  pop(): Scheduled | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: Scheduled, b: Scheduled): boolean {
  return a.time < b.time || (a.time === b.time && a.order < b.order);
}
