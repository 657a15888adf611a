/**
 * The one way a pure protocol reducer is driven: events go through `dispatch` one at a time (an event raised
 * while effects run waits its turn, so a step never sees a half-applied state), every effect is performed in
 * order, and named timers dispatch their event when the runtime's clock reaches their deadline (never early).
 * GossipNode, BfdPeer, BgpSession and the L2 announcer's gratuitous schedule all run on it.
 */
import type { Clock, Scheduler, Timer } from './runtime';

/** What a reducer's step returns: at least the next state and the effects to perform. */
export interface MachineStep<S, F> {
  readonly state: S;
  readonly effects: readonly F[];
}

export interface MachineDriverOptions<S, E, F, R extends MachineStep<S, F>> {
  readonly runtime: Clock & Scheduler;
  readonly step: (state: S, event: E, now: number) => R;
  readonly perform: (effect: F) => void;
  /**
   * For reducers with a single deadline (the SWIM node, the gratuitous schedule): after each step the `deadline`
   * timer is armed to dispatch `event` at `of(result)`, or cleared when that is undefined or not finite.
   */
  readonly deadline?: { readonly of: (result: R) => number | undefined; readonly event: E };
  /** Called after every step, its effects performed: for whoever keeps a view of the state (it may have changed). */
  readonly afterStep?: () => void;
}

/** Key of the timer `deadline` arms. */
const DEADLINE_TIMER = 'deadline';

export class MachineDriver<S, E, F, R extends MachineStep<S, F> = MachineStep<S, F>> {
  private current: S;
  private readonly queue: E[] = [];
  private dispatching = false;
  private closed = false;
  private readonly timers = new Map<string, Timer>();
  /** Where the `deadline` timer was last armed. */
  private deadlineAt: number | undefined;

  constructor(
    private readonly options: MachineDriverOptions<S, E, F, R>,
    initial: S,
  ) {
    this.current = initial;
  }

  get state(): S {
    return this.current;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Applies a result computed outside the driver (a reducer's constructor): its state, its effects, its deadline.
   */
  start(result: R): void {
    this.current = result.state;
    for (const effect of result.effects) this.options.perform(effect);
    this.armDeadline(result);
  }

  /**
   * Steps the reducer with `event` and performs its effects, then any events queued meanwhile. Returns the
   * step's result when it ran now; undefined when it was queued behind a step in progress or the driver is closed.
   */
  dispatch(event: E): R | undefined {
    if (this.closed) return undefined;
    if (this.dispatching) {
      this.queue.push(event);
      return undefined;
    }
    this.dispatching = true;
    try {
      const first = this.run(event);
      for (let next = this.queue.shift(); next !== undefined && !this.closed; next = this.queue.shift()) this.run(next);
      return first;
    } finally {
      this.dispatching = false;
      this.queue.length = 0;
    }
  }

  /** Arms the timer `key` to dispatch `event` at `at` (replacing any armed under that key); undefined clears it. */
  arm(key: string, at: number | undefined, event: E): void {
    this.disarm(key);
    if (at === undefined || !Number.isFinite(at) || this.closed) return;
    this.timers.set(
      key,
      this.options.runtime.at(at, () => {
        this.timers.delete(key);
        this.dispatch(event);
      }),
    );
  }

  disarm(key: string): void {
    this.timers.get(key)?.cancel();
    this.timers.delete(key);
  }

  /** Whether the timer `key` is armed. */
  armed(key: string): boolean {
    return this.timers.has(key);
  }

  /** Cancels every timer; later events are ignored. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
    this.queue.length = 0;
  }

  private run(event: E): R {
    const result = this.options.step(this.current, event, this.options.runtime.now());
    this.current = result.state;
    for (const effect of result.effects) {
      this.options.perform(effect);
      if (this.closed) break;
    }
    this.armDeadline(result);
    this.options.afterStep?.();
    return result;
  }

  /**
   * Most steps (a packet, an ack) leave the deadline where it was: the armed timer then stays as it is rather than
   * being cancelled and scheduled again, which in a simulated thousand-node cluster was a timer per packet.
   */
  private armDeadline(result: R): void {
    const deadline = this.options.deadline;
    if (!deadline) return;
    const at = deadline.of(result);
    if (at !== undefined && at === this.deadlineAt && this.timers.has(DEADLINE_TIMER)) return;
    this.deadlineAt = at;
    this.arm(DEADLINE_TIMER, at, deadline.event);
  }
}
