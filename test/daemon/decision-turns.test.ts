// The speaker's decisions run one at a time and give the event loop back between their turns, so gossip probes
// that arrive during a long decision are answered before it ends (src/daemon/decision-turns.ts).
import { describe, expect, it } from 'vitest';
import { DecisionTurns, type Turn } from '../../src/daemon/decision-turns';
import { ManualRuntime } from '../support/manual-runtime';

function harness(decide: (turn: Turn, n: number) => Promise<number | undefined>) {
  const runtime = new ManualRuntime();
  const log: string[] = [];
  let n = 0;
  const turns = new DecisionTurns({
    runtime,
    decide: (turn) => decide(turn, ++n),
    decided: (longest, services) => log.push(`decided ${services} (longest turn ${longest} ms)`),
    failed: (error) => log.push(`failed: ${error.message}`),
  });
  return { runtime, log, turns };
}

describe('DecisionTurns', () => {
  it('lets a task that arrived during a turn run before the next turn', async () => {
    const { runtime, log, turns } = harness(async (turn) => {
      log.push('turn 1');
      runtime.after(0, () => log.push('a probe answered')); // arrives while turn 1 holds the loop
      await turn();
      log.push('turn 2');
      return 10;
    });
    turns.request();
    await runtime.advanceBy(0);
    expect(log).toEqual(['turn 1', 'a probe answered', 'turn 2', 'decided 10 (longest turn 0 ms)']);
  });

  it('folds requests made during a decision into one next decision, which starts only after it ended', async () => {
    const { runtime, log, turns } = harness(async (turn, n) => {
      log.push(`start ${n}`);
      if (n === 1) turns.request();
      await turn();
      if (n === 1) turns.request();
      log.push(`end ${n}`);
      return n === 1 ? 5 : undefined; // the second finds nothing to decide: nothing is reported for it
    });
    turns.request();
    turns.request();
    await runtime.advanceBy(0);
    expect(log).toEqual(['start 1', 'end 1', 'decided 5 (longest turn 0 ms)', 'start 2', 'end 2']);
  });

  it('measures the longest turn, not the whole decision', async () => {
    const manual = new ManualRuntime();
    // CPU time as the decision spends it: each turn moves this clock on while the manual timers stay put.
    let cpu = 0;
    const runtime = {
      now: () => cpu,
      at: (at: number, fire: () => void) => manual.at(at, fire),
      after: (ms: number, fire: () => void) => manual.after(ms, fire),
      every: (ms: number, fire: () => void) => manual.every(ms, fire),
    };
    const held: number[] = [];
    const turns = new DecisionTurns({
      runtime,
      decide: async (turn) => {
        cpu += 120;
        await turn();
        cpu += 300;
        await turn();
        cpu += 80;
        return 10_000;
      },
      decided: (longest) => held.push(longest),
      failed: (error) => held.push(Number.NaN, error.message.length),
    });
    turns.request();
    await manual.advanceBy(0);
    expect(held).toEqual([300]);
  });

  it('reports a decision that threw, and still runs the next one asked for', async () => {
    const { runtime, log, turns } = harness(async (turn, n) => {
      await turn();
      if (n === 1) {
        turns.request();
        throw new Error('boom');
      }
      return 3;
    });
    turns.request();
    await runtime.advanceBy(0);
    expect(log).toEqual(['failed: boom', 'decided 3 (longest turn 0 ms)']);
  });
});
