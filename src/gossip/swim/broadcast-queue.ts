import type { GossipMessage } from '../messages';

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
}

export const EMPTY_BROADCAST_QUEUE: BroadcastQueue = Object.freeze({ items: Object.freeze([]), lastId: 0 });

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

/** Where `item` goes in `sorted` (send order, a strict total order: ids are unique). */
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

function finishedOf(items: readonly QueuedBroadcast[]): BroadcastNotify[] {
  return items.flatMap((i) => (i.notify ? [i.notify] : []));
}

export interface NewBroadcast {
  readonly key?: string;
  readonly message: GossipMessage;
  readonly size: number;
  readonly notify?: BroadcastNotify;
}

/** Queues a broadcast at zero transmits; a keyed one replaces (and finishes) the queued one with its key. */
export function enqueueBroadcast(queue: BroadcastQueue, broadcast: NewBroadcast): QueueChange {
  const replaced = broadcast.key === undefined ? [] : queue.items.filter((i) => i.key === broadcast.key);
  const kept = replaced.length === 0 ? [...queue.items] : queue.items.filter((i) => i.key !== broadcast.key);
  // memberlist restarts its id counter when the queue empties; ids only order items that coexist.
  const id = (kept.length === 0 ? 0 : queue.lastId) + 1;
  const item: QueuedBroadcast = { ...broadcast, id, transmits: 0 };
  // `kept` is in send order already: one binary-searched insertion, not a sort of the whole queue (a node that
  // learns a thousand members at a join queues a thousand alive messages, each into a queue of up to a thousand).
  kept.splice(insertionPoint(kept, item), 0, item);
  return { queue: { items: kept, lastId: id }, finished: finishedOf(replaced) };
}

export interface Taken extends QueueChange {
  readonly messages: readonly GossipMessage[];
}

/**
 * Takes what fits in `limit` bytes, charging `overhead` per message (the compound length field), fewest
 * transmits first and, among equals, the largest that fits. Each taken broadcast counts one transmit and
 * leaves the queue on reaching transmitLimit.
 */
export function takeBroadcasts(
  queue: BroadcastQueue,
  overhead: number,
  limit: number,
  transmitLimit: number,
  maxMessages: number = Number.POSITIVE_INFINITY,
): Taken {
  if (queue.items.length === 0) return { queue, messages: [], finished: [] };
  let used = 0;
  const messages: GossipMessage[] = [];
  const kept: QueuedBroadcast[] = [];
  const finished: BroadcastNotify[] = [];
  for (const item of queue.items) {
    const free = limit - used - overhead;
    if (free <= 0 || messages.length >= maxMessages || item.size > free) {
      kept.push(item);
      continue;
    }
    used += overhead + item.size;
    messages.push(item.message);
    if (item.transmits + 1 >= transmitLimit) {
      if (item.notify) finished.push(item.notify);
    } else {
      kept.push({ ...item, transmits: item.transmits + 1 });
    }
  }
  if (messages.length === 0) return { queue, messages, finished };
  kept.sort(sendOrder);
  const lastId = kept.length === 0 ? 0 : queue.lastId;
  return { queue: { items: kept, lastId }, messages, finished };
}

/** Drops the most transmitted (then smallest, oldest) broadcasts beyond maxRetain (memberlist Prune). */
export function pruneBroadcasts(queue: BroadcastQueue, maxRetain: number): QueueChange {
  if (queue.items.length <= maxRetain) return { queue, finished: [] };
  const kept = queue.items.slice(0, maxRetain);
  return { queue: { items: kept, lastId: queue.lastId }, finished: finishedOf(queue.items.slice(maxRetain)) };
}
