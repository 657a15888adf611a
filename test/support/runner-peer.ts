/**
 * The test's side of a runner script: a child process (often inside a lab namespace) that reads JSON commands
 * on stdin ({id, op, ...}) and prints JSON events on stdout ({ev: 'ready' | 'reply' | ..., ...}). Commands get
 * replies matched by id; every event is kept so a test can wait for one that has come or is yet to come.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from './netns-lab';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** node + tsx start in about half a second; a busy 2-core CI box needs more. */
export const RUNNER_START_TIMEOUT_MS = 20_000;
export const RUNNER_REPLY_TIMEOUT_MS = 10_000;
const STDERR_TAIL_BYTES = 4_000;

export interface SpawnInLabOptions {
  readonly prefix?: readonly string[];
  readonly nodeArgs?: readonly string[];
  readonly scriptArgs?: readonly string[];
  readonly detached?: boolean;
}

export interface RunnerEvent {
  readonly ev: string;
  readonly [field: string]: unknown;
}

export class RunnerPeer {
  readonly events: RunnerEvent[] = [];
  private stderr = '';
  private nextId = 1;
  private readonly waiters = new Set<() => void>();

  protected constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    child.stdin!.on('error', () => {});
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (this.takeLine(line)) return;
      try {
        this.events.push(JSON.parse(line) as RunnerEvent);
      } catch {
        this.events.push({ ev: 'garbage', line });
      }
      this.wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    });
    child.once('exit', (code, signal) => {
      this.events.push({ ev: 'exit', code, signal });
      this.wake();
    });
  }

  /**
   * Spawns `node [nodeArgs] --import tsx <runner> [scriptArgs]` inside a lab host's namespace, behind `prefix`
   * (e.g. taskset) when given; `detached` puts it in a session of its own.
   */
  protected static spawnInLab(lab: NetnsLab, host: LabHost, runner: string, options: SpawnInLabOptions = {}): ChildProcess {
    const node = [process.execPath, ...(options.nodeArgs ?? []), '--import', 'tsx', runner, ...(options.scriptArgs ?? [])];
    const [command, ...args] = [...(options.prefix ?? []), ...node];
    return lab.spawnIn(host, command!, args, { cwd: REPO_ROOT, ...(options.detached ? { detached: true } : {}) });
  }

  /** A subclass may consume stdout lines that are not events (returns true); by default every line is one. */
  protected takeLine(_line: string): boolean {
    return false;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Spawns the runner in this namespace behind a wrapper command (e.g. setpriv dropping a capability). */
  protected static spawnWrapped(wrapper: readonly string[], runner: string): ChildProcess {
    const [command, ...args] = wrapper;
    return spawn(command!, [...args, process.execPath, '--import', 'tsx', runner], { cwd: REPO_ROOT, stdio: 'pipe' });
  }

  /** Resolves once the runner printed {ev: 'ready'}. */
  protected async ready(timeoutMs = RUNNER_START_TIMEOUT_MS): Promise<this> {
    await this.waitFor((e) => e.ev === 'ready', timeoutMs);
    return this;
  }

  get exited(): boolean {
    return this.events.some((e) => e.ev === 'exit');
  }

  /** Sends a command and returns its reply; a reply with ok: false is returned too (the test asserts on it). */
  async request(command: Record<string, unknown>, timeoutMs = RUNNER_REPLY_TIMEOUT_MS): Promise<RunnerEvent> {
    const id = this.nextId++;
    this.child.stdin!.write(`${JSON.stringify({ id, ...command })}\n`);
    return this.waitFor((e) => e.ev === 'reply' && e.id === id, timeoutMs);
  }

  /** Like request, but a failed command fails the test with the runner's message. */
  async ok(command: Record<string, unknown>, timeoutMs?: number): Promise<RunnerEvent> {
    const reply = await this.request(command, timeoutMs);
    if (reply.ok !== true) throw new Error(`${this.name}: ${JSON.stringify(command)} failed: ${String(reply.message)}`);
    return reply;
  }

  /** The first event (already seen or yet to come) that matches; rejects if the runner exits first. */
  waitFor(match: (e: RunnerEvent) => boolean, timeoutMs: number): Promise<RunnerEvent> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.events.find(match);
        if (found || this.exited) {
          cleanup();
          if (found) resolve(found);
          else reject(new Error(`${this.name}: the runner exited: ${this.stderr}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${this.name}: no matching event within ${timeoutMs} ms; stderr: ${this.stderr}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      if (!check()) this.waiters.add(check);
    });
  }

  stop(): void {
    this.child.stdin!.end();
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
