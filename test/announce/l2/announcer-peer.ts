/**
 * The test's side of announcer-runner.ts: starts it inside a lab host's namespace, sends it commands and waits for
 * replies and log events.
 */
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../support/netns-lab';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RUNNER = fileURLToPath(new URL('./announcer-runner.ts', import.meta.url));
const START_TIMEOUT_MS = 20_000;
const REPLY_TIMEOUT_MS = 10_000;

export interface RunnerEvent {
  readonly ev: string;
  readonly [field: string]: unknown;
}

export class AnnouncerPeer {
  readonly events: RunnerEvent[] = [];
  private stderr = '';
  private nextId = 1;
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly name: string,
    private readonly stdin: NodeJS.WritableStream,
  ) {}

  static async start(lab: NetnsLab, host: LabHost): Promise<AnnouncerPeer> {
    const child = lab.spawnIn(host, process.execPath, ['--import', 'tsx', RUNNER], { cwd: REPO_ROOT });
    const peer = new AnnouncerPeer(host.name, child.stdin!);
    child.stdin!.on('error', () => {});
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        peer.events.push(JSON.parse(line) as RunnerEvent);
      } catch {
        peer.events.push({ ev: 'garbage', line });
      }
      peer.wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      peer.stderr = (peer.stderr + chunk.toString()).slice(-4_000);
    });
    child.once('exit', (code, signal) => {
      peer.events.push({ ev: 'exit', code, signal });
      peer.wake();
    });
    await peer.waitFor((e) => e.ev === 'ready', START_TIMEOUT_MS);
    return peer;
  }

  get exited(): boolean {
    return this.events.some((e) => e.ev === 'exit');
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  async ok(command: Record<string, unknown>, timeoutMs = REPLY_TIMEOUT_MS): Promise<RunnerEvent> {
    const id = this.nextId++;
    this.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
    const reply = await this.waitFor((e) => e.ev === 'reply' && e.id === id, timeoutMs);
    if (reply.ok !== true) throw new Error(`${this.name}: ${command.op as string} failed: ${String(reply.message)}`);
    return reply;
  }

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

  logs(event?: string): RunnerEvent[] {
    return this.events.filter((e) => e.ev === 'log' && (event === undefined || e.event === event));
  }
}
