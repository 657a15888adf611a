/**
 * How the speaker's recomputations run: one at a time, each in turns that give the event loop back between them.
 *
 * A decision at 10,000 services costs a few hundred ms of CPU after a membership change and seconds for the first
 * one. Held in one piece, the gossip probes that arrive meanwhile wait unanswered in the socket, and peers
 * suspect this node (the fast profiles' probe timeout is 100 ms): under load one slow decision led to a false
 * death, whose decision led to the next. Between turns the event loop answers those probes.
 *
 * Requests that arrive while a decision runs fold into one next decision, started when this one ends: two never
 * interleave, so each reads what the one before it applied (the owner history, what is announced), and every
 * change is seen by a decision that starts after it.
 */
import type { Clock, Scheduler } from '../runtime/runtime';

/** Gives the event loop back until the next task; the decision resumes after whatever was waiting. */
export type Turn = () => Promise<void>;

export interface DecisionTurnsOptions {
  readonly runtime: Clock & Scheduler;
  /** One decision; resolves with the services it decided over, or undefined when there was nothing to decide. */
  readonly decide: (turn: Turn) => Promise<number | undefined>;
  /** A decision ended: the longest time one of its turns held the event loop. */
  readonly decided: (longestTurnMs: number, services: number) => void;
  readonly failed: (error: Error) => void;
}

export class DecisionTurns {
  private queued = false;
  private running = false;

  constructor(private readonly options: DecisionTurnsOptions) {}

  /** Asks for a decision on everything as it is when the decision starts. */
  request(): void {
    if (this.queued) return;
    this.queued = true;
    // A task of the runtime: on virtual time it runs at the same instant, and never once the node crashed.
    if (!this.running) this.options.runtime.after(0, () => void this.run());
  }

  private async run(): Promise<void> {
    const { runtime } = this.options;
    this.queued = false;
    this.running = true;
    let longest = 0;
    let turnStartedAt = runtime.now();
    const turn: Turn = () => {
      longest = Math.max(longest, runtime.now() - turnStartedAt);
      return new Promise<void>((resume) =>
        runtime.after(0, () => {
          turnStartedAt = runtime.now();
          resume();
        }),
      );
    };
    try {
      const services = await this.options.decide(turn);
      longest = Math.max(longest, runtime.now() - turnStartedAt);
      if (services !== undefined) this.options.decided(longest, services);
    } catch (error) {
      this.options.failed(error as Error);
    } finally {
      this.running = false;
      if (this.queued) runtime.after(0, () => void this.run());
    }
  }
}
