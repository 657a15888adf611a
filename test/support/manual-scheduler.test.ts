// The hand-moved clock the HealthMonitor and SelfChecker tests run on: callbacks fire at their own deadline, in
// order, with the promises they start settled before the next one; cancel and every() behave as the real ones;
// a timer loop that never lets time pass fails instead of hanging the test.
import { describe, expect, it } from 'vitest';
import { ManualScheduler } from './manual-scheduler';

describe('ManualScheduler', () => {
  it('fires each callback at its deadline, in deadline order, and only when advanced that far', async () => {
    const clock = new ManualScheduler(1_000);
    const fired: string[] = [];
    clock.after(300, () => fired.push(`b@${clock.now()}`));
    clock.at(1_100, () => fired.push(`a@${clock.now()}`));
    clock.after(300, () => fired.push(`c@${clock.now()}`));
    await clock.advance(299);
    expect(fired).toEqual(['a@1100']);
    await clock.advance(1);
    expect(fired).toEqual(['a@1100', 'b@1300', 'c@1300']);
    expect(clock.now()).toBe(1_300);
  });

  it('lets the promises a callback starts settle before the next callback runs', async () => {
    const clock = new ManualScheduler();
    const seen: string[] = [];
    clock.after(
      10,
      () =>
        void Promise.resolve()
          .then(() => Promise.resolve())
          .then(() => seen.push('first finished')),
    );
    clock.after(10, () => seen.push('second ran'));
    await clock.advance(10);
    expect(seen).toEqual(['first finished', 'second ran']);
  });

  it('repeats every() until cancelled, and a cancelled timer never fires', async () => {
    const clock = new ManualScheduler();
    let ticks = 0;
    const tick = clock.every(100, () => ticks++);
    const never = clock.after(50, () => {
      throw new Error('cancelled');
    });
    never.cancel();
    await clock.advance(350);
    expect(ticks).toBe(3);
    tick.cancel();
    await clock.advance(1_000);
    expect(ticks).toBe(3);
    expect(clock.pending).toBe(0);
  });

  it('fails, naming the instant, when timers keep re-arming without time passing', async () => {
    const clock = new ManualScheduler();
    const rearm = (): void => void clock.after(0, rearm);
    clock.after(5, rearm);
    await expect(clock.advance(10)).rejects.toThrow(/keep firing at 5/);
  });
});
