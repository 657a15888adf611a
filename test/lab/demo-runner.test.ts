import { describe, expect, it } from 'vitest';
import { DemoRunner } from '../../src/cli/lab/demo-runner';

const ending = { failureLogs: () => [], keptText: () => 'kept' };

/** A runner on a clock the test moves, writing into `lines`. */
function runner(): { runner: DemoRunner; lines: string[]; clock: { t: number } } {
  const lines: string[] = [];
  const clock = { t: 1_000 };
  return { runner: new DemoRunner({ keep: false, write: (l) => lines.push(l), now: () => clock.t }), lines, clock };
}

describe('the demo runner', () => {
  it('stamps each line with the time since the demo started', () => {
    const { runner: r, lines, clock } = runner();
    clock.t += 3_200;
    r.say('hello');
    expect(lines).toEqual(['[  3.20 s] hello']);
  });

  it('ends a demo whose step fails with the reason, and reports it as failed', async () => {
    const { runner: r, lines, clock } = runner();
    const ok = await r.run(async () => {
      clock.t += 1_500;
      throw new Error('no answer from 10.213.0.200');
    }, ending);
    expect(ok).toBe(false);
    expect(lines).toEqual(['[  1.50 s] the demo stopped: no answer from 10.213.0.200']);
  });

  it('reports a demo whose steps all finish as passed, and says nothing of a lab it never built', async () => {
    const { runner: r, lines } = runner();
    const ok = await r.run(async () => r.say('a step'), ending);
    expect(ok).toBe(true);
    expect(lines).toEqual(['[  0.00 s] a step']);
  });
});
