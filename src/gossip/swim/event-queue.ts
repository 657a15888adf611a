/**
 * The memory network's agenda: callbacks on (time, insertion order), so that work scheduled for the same virtual
 * instant runs in the order it was scheduled (deterministic runs).
 */
import { TimeOrderHeap } from '../../runtime/time-order-heap';

interface Scheduled {
  readonly time: number;
  readonly order: number;
  readonly run: () => void;
}

/** Callbacks earliest time first: equal times run in the order they were scheduled. */
export class EventQueue {
  private readonly heap = new TimeOrderHeap<Scheduled>();
  private order = 0;

  get size(): number {
    return this.heap.size;
  }

  peekTime(): number {
    return this.heap.peek()?.time ?? Number.POSITIVE_INFINITY;
  }

  push(time: number, run: () => void): void {
    this.heap.push({ time, order: this.order++, run });
  }

  pop(): Scheduled | undefined {
    return this.heap.pop();
  }
}
