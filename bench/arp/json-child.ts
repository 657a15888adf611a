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
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../test/support/netns-lab';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildEvent {
  readonly ev: string;
  readonly [field: string]: unknown;
}

/** `[pid:0x..]   1234 ms: Scavenge 4.1 (5.2) -> 3.2 (6.2) MB, 0.52 / 0.00 ms  (...)` (node --trace-gc). */
const GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: ([\w-]+(?: \([\w ]+\))?)[^,]*, ([\d.]+) \//;

export class JsonChild {
  readonly events: ChildEvent[] = [];
  /** Garbage collections seen (traceGc), in order: the collector's kind and its main-thread pause. */
  readonly gcPauses: { kind: string; ms: number }[] = [];
  private stderr = '';
  private nextId = 1;
  private exited = false;
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly name: string,
    private readonly stdin: NodeJS.WritableStream,
    readonly pid: number,
  ) {}

  /** `node --import tsx script` inside the host's namespace; resolves once it printed {ev: 'ready'}. */
  /**
   * `cpu`: pinned there (taskset -c), as if it ran on a machine of its own. `traceGc`: node --trace-gc, whose
   * lines (not JSON) are parsed into gcPauses.
   */
  static async start(lab: NetnsLab, host: LabHost, name: string, script: string,
    options: { cpu?: number; args?: string[]; traceGc?: boolean } = {}, timeoutMs = 20_000): Promise<JsonChild> {
    const { cpu, args: scriptArgs = [], traceGc = false } = options;
    const node = [process.execPath, ...(traceGc ? ['--trace-gc'] : []), '--import', 'tsx', script, ...scriptArgs];
    const [command, ...args] = cpu === undefined ? node : ['taskset', '-c', String(cpu), ...node];
    const child = lab.spawnIn(host, command!, args, { cwd: REPO_ROOT, detached: true });
    const peer = new JsonChild(name, child.stdin!, child.pid!);
    child.stdin!.on('error', () => {});
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const gc = GC_LINE.exec(line);
      if (gc) {
        peer.gcPauses.push({ kind: gc[1]!, ms: Number(gc[2]) });
        return;
      }
      try {
        peer.events.push(JSON.parse(line) as ChildEvent);
      } catch {
        peer.events.push({ ev: 'garbage', line });
      }
      peer.wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      peer.stderr = (peer.stderr + chunk.toString()).slice(-4_000);
    });
    child.once('exit', (code, signal) => {
      peer.exited = true;
      peer.events.push({ ev: 'exit', code, signal });
      peer.wake();
    });
    await peer.waitFor((e) => e.ev === 'ready', timeoutMs);
    return peer;
  }

  /** Sends a command and resolves with its reply; rejects when it failed, timed out or the child exited. */
  async call(command: Record<string, unknown>, timeoutMs = 10_000): Promise<ChildEvent> {
    const id = this.nextId++;
    this.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
    const reply = await this.waitFor((e) => e.ev === 'reply' && e.id === id, timeoutMs);
    // Replies can be large (every latency of a run): keep only the last few events.
    this.events.splice(0, Math.max(0, this.events.length - 50));
    if (reply.ok !== true) throw new Error(`${this.name}: ${String(command.op)} failed: ${String(reply.message)}`);
    return reply;
  }

  logs(level: string): ChildEvent[] {
    return this.events.filter((e) => e.ev === 'log' && e.level === level);
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private waitFor(match: (e: ChildEvent) => boolean, timeoutMs: number): Promise<ChildEvent> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.events.find(match);
        if (found || this.exited) {
          cleanup();
          if (found) resolve(found);
          else reject(new Error(`${this.name} exited: ${this.stderr.trim()}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${this.name}: no answer within ${timeoutMs} ms; stderr: ${this.stderr.trim()}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      if (!check()) this.waiters.add(check);
    });
  }
}
