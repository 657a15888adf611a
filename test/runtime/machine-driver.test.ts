import { describe, expect, test } from 'vitest';
import { MachineDriver, virtualRuntime, type MachineStep, type VirtualRuntime } from '../../src/runtime';

/** A toy reducer: records every event it steps; 'fan' raises two more events through its effects. */
type Event = { type: 'fan' } | { type: 'note'; text: string } | { type: 'timeout' } | { type: 'arm'; at: number | undefined };
type Effect = { type: 'raise'; event: Event } | { type: 'say'; text: string };
interface State {
  readonly log: readonly string[];
  readonly deadline: number | undefined;
}
type Step = MachineStep<State, Effect>;

function reducer(state: State, event: Event, now: number): Step {
  const log = [...state.log, event.type === 'note' ? `note ${event.text}` : `${event.type}@${now}`];
  switch (event.type) {
    case 'fan':
      return {
        state: { ...state, log },
        effects: [
          { type: 'raise', event: { type: 'note', text: 'first' } },
          { type: 'say', text: 'fanned' },
          { type: 'raise', event: { type: 'note', text: 'second' } },
        ],
      };
    case 'arm':
      return { state: { log, deadline: event.at }, effects: [] };
    case 'timeout':
      return { state: { log, deadline: undefined }, effects: [] };
    default:
      return { state: { ...state, log }, effects: [] };
  }
}

function drive(rt: VirtualRuntime): { driver: MachineDriver<State, Event, Effect>; said: string[] } {
  const said: string[] = [];
  const driver: MachineDriver<State, Event, Effect> = new MachineDriver<State, Event, Effect>(
    {
      runtime: rt,
      step: reducer,
      perform: (effect) => {
        if (effect.type === 'raise') driver.dispatch(effect.event);
        else said.push(effect.text);
      },
      deadline: { of: (result) => result.state.deadline, event: { type: 'timeout' } },
    },
    { log: [], deadline: undefined },
  );
  return { driver, said };
}

describe('MachineDriver on the virtual runtime', () => {
  test('events raised while a step performs its effects wait, then run in order after it', () => {
    const rt = virtualRuntime({ seed: 1 });
    const { driver, said } = drive(rt);
    const result = driver.dispatch({ type: 'fan' });
    expect(result?.state.log).toEqual([`fan@${rt.now()}`]);
    expect(said).toEqual(['fanned']);
    expect(driver.state.log).toEqual([`fan@${rt.now()}`, 'note first', 'note second']);
  });

  test('the deadline timer dispatches at the deadline, never before; a new deadline replaces it; none clears it', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const { driver } = drive(rt);
    const t0 = rt.now();
    driver.dispatch({ type: 'arm', at: t0 + 100 });
    driver.dispatch({ type: 'arm', at: t0 + 300 });
    await rt.advance(299);
    expect(driver.state.log.filter((l) => l.startsWith('timeout'))).toEqual([]);
    await rt.advance(1);
    expect(driver.state.log.at(-1)).toBe(`timeout@${t0 + 300}`);
    expect(driver.armed('deadline')).toBe(false);

    driver.dispatch({ type: 'arm', at: rt.now() + 50 });
    expect(driver.armed('deadline')).toBe(true);
    driver.dispatch({ type: 'arm', at: undefined });
    expect(driver.armed('deadline')).toBe(false);
    await rt.advance(1_000);
    expect(driver.state.log.filter((l) => l.startsWith('timeout'))).toHaveLength(1);
  });

  test('a closed driver ignores events and its timers never fire', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const { driver } = drive(rt);
    driver.dispatch({ type: 'arm', at: rt.now() + 10 });
    driver.arm('other', rt.now() + 20, { type: 'note', text: 'other timer' });
    const before = driver.state.log;
    driver.close();
    expect(driver.dispatch({ type: 'note', text: 'after close' })).toBeUndefined();
    await rt.advance(100);
    expect(driver.state.log).toEqual(before);
    expect(driver.isClosed).toBe(true);
  });
});
