/**
 * A simulated host's state files (the StateFiles seam) in memory: they outlive the node process using them, so a
 * simulated node restarted on the same MemoryStateFiles finds what it wrote, as a daemon finds its --state-dir.
 *
 * Like the directory, a write is atomic and takes effect a little later than it is asked (here: the next
 * microtask, never synchronously, so code cannot come to depend on a write having landed inside the call).
 * `crash()` is the host dying at that instant: every write that had resolved is kept (it was on disk), a write
 * still in flight is lost whole (the file keeps its old contents, as a rename that never happened). Nothing the
 * dead process asked for settles, reads included, so its code never runs on to write anything later; what is
 * asked after the crash is the restarted process's. Call it between tasks (as the virtual clock runs them),
 * beside VirtualNetwork.crash of the same host.
 */
import type { StateFiles } from '../state-files';

export class MemoryStateFiles implements StateFiles {
  private readonly files = new Map<string, string>();
  /** Bumped by crash(): writes asked in an earlier life are dropped. */
  private life = 0;
  private failure: string | undefined;

  constructor(readonly where: string) {}

  pathOf(name: string): string {
    return `${this.where}/${name}`;
  }

  read(name: string): Promise<string | undefined> {
    return this.next(() => this.files.get(name));
  }

  writeAtomic(name: string, contents: string): Promise<void> {
    return this.next(() => {
      if (this.failure !== undefined) throw new Error(`cannot write ${this.pathOf(name)}: ${this.failure}`);
      this.files.set(name, contents);
    });
  }

  /** Nothing is ever left half-written here, so nothing to remove; fails as the directory would when broken. */
  prepare(): Promise<string[]> {
    return this.next(() => {
      if (this.failure !== undefined) throw new Error(`state files ${this.where} are not writable: ${this.failure}`);
      return [];
    });
  }

  /** The host died now: resolved writes stay, writes in flight are lost (see the file comment). */
  crash(): void {
    this.life += 1;
  }

  /** From now on every write rejects with `reason` (a full or read-only disk); undefined makes them work again. */
  failWrites(reason: string | undefined): void {
    this.failure = reason;
  }

  /** A file's contents now, for a test's assertions (what a restarted node would read). */
  peek(name: string): string | undefined {
    return this.files.get(name);
  }

  /** The files that exist, sorted. */
  names(): string[] {
    return [...this.files.keys()].sort();
  }

  /** Runs `operation` on the next microtask, unless the process that asked has crashed by then (never settles). */
  private next<T>(operation: () => T): Promise<T> {
    const life = this.life;
    return new Promise<T>((resolve, reject) => {
      void Promise.resolve().then(() => {
        if (life !== this.life) return;
        try {
          resolve(operation());
        } catch (error) {
          reject(error as Error);
        }
      });
    });
  }
}
