import { describe, expect, test } from 'vitest';
import { EMPTY_BROADCAST_QUEUE, enqueueBroadcast, pruneBroadcasts, takeBroadcasts, type BroadcastQueue } from '../../../src/gossip/swim';
import type { GossipMessage } from '../../../src/gossip/messages';

const user = (text: string): GossipMessage => ({ type: 'user', payload: new TextEncoder().encode(text) });

function queueOf(entries: { key?: string; text: string; notify?: 'leave' }[]): BroadcastQueue {
  let q = EMPTY_BROADCAST_QUEUE;
  for (const e of entries) {
    q = enqueueBroadcast(q, {
      ...(e.key ? { key: e.key } : {}),
      message: user(e.text),
      size: e.text.length,
      ...(e.notify ? { notify: e.notify } : {}),
    }).queue;
  }
  return q;
}

const texts = (messages: readonly GossipMessage[]): string[] =>
  messages.map((m) => (m.type === 'user' ? new TextDecoder().decode(m.payload) : m.type));

describe('transmit-limited queue (memberlist queue.go)', () => {
  test('fewest transmits first, then largest, then newest', () => {
    const q = queueOf([{ text: 'aa' }, { text: 'bbbb' }, { text: 'cc' }]);
    expect(texts(q.items.map((i) => i.message))).toEqual(['bbbb', 'cc', 'aa']);
    const first = takeBroadcasts(q, 2, 1000, 3);
    expect(texts(first.messages)).toEqual(['bbbb', 'cc', 'aa']);
    expect(first.queue.items.map((i) => i.transmits)).toEqual([1, 1, 1]);
    // A new broadcast (0 transmits) goes ahead of the ones already sent once.
    const withNew = enqueueBroadcast(first.queue, { message: user('d'), size: 1 }).queue;
    expect(texts(takeBroadcasts(withNew, 2, 1000, 3).messages)).toEqual(['d', 'bbbb', 'cc', 'aa']);
  });

  test('each broadcast is sent exactly transmitLimit times, then leaves the queue', () => {
    let q = queueOf([{ text: 'x' }]);
    let sent = 0;
    for (let round = 0; round < 10; round++) {
      const taken = takeBroadcasts(q, 2, 100, 4);
      sent += taken.messages.length;
      q = taken.queue;
    }
    expect(sent).toBe(4);
    expect(q.items).toHaveLength(0);
  });

  test('packs by size: the largest that fits, then smaller ones, within the limit', () => {
    const q = queueOf([{ text: '1234567890' }, { text: '12345' }, { text: '123' }]);
    // limit 20, overhead 2: 10 fits (used 12), 5 fits (used 19), 3 does not (free 20 - 19 - 2 < 3).
    const taken = takeBroadcasts(q, 2, 20, 5);
    expect(texts(taken.messages)).toEqual(['1234567890', '12345']);
    expect(taken.queue.items.map((i) => [i.size, i.transmits])).toEqual([
      [3, 0],
      [10, 1],
      [5, 1],
    ]);
    // Nothing fits: the queue is unchanged.
    expect(takeBroadcasts(q, 2, 4, 5).queue).toBe(q);
  });

  test('a keyed broadcast replaces the older one with the same key (and finishes it)', () => {
    const q = queueOf([
      { key: 'node-a', text: 'suspect a', notify: 'leave' },
      { key: 'node-b', text: 'alive b' },
    ]);
    const change = enqueueBroadcast(q, { key: 'node-a', message: user('alive a'), size: 7 });
    expect(change.finished).toEqual(['leave']);
    expect(texts(change.queue.items.map((i) => i.message)).sort()).toEqual(['alive a', 'alive b']);
  });

  test('unkeyed broadcasts never replace each other', () => {
    const q = queueOf([{ text: 'same' }, { text: 'same' }]);
    expect(q.items).toHaveLength(2);
  });

  test('finishing a tagged broadcast by transmission reports it', () => {
    const q = queueOf([{ key: 'me', text: 'dead me', notify: 'leave' }]);
    const first = takeBroadcasts(q, 2, 100, 2);
    expect(first.finished).toEqual([]);
    const second = takeBroadcasts(first.queue, 2, 100, 2);
    expect(second.finished).toEqual(['leave']);
    expect(second.queue.items).toHaveLength(0);
  });

  test('maxMessages caps a take (compound messages hold at most 255 parts)', () => {
    const q = queueOf(Array.from({ length: 10 }, (_, i) => ({ text: `m${i}` })));
    expect(takeBroadcasts(q, 2, 10_000, 3, 4).messages).toHaveLength(4);
  });

  test('prune keeps the least transmitted', () => {
    let q = queueOf([{ text: 'old' }]);
    q = takeBroadcasts(q, 2, 100, 5).queue;
    q = enqueueBroadcast(q, { message: user('new'), size: 3 }).queue;
    expect(texts(pruneBroadcasts(q, 1).queue.items.map((i) => i.message))).toEqual(['new']);
  });
});
