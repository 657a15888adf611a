import { createSocket } from 'node:dgram';
import { describe, expect, test } from 'vitest';
import { realScheduler } from '../../src/runtime/real-scheduler';
import type { Clock } from '../../src/runtime';

describe('realScheduler on the real event loop', () => {
  test("never fires before its deadline, even on a clock that runs behind Node's timers", async () => {
    // The epoch clock the reducers see runs at half the speed of Node's monotonic timers: a timer that trusted
    // setTimeout alone would fire when only half its time had passed by this clock.
    const start = Date.now();
    const lagging: Clock = { now: () => start + (Date.now() - start) / 2 };
    const scheduler = realScheduler(lagging);
    const deadline = lagging.now() + 20;
    const firedAt = await new Promise<number>((resolve) => scheduler.at(deadline, () => resolve(lagging.now())));
    expect(firedAt).toBeGreaterThanOrEqual(deadline);
  });

  test('a due timer runs after a datagram already waiting in the socket is read', async () => {
    const scheduler = realScheduler({ now: () => Date.now() });
    const receiver = createSocket('udp4');
    const sender = createSocket('udp4');
    await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
    const order: string[] = [];
    receiver.on('message', () => order.push('datagram'));
    try {
      // From the check phase: arm the timer, send the datagram, then block the loop past the deadline. The next
      // loop iteration runs due timers before it polls the socket, so only the scheduler's extra turn lets the
      // datagram waiting in the buffer be read before the deadline fires.
      const fired = new Promise<void>((resolve) =>
        setImmediate(() => {
          scheduler.after(1, () => {
            order.push('deadline');
            resolve();
          });
          sender.send('ack', receiver.address().port, '127.0.0.1');
          const until = Date.now() + 20;
          while (Date.now() < until) {
            /* a starved event loop */
          }
        }),
      );
      await fired;
      expect(order).toEqual(['datagram', 'deadline']);
    } finally {
      sender.close();
      receiver.close();
    }
  });

  test('a cancelled timer never fires', async () => {
    const scheduler = realScheduler({ now: () => Date.now() });
    let fired = false;
    scheduler.after(1, () => (fired = true)).cancel();
    await new Promise<void>((resolve) => scheduler.after(20, resolve));
    expect(fired).toBe(false);
  });
});
