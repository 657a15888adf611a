import { describe, expect, test } from 'vitest';
import { MAX_TASKS_PER_INSTANT, VIRTUAL_EPOCH_MS, VirtualNetwork, virtualRuntime } from '../../src/runtime';

describe('virtual clock and scheduler', () => {
  test('time moves only when the test advances it, and timers fire in (time, arming) order', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const fired: string[] = [];
    rt.after(20, () => fired.push('b@20'));
    rt.after(10, () => fired.push('a@10'));
    rt.after(20, () => fired.push('c@20'));
    expect(rt.now()).toBe(VIRTUAL_EPOCH_MS);
    await rt.advance(15);
    expect(fired).toEqual(['a@10']);
    expect(rt.now()).toBe(VIRTUAL_EPOCH_MS + 15);
    await rt.advance(5);
    expect(fired).toEqual(['a@10', 'b@20', 'c@20']);
  });

  test('a timer never fires before its deadline, and sees now() at its deadline', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const deadline = rt.now() + 100;
    const seen: number[] = [];
    rt.at(deadline, () => seen.push(rt.now()));
    await rt.advance(99.999);
    expect(seen).toEqual([]);
    await rt.advance(0.001);
    expect(seen).toEqual([deadline]);
  });

  test('a fractional deadline armed at a fractional instant fires once now() has reached it, and does not spin', async () => {
    // A packet arrives at a fractional instant (latency and jitter); the reducer it wakes asks for a tick at a
    // fractional deadline a hair earlier (the fast profile's suspicion timeout at 50 nodes is 1018.8 ms).
    const net = new VirtualNetwork({ seed: 1 });
    const rt = net.host('192.0.2.10');
    const start = rt.now();
    const seen: number[] = [];
    // What MachineDriver does: a tick that finds its deadline not yet due (now() < at) arms it again.
    const arm = (at: number): void => {
      rt.at(at, () => {
        if (rt.now() < at) arm(at);
        else seen.push(rt.now());
      });
    };
    net.clock.schedule(start + 10.8, () => arm(start + 10.5));
    await rt.advance(20);
    expect(seen).toEqual([start + 11]);
  });

  test('a deadline already past fires on the next turn, never inside at()', async () => {
    const rt = virtualRuntime({ seed: 1 });
    let fired = false;
    rt.at(rt.now() - 1_000, () => (fired = true));
    expect(fired).toBe(false);
    await rt.advance(0);
    expect(fired).toBe(true);
  });

  test('async work a task starts settles before the next task runs', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const order: string[] = [];
    rt.after(10, () => {
      void (async () => {
        await Promise.resolve();
        await new Promise<void>((resolve) => queueMicrotask(resolve));
        order.push('continuation of first');
        rt.after(0, () => order.push('timer armed by the continuation'));
      })();
    });
    rt.after(10, () => order.push('second'));
    await rt.advance(10);
    expect(order).toEqual(['continuation of first', 'second', 'timer armed by the continuation']);
  });

  test('cancel stops a timer; cancelling twice or after it ran does nothing', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const fired: string[] = [];
    const a = rt.after(10, () => fired.push('a'));
    const b = rt.after(10, () => fired.push('b'));
    a.cancel();
    a.cancel();
    await rt.advance(10);
    b.cancel();
    expect(fired).toEqual(['b']);
  });

  test('every repeats at its period until cancelled', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const start = rt.now();
    const at: number[] = [];
    const timer = rt.every(100, () => at.push(rt.now() - start));
    await rt.advance(350);
    timer.cancel();
    await rt.advance(1_000);
    expect(at).toEqual([100, 200, 300]);
  });

  test('runUntil stops at the instant the predicate first holds, or resolves false at its timeout', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const start = rt.now();
    let count = 0;
    rt.every(50, () => count++);
    expect(await rt.runUntil(() => count === 3, { timeoutMs: 1_000 })).toBe(true);
    expect(rt.now() - start).toBe(150);
    expect(await rt.runUntil(() => count === 100, { timeoutMs: 200 })).toBe(false);
    expect(rt.now() - start).toBe(350);
    expect(count).toBe(7);
  });

  test('a task that re-arms itself at the same instant fails the run instead of hanging it', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const spin = (): void => void rt.at(rt.now(), spin);
    spin();
    await expect(rt.advance(1)).rejects.toThrow(String(MAX_TASKS_PER_INSTANT));
  }, 120_000);

  test('randomness is reproducible from the seed, and differs between hosts', () => {
    const draws = (seed: number): number[][] => {
      const net = new VirtualNetwork({ seed });
      const a = net.host('10.0.0.1');
      const b = net.host('10.0.0.2');
      return [
        [a.randomInt(1_000), a.randomInt(1_000), a.random()],
        [b.randomInt(1_000), b.randomInt(1_000), b.random()],
      ];
    };
    expect(draws(7)).toEqual(draws(7));
    expect(draws(7)).not.toEqual(draws(8));
    const [a, b] = draws(7);
    expect(a).not.toEqual(b);
    expect(() => virtualRuntime({ seed: 1 }).randomInt(0)).toThrow(RangeError);
  });

  test('a starved host runs its tasks late, each costing its CPU time; other hosts keep time', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const busy = net.host('10.0.0.1');
    const idle = net.host('10.0.0.2');
    const start = net.now();
    net.starve('10.0.0.1', 30);
    const ranAt: Record<string, number[]> = { busy: [], idle: [] };
    for (let i = 0; i < 3; i++) {
      busy.after(10, () => ranAt.busy!.push(net.now() - start));
      idle.after(10, () => ranAt.idle!.push(net.now() - start));
    }
    await net.advance(200);
    expect(ranAt.idle).toEqual([10, 10, 10]);
    expect(ranAt.busy).toEqual([10, 40, 70]);
  });

  test('a crashed host never fires its timers', async () => {
    const net = new VirtualNetwork({ seed: 1 });
    const rt = net.host('10.0.0.1');
    let fired = 0;
    rt.every(10, () => fired++);
    await net.advance(25);
    net.crash('10.0.0.1');
    await net.advance(100);
    expect(fired).toBe(2);
  });
});
