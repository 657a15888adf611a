/**
 * The test's side of packet-runner.ts: starts it inside a lab host's namespace, sends it commands one at a time
 * and waits for the events it prints (frames, socket errors, burst results).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../support/netns-lab';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNNER = fileURLToPath(new URL('./packet-runner.ts', import.meta.url));
/** node + tsx start in about half a second; a busy 2-core CI box needs more. */
const START_TIMEOUT_MS = 20_000;
const REPLY_TIMEOUT_MS = 10_000;

export interface RunnerEvent {
  readonly ev: string;
  readonly [field: string]: unknown;
}

export class PacketPeer {
  readonly events: RunnerEvent[] = [];
  private stderr = '';
  private nextId = 1;
  private readonly waiters = new Set<() => void>();
  private child: ChildProcess | undefined;

  private constructor(
    readonly name: string,
    private readonly stdin: NodeJS.WritableStream,
  ) {}

  /** The runner inside a lab host's namespace. */
  static inLab(lab: NetnsLab, host: LabHost): Promise<PacketPeer> {
    return PacketPeer.start(host.name, lab.spawnIn(host, process.execPath, ['--import', 'tsx', RUNNER], { cwd: REPO_ROOT }));
  }

  /** The runner in this namespace, behind a wrapper command (e.g. setpriv dropping a capability). */
  static withWrapper(name: string, wrapper: string[]): Promise<PacketPeer> {
    const [command, ...args] = wrapper;
    const child = spawn(command!, [...args, process.execPath, '--import', 'tsx', RUNNER], { cwd: REPO_ROOT, stdio: 'pipe' });
    return PacketPeer.start(name, child);
  }

  private static async start(name: string, child: ChildProcess): Promise<PacketPeer> {
    const peer = new PacketPeer(name, child.stdin!);
    peer.child = child;
    child.stdin!.on('error', () => {});
    createInterface({ input: child.stdout! }).on('line', (line) => {
      peer.events.push(JSON.parse(line) as RunnerEvent);
      peer.wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      peer.stderr = (peer.stderr + chunk.toString()).slice(-4_000);
    });
    child.once('exit', () => {
      peer.events.push({ ev: 'exit' });
      peer.wake();
    });
    await peer.waitFor((e) => e.ev === 'ready', START_TIMEOUT_MS);
    return peer;
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Sends a command and returns its reply; a reply with ok: false is returned too (the test asserts on it). */
  async request(command: Record<string, unknown>, timeoutMs = REPLY_TIMEOUT_MS): Promise<RunnerEvent> {
    const id = this.nextId++;
    this.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
    return this.waitFor((e) => e.ev === 'reply' && e.id === id, timeoutMs);
  }

  /** Like request, but a failed command fails the test with the runner's message. */
  async ok(command: Record<string, unknown>, timeoutMs?: number): Promise<RunnerEvent> {
    const reply = await this.request(command, timeoutMs);
    if (reply.ok !== true) throw new Error(`${this.name}: ${JSON.stringify(command)} failed: ${String(reply.message)}`);
    return reply;
  }

  /** The first event (already seen or yet to come) that matches. */
  waitFor(match: (e: RunnerEvent) => boolean, timeoutMs: number): Promise<RunnerEvent> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.events.find(match);
        if (found) {
          cleanup();
          resolve(found);
          return true;
        }
        if (this.events.some((e) => e.ev === 'exit')) {
          cleanup();
          reject(new Error(`${this.name}: the runner exited: ${this.stderr}`));
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

  /** Frames received so far on one socket, optionally only those equal to `hex`. */
  frames(sock: string, hex?: string): RunnerEvent[] {
    return this.events.filter((e) => e.ev === 'frame' && e.sock === sock && (hex === undefined || e.hex === hex));
  }

  stop(): void {
    this.stdin.end();
    if (this.child?.exitCode === null) this.child.kill('SIGKILL');
  }
}
