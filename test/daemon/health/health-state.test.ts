// The rise/fall reducer: the first probe decides, then `fall` failures in a row fail a passing check and `rise`
// passes in a row bring it back; anything less leaves the verdict alone. Every flip says why.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type HealthState,
  type HealthStep,
  initialHealthState,
  reduceHealth,
  withThresholds,
} from '../../../src/daemon/health/health-state';

const pass = { ok: true, detail: 'HTTP 200' };
const failure = { ok: false, detail: 'HTTP 503' };

/** Feeds probe outcomes one second apart from t=1000; returns every step. */
function run(outcomes: boolean[], thresholds = { rise: 2, fall: 3 }): HealthStep[] {
  let state: HealthState = initialHealthState(thresholds, 0);
  return outcomes.map((ok, i) => {
    const step = reduceHealth(state, ok ? pass : failure, 1000 * (i + 1));
    state = step.state;
    return step;
  });
}

describe('reduceHealth', () => {
  it('starts unknown, and the first probe decides at once either way', () => {
    expect(initialHealthState({ rise: 2, fall: 2 }, 5)).toMatchObject({ status: 'unknown', since: 5, detail: '' });
    const [up] = run([true]);
    expect(up?.state).toMatchObject({ status: 'passing', since: 1000, detail: 'HTTP 200' });
    expect(up?.changed).toEqual({ from: 'unknown', to: 'passing', cause: 'firstProbe', reason: 'first probe passed: HTTP 200' });
    const [down] = run([false]);
    expect(down?.changed).toEqual({ from: 'unknown', to: 'failing', cause: 'firstProbe', reason: 'first probe failed: HTTP 503' });
  });

  it('fails a passing check only after `fall` failures in a row, naming the count and the last detail', () => {
    const steps = run([true, false, false, false]);
    expect(steps.map((s) => s.state.status)).toEqual(['passing', 'passing', 'passing', 'failing']);
    expect(steps[3]?.changed).toEqual({
      from: 'passing',
      to: 'failing',
      cause: 'fall',
      reason: '3 consecutive probes failed (fall 3): HTTP 503',
    });
    expect(steps[3]?.state.since).toBe(4000);
    expect(steps[1]?.changed).toBeUndefined();
  });

  it('a pass between failures starts the count again', () => {
    const steps = run([true, false, false, true, false, false]);
    expect(steps.every((s) => s.state.status === 'passing')).toBe(true);
  });

  it('brings a failing check back only after `rise` passes in a row', () => {
    const steps = run([false, true, false, true, true]);
    expect(steps.map((s) => s.state.status)).toEqual(['failing', 'failing', 'failing', 'failing', 'passing']);
    expect(steps[4]?.changed).toEqual({
      from: 'failing',
      to: 'passing',
      cause: 'rise',
      reason: '2 consecutive probes passed (rise 2): HTTP 200',
    });
  });

  it('keeps `since` at the last flip while the verdict holds, and records every probe', () => {
    const steps = run([true, true, false]);
    expect(steps[2]?.state).toMatchObject({ since: 1000, lastProbeAt: 3000, failures: 1, passes: 0, detail: 'HTTP 503' });
  });

  it('new thresholds apply to the counts so far', () => {
    let state = run([true, false], { rise: 2, fall: 5 })[1]?.state as HealthState;
    state = withThresholds(state, { rise: 2, fall: 2 });
    expect(reduceHealth(state, failure, 9).changed?.to).toBe('failing');
  });

  it('property: the verdict is what the last rise/fall run of outcomes says', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 5 }),
        (outcomes, rise, fall) => {
          const steps = run(outcomes, { rise, fall });
          // Model: start from the first outcome, then flip only on a run of the needed length.
          let expected = outcomes[0] as boolean;
          let run_ = 0;
          for (const ok of outcomes.slice(1)) {
            run_ = ok === expected ? 0 : run_ + 1;
            if (run_ >= (expected ? fall : rise)) {
              expected = ok;
              run_ = 0;
            }
          }
          expect(steps.at(-1)?.state.status).toBe(expected ? 'passing' : 'failing');
          // A change is reported exactly when the status differs from the previous step's.
          steps.forEach((s, i) => {
            const before = i === 0 ? 'unknown' : steps[i - 1]?.state.status;
            expect(s.changed !== undefined).toBe(s.state.status !== before);
          });
        },
      ),
    );
  });
});
