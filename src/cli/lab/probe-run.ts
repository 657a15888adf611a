/**
 * A running `mlb lab probe` in the client namespace, seen from the lab: its samples as they arrive, a way to wait
 * for one that matters ("an answer from a node other than node-2"), and stop(). The demo and bench/failover read
 * failover times from these samples (probe-samples.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LabError } from './lab-errors';
import { waitForExit } from './netns';
import { parseProbeLine, type ProbeSample } from './probe-samples';

/** The probe finishes its requests in flight (each at most its deadline, under 1 s) before exiting on SIGTERM. */
const PROBE_STOP_TIMEOUT_MS = 2_000;

export class ProbeRun {
  readonly samples: ProbeSample[] = [];
  private readonly child: ChildProcess;
  private buffer = '';
  private stderr = '';
  private exited = false;
  private readonly listeners = new Set<() => void>();

  /** `argv` is the whole command (ip netns exec CLIENT mlb lab probe ...). */
  constructor(argv: readonly string[], env: NodeJS.ProcessEnv) {
    const [command, ...args] = argv;
    this.child = spawn(command as string, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4_000);
    });
    this.child.once('exit', () => {
      this.exited = true;
      this.notify();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Resolves with the first sample (already received or to come) that `match` accepts; rejects with a LabError
   * naming `what` after timeoutMs, or when the probe exits.
   */
  waitFor(match: (sample: ProbeSample) => boolean, timeoutMs: number, what: string): Promise<ProbeSample> {
    return this.waitUntil(() => this.samples.find(match), timeoutMs, what);
  }

  /** Resolves with the first non-undefined value of `check`, re-evaluated at every sample; a LabError after timeoutMs. */
  waitUntil<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const evaluate = () => {
        const value = check();
        if (value !== undefined) {
          finish();
          resolve(value);
        } else if (this.exited) {
          finish();
          reject(new LabError(`the client's probe stopped before ${what}: ${this.stderr.trim() || 'no message'}`, 'processExited'));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new LabError(`${what}: not within ${(timeoutMs / 1000).toFixed(1)} s`, 'timeout'));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.listeners.delete(evaluate);
      };
      this.listeners.add(evaluate);
      evaluate();
    });
  }

  async stop(): Promise<void> {
    const pid = this.child.pid;
    if (this.exited || pid === undefined) return;
    this.child.kill('SIGTERM');
    if (!(await waitForExit(pid, PROBE_STOP_TIMEOUT_MS))) this.child.kill('SIGKILL');
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const sample = parseProbeLine(this.buffer.slice(0, nl));
      this.buffer = this.buffer.slice(nl + 1);
      if (sample) this.samples.push(sample);
    }
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
