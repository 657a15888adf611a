/**
 * A child process in a lab namespace that takes one JSON command per line on stdin and answers with JSON lines
 * ({ev: 'reply', id, ok, ...}); bench/arp drives both its generator (bench/arp/generator.ts) and the announcer
 * runner of the L2 lab tests (test/announce/l2/announcer-runner.ts) through it.
 *
 * The child starts in a session of its own (setsid): with kernel.sched_autogroup_enabled, CFS shares CPU time
 * between sessions first, so neither the generator nor the announcer is squeezed by whatever else runs in the
 * bench's session. Its stdin is a pipe: if the bench dies, the pipe closes and the child exits; the lab's
 * destroy() kills it anyway.
 */
import type { LabHost, NetnsLab } from '../../test/support/netns-lab';
import { RunnerPeer, type RunnerEvent } from '../../test/support/runner-peer';

export { REPO_ROOT } from '../../test/support/runner-peer';
export type ChildEvent = RunnerEvent;

/** `[pid:0x..]   1234 ms: Scavenge 4.1 (5.2) -> 3.2 (6.2) MB, 0.52 / 0.00 ms  (...)` (node --trace-gc). */
const GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: ([\w-]+(?: \([\w ]+\))?)[^,]*, ([\d.]+) \//;
/** Replies can be large (every latency of a run): only the last few events are kept after each call. */
const EVENTS_KEPT = 50;

export class JsonChild extends RunnerPeer {
  /** Garbage collections seen (traceGc), in order: the collector's kind and its main-thread pause. */
  readonly gcPauses: { kind: string; ms: number }[] = [];

  /**
   * `node --import tsx script` inside the host's namespace, in a session of its own; resolves once it printed
   * {ev: 'ready'}. `cpu`: pinned there (taskset -c), as if it ran on a machine of its own. `traceGc`: node
   * --trace-gc, whose lines (not JSON) are parsed into gcPauses.
   */
  static async start(
    lab: NetnsLab,
    host: LabHost,
    name: string,
    script: string,
    options: { cpu?: number; args?: string[]; traceGc?: boolean } = {},
    timeoutMs = 20_000,
  ): Promise<JsonChild> {
    const { cpu, args = [], traceGc = false } = options;
    const child = RunnerPeer.spawnInLab(lab, host, script, {
      ...(cpu === undefined ? {} : { prefix: ['taskset', '-c', String(cpu)] }),
      nodeArgs: traceGc ? ['--trace-gc'] : [],
      scriptArgs: args,
      detached: true,
    });
    return new JsonChild(name, child).ready(timeoutMs);
  }

  protected override takeLine(line: string): boolean {
    const gc = GC_LINE.exec(line);
    if (gc) this.gcPauses.push({ kind: gc[1]!, ms: Number(gc[2]) });
    return gc !== null;
  }

  /** Sends a command and resolves with its reply; rejects when it failed, timed out or the child exited. */
  async call(command: Record<string, unknown>, timeoutMs = 10_000): Promise<ChildEvent> {
    const reply = await this.ok(command, timeoutMs);
    this.events.splice(0, Math.max(0, this.events.length - EVENTS_KEPT));
    return reply;
  }

  logs(level: string): ChildEvent[] {
    return this.events.filter((e) => e.ev === 'log' && e.level === level);
  }
}
