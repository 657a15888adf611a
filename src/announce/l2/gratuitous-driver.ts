/**
 * The gratuitous schedule (gratuitous-schedule.ts) on the one MachineDriver: each event is stepped at the runtime's
 * `now`, every burst is handed to `send`, and a `tick` is dispatched when the clock reaches the schedule's next
 * deadline (never before it, so a tick always finds its burst due).
 */
import { MachineDriver, type MachineStep } from '../../runtime/machine-driver';
import type { Clock, Scheduler } from '../../runtime/runtime';
import {
  EMPTY_GRATUITOUS_STATE,
  reduceGratuitous,
  type GratuitousBurst,
  type GratuitousConfig,
  type GratuitousEvent,
  type GratuitousState,
} from './gratuitous-schedule';

/** reduceGratuitous's step in the driver's shape: the bursts are the effects. */
interface GratuitousDriverStep extends MachineStep<GratuitousState, GratuitousBurst> {
  readonly nextDeadline: number | undefined;
}

export type GratuitousDriver = MachineDriver<GratuitousState, GratuitousEvent, GratuitousBurst, GratuitousDriverStep>;

const TICK: GratuitousEvent = { kind: 'tick' };

export function gratuitousDriver(
  runtime: Clock & Scheduler,
  config: GratuitousConfig,
  send: (burst: GratuitousBurst) => void,
): GratuitousDriver {
  return new MachineDriver<GratuitousState, GratuitousEvent, GratuitousBurst, GratuitousDriverStep>(
    {
      runtime,
      step: (state, event, now) => {
        const { state: next, bursts, nextDeadline } = reduceGratuitous(state, event, now, config);
        return { state: next, effects: bursts, nextDeadline };
      },
      perform: send,
      deadline: { of: (step) => step.nextDeadline, event: TICK },
    },
    EMPTY_GRATUITOUS_STATE,
  );
}
