/**
 * Virtual time for a whole simulated cluster: one agenda of tasks ordered by (time, insertion), run only when the
 * test says so (`advance`, `runUntil`). After each task the clock lets the real event loop turn once, so async
 * code a task started settles before the next task runs. Nothing here reads the wall clock or real timers, so a
 * run is a function of what was scheduled: the same seed and the same test give the same run.
 *
 * A task may belong to a host (a TaskOwner): a dead host's tasks are skipped, and a host with a CPU cost runs its
 * tasks one at a time, each occupying its CPU for `costMs` of virtual time, so later ones run late (a starved
 * node's timers, acks and replies all lag, as in the reducer-level memory network's cpuCost).
 */
import { EventQueue } from '../../gossip/swim/event-queue';
import type { Clock, Timer } from '../runtime';
import { nextTurn } from './next-turn';

/** Where virtual time starts: a realistic epoch (2026-01-01T00:00:00Z), so nothing mistakes it for "never" (0). */
export const VIRTUAL_EPOCH_MS = Date.UTC(2026, 0, 1);

/**
 * More tasks than this at one virtual instant is a livelock (a task that re-arms itself at `now`, an `every(0)`):
 * the run throws instead of hanging the test. Far above what a 100-node cluster does in one instant.
 */
export const MAX_TASKS_PER_INSTANT = 100_000;

/** The host a task runs on: whether it is alive, and its CPU (see the file comment). */
export interface TaskOwner {
  readonly alive: boolean;
  /** Virtual ms each task of this host occupies its CPU; 0 for an idle host. */
  readonly costMs: number;
  /** When the host's CPU is free again. */
  busyUntil: number;
}

export interface RunUntilOptions {
  /** Virtual ms to run at most before giving up. */
  readonly timeoutMs: number;
}

export class VirtualClock implements Clock {
  private current: number;
  private readonly agenda = new EventQueue();
  private tasksAtInstant = 0;
  /** Whether the task just popped ran its callback (runNext). */
  private ran = false;
  private instant = Number.NaN;

  constructor(startMs: number = VIRTUAL_EPOCH_MS) {
    this.current = startMs;
  }

  /**
   * Whole milliseconds, as Date.now() gives a real host: tasks run at their exact (fractional) instants, since a
   * packet's sub-millisecond latency and jitter still order events, but no code under test sees a time a real
   * clock could not show (a fractional timestamp in a log line, a record or a deadline).
   */
  now(): number {
    return Math.floor(this.current);
  }

  /** Tasks not yet run (cancelled ones included until their time comes). */
  get pending(): number {
    return this.agenda.size;
  }

  /**
   * Runs `run` at `time`, never before; a time already past runs at `now`, after the task in progress and after
   * every task already due (insertion order), never synchronously.
   */
  schedule(time: number, run: () => void, owner?: TaskOwner): Timer {
    let cancelled = false;
    const when = Math.max(time, this.current);
    const task = (): void => {
      if (cancelled || (owner && !owner.alive)) return;
      if (owner && owner.costMs > 0 && owner.busyUntil > this.current) {
        this.agenda.push(owner.busyUntil, task);
        return;
      }
      if (owner && owner.costMs > 0) owner.busyUntil = this.current + owner.costMs;
      cancelled = true;
      this.countRun();
      this.ran = true;
      run();
    };
    this.agenda.push(when, task);
    return { cancel: () => void (cancelled = true) };
  }

  /** Runs every task due within the next `ms` virtual ms, then leaves the clock at now + ms. */
  async advance(ms: number): Promise<void> {
    const end = this.current + Math.max(0, ms);
    await nextTurn();
    while (this.agenda.peekTime() <= end) await this.runNext();
    this.current = end;
  }

  /**
   * Runs tasks in order until `done()` holds (checked before the first task and after each one has settled) or
   * `timeoutMs` virtual ms pass. Resolves whether it held; on true the clock stays at the instant it first held.
   */
  async runUntil(done: () => boolean, options: RunUntilOptions): Promise<boolean> {
    const end = this.current + Math.max(0, options.timeoutMs);
    await nextTurn();
    if (done()) return true;
    while (this.agenda.peekTime() <= end) {
      await this.runNext();
      if (done()) return true;
    }
    this.current = end;
    return done();
  }

  private async runNext(): Promise<void> {
    const item = this.agenda.pop();
    if (!item) return;
    this.current = item.time;
    this.ran = false;
    item.run();
    // A task that did nothing (cancelled, its host dead, or put off by a busy CPU) started no async work: no turn
    // of the real event loop to wait for. Timers re-armed often (a cancel and a new one per change) cost nothing.
    if (this.ran) await nextTurn();
  }

  /** Counts the tasks that run at this instant (cancelled and deferred ones cost nothing). */
  private countRun(): void {
    const time = this.current;
    if (time !== this.instant) {
      this.instant = time;
      this.tasksAtInstant = 0;
    }
    this.tasksAtInstant += 1;
    if (this.tasksAtInstant > MAX_TASKS_PER_INSTANT) {
      throw new Error(`virtual clock: more than ${MAX_TASKS_PER_INSTANT} tasks at ${time}: a task re-arms itself without delay`);
    }
  }
}
