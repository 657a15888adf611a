import type { GossipMessage } from '../messages';
import { LayeredMap } from './layered-map';

/**
 * memberlist's TransmitLimitedQueue (queue.go) as an immutable value. Broadcasts wait here until they have been
 * piggybacked or gossiped transmitLimit times (RetransmitMult x ceil(log10(n + 1))). Fewest transmits go first,
 * then the largest message that still fits, then the newest. A broadcast with a key replaces the queued one
 * with the same key (memberlist names node broadcasts by node: a newer alive/suspect/dead about a node makes
 * the older one pointless); one without a key is never replaced.
 */

/** Who waits for a broadcast to be finished (sent transmitLimit times, or replaced). */
export type BroadcastNotify = 'leave';

export interface QueuedBroadcast {
  /** Stamped at submission, increasing: ties between equal transmits and sizes favour the newest. */
  readonly id: number;
  readonly key?: string;
  readonly message: GossipMessage;
  /** Encoded bytes (message-size.ts): what the packet budget is charged. */
  readonly size: number;
  readonly transmits: number;
  readonly notify?: BroadcastNotify;
}

export interface BroadcastQueue {
  /** Kept in send order: transmits ascending, size descending, id descending. */
  readonly items: readonly QueuedBroadcast[];
  readonly lastId: number;
  /**
   * Each key's item as it was queued (0 transmits): what a new broadcast about the same node replaces, found by
   * a few binary searches (one per transmit count) instead of a scan. Written only by enqueue, so a take, which
   * bumps every item it sends, writes no index; an entry whose item has left the queue is found nowhere.
   */
  readonly byKey: ReadonlyMap<string, QueuedBroadcast>;
}

export const EMPTY_BROADCAST_QUEUE: BroadcastQueue = Object.freeze({ items: Object.freeze([]), lastId: 0, byKey: new Map() });

export interface QueueChange {
  readonly queue: BroadcastQueue;
  /** Notifications of broadcasts that finished (replaced, or sent their last time) in this change. */
  readonly finished: readonly BroadcastNotify[];
}

function sendOrder(a: QueuedBroadcast, b: QueuedBroadcast): number {
  if (a.transmits !== b.transmits) return a.transmits - b.transmits;
  if (a.size !== b.size) return b.size - a.size;
  return b.id - a.id;
}

/** Where `item` goes in `sorted` (send order, a strict total order: ids are unique); where it is, if it is there. */
function insertionPoint(sorted: readonly QueuedBroadcast[], item: QueuedBroadcast): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sendOrder(sorted[mid]!, item) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface NewBroadcast {
  readonly key?: string;
  readonly message: GossipMessage;
  readonly size: number;
  readonly notify?: BroadcastNotify;
}

export interface Taken {
  readonly messages: readonly GossipMessage[];
  /** Bytes the taken messages use, their overhead included. */
  readonly used: number;
  /** Notifications of broadcasts that sent their last time in this take. */
  readonly finished: readonly BroadcastNotify[];
}

/**
 * A writable copy of a BroadcastQueue for the length of one reducer step (draft.ts): the step may enqueue a
 * thousand alive messages (a push/pull at a join) and take from the queue for every packet it sends, so the
 * items are copied once, on the first write, not on every change, and the key index is a LayeredMap (copied
 * only where written). `value()` hands out the queue as it stands; the next write copies again, so a value
 * once handed out never changes.
 */
export class QueueDraft {
  private items: QueuedBroadcast[];
  private owned = false;
  private byKey: LayeredMap<string, QueuedBroadcast>;
  private lastId: number;

  private constructor(queue: BroadcastQueue) {
    this.items = queue.items as QueuedBroadcast[];
    this.byKey = LayeredMap.over(queue.byKey);
    this.lastId = queue.lastId;
  }

  static over(queue: BroadcastQueue): QueueDraft {
    return new QueueDraft(queue);
  }

  /** The queue in send order (read only: the draft may share it). */
  get queued(): readonly QueuedBroadcast[] {
    return this.items;
  }

  /** Queues a broadcast at zero transmits; a keyed one replaces (and finishes) the queued one with its key. */
  enqueue(broadcast: NewBroadcast): BroadcastNotify[] {
    this.own();
    const finished: BroadcastNotify[] = [];
    const at = broadcast.key === undefined ? -1 : this.positionOf(broadcast.key);
    if (at >= 0) {
      const old = this.items[at]!;
      this.items.splice(at, 1);
      if (old.notify) finished.push(old.notify);
    }
    // memberlist restarts its id counter when the queue empties; ids only order items that coexist.
    const id = (this.items.length === 0 ? 0 : this.lastId) + 1;
    this.lastId = id;
    const item: QueuedBroadcast = { ...broadcast, id, transmits: 0 };
    // The items are in send order already: one binary-searched insertion, not a sort of the whole queue.
    this.items.splice(insertionPoint(this.items, item), 0, item);
    if (item.key !== undefined) this.byKey.set(item.key, item);
    return finished;
  }

  /**
   * Takes what fits in `limit` bytes, charging `overhead` per message (the compound length field), fewest
   * transmits first and, among equals, the largest that fits. Each taken broadcast counts one transmit and
   * leaves the queue on reaching transmitLimit.
   */
  take(overhead: number, limit: number, transmitLimit: number, maxMessages: number = Number.POSITIVE_INFINITY): Taken {
    const items = this.items;
    let used = 0;
    const messages: GossipMessage[] = [];
    const taken: number[] = [];
    for (let i = 0; i < items.length; i++) {
      const free = limit - used - overhead;
      // Nothing later can be taken either: the rest stays as it is.
      if (free <= 0 || messages.length >= maxMessages) break;
      const item = items[i]!;
      if (item.size > free) continue;
      used += overhead + item.size;
      messages.push(item.message);
      taken.push(i);
    }
    if (messages.length === 0) return { messages, used, finished: [] };
    const finished: BroadcastNotify[] = [];
    // Sent again: one more transmit each. Taken in send order and all moved by one transmit, they stay in send
    // order among themselves, as the untaken do: one merge of the two puts the queue back in order.
    const again: QueuedBroadcast[] = [];
    const kept: QueuedBroadcast[] = [];
    let next = 0;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (i !== taken[next]) {
        kept.push(item);
        continue;
      }
      next++;
      if (item.transmits + 1 >= transmitLimit) {
        if (item.notify) finished.push(item.notify);
        continue;
      }
      again.push({ ...item, transmits: item.transmits + 1 });
    }
    this.items = merge(kept, again);
    this.owned = true;
    if (this.items.length === 0) this.lastId = 0;
    return { messages, used, finished };
  }

  /** Drops the most transmitted (then smallest, oldest) broadcasts beyond maxRetain (memberlist Prune). */
  prune(maxRetain: number): BroadcastNotify[] {
    if (this.items.length <= maxRetain) return [];
    const dropped = this.items.slice(maxRetain);
    this.items = this.items.slice(0, maxRetain);
    this.owned = true;
    return finishedOf(dropped);
  }

  /** The queue as it stands, as an immutable value. */
  value(): BroadcastQueue {
    const queue: BroadcastQueue = { items: this.items, lastId: this.lastId, byKey: this.byKey };
    this.owned = false;
    this.byKey = LayeredMap.over(this.byKey);
    return queue;
  }

  /**
   * Where the item queued under `key` is now, or -1. It was queued as byKey holds it and has been sent some number
   * of times since (each send adds one transmit and changes nothing else): one binary search per transmit count
   * up to the most any item has. An id alone could name a later item (ids restart when the queue empties): the
   * key must match too.
   */
  private positionOf(key: string): number {
    const queued = this.byKey.get(key);
    const items = this.items;
    if (queued === undefined || items.length === 0) return -1;
    const most = items[items.length - 1]!.transmits;
    for (let transmits = queued.transmits; transmits <= most; transmits++) {
      const at = insertionPoint(items, { ...queued, transmits });
      const found = items[at];
      if (found !== undefined && found.id === queued.id && found.key === key) return at;
    }
    return -1;
  }

  private own(): void {
    if (this.owned) return;
    this.items = [...this.items];
    this.owned = true;
  }
}

function merge(a: readonly QueuedBroadcast[], b: readonly QueuedBroadcast[]): QueuedBroadcast[] {
  if (b.length === 0) return a as QueuedBroadcast[];
  const out: QueuedBroadcast[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(sendOrder(a[i]!, b[j]!) < 0 ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

function finishedOf(items: readonly QueuedBroadcast[]): BroadcastNotify[] {
  return items.flatMap((i) => (i.notify ? [i.notify] : []));
}

/** Queues a broadcast at zero transmits; a keyed one replaces (and finishes) the queued one with its key. */
export function enqueueBroadcast(queue: BroadcastQueue, broadcast: NewBroadcast): QueueChange {
  const draft = QueueDraft.over(queue);
  const finished = draft.enqueue(broadcast);
  return { queue: draft.value(), finished };
}

/** QueueDraft.take on a queue value; the same queue back when nothing was taken. */
export function takeBroadcasts(
  queue: BroadcastQueue,
  overhead: number,
  limit: number,
  transmitLimit: number,
  maxMessages: number = Number.POSITIVE_INFINITY,
): Taken & QueueChange {
  const draft = QueueDraft.over(queue);
  const taken = draft.take(overhead, limit, transmitLimit, maxMessages);
  return { ...taken, queue: taken.messages.length === 0 ? queue : draft.value() };
}

/** Drops the most transmitted (then smallest, oldest) broadcasts beyond maxRetain (memberlist Prune). */
export function pruneBroadcasts(queue: BroadcastQueue, maxRetain: number): QueueChange {
  if (queue.items.length <= maxRetain) return { queue, finished: [] };
  const draft = QueueDraft.over(queue);
  const finished = draft.prune(maxRetain);
  return { queue: draft.value(), finished };
}
