/**
 * A simulated host's state files (the StateFiles seam) in memory: they outlive the node process using them, so a
 * simulated node restarted on the same MemoryStateFiles finds what it wrote, as a daemon finds its --state-dir.
 *
 * Like the directory, a write is atomic and takes effect a little later than it is asked (here: the next
 * microtask, never synchronously, so code cannot come to depend on a write having landed inside the call).
 * A crash keeps every write that had resolved (it was on disk) and loses a write still in flight whole (the file
 * keeps its old contents, as a rename that never happened); nothing the dead process asked for settles, reads
 * included. Two ways to crash:
 * - hand each process `forProcess(runtime.host)`: once VirtualNetwork.crash kills that host, whatever its code
 *   still asks (a promise chain of the dead process running on) is dropped; the restarted process takes a new
 *   handle with its new host;
 * - or use the store itself and call `crash()`: everything asked before is dropped, everything after is the
 *   restarted process's (enough when the dead process has nothing left running).
 */
import type { StateFiles } from '../state-files';

/** The process a handle belongs to: a VirtualHost (alive until VirtualNetwork.crash). */
export interface StateFilesOwner {
  readonly alive: boolean;
}

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
    return this.readAs(undefined, name);
  }

  writeAtomic(name: string, contents: string): Promise<void> {
    return this.writeAs(undefined, name, contents);
  }

  prepare(): Promise<string[]> {
    return this.prepareAs(undefined);
  }

  /** These files as one process sees them: nothing it asks settles once `owner` is dead (see the file comment). */
  forProcess(owner: StateFilesOwner): StateFiles {
    return {
      where: this.where,
      pathOf: (name) => this.pathOf(name),
      read: (name) => this.readAs(owner, name),
      writeAtomic: (name, contents) => this.writeAs(owner, name, contents),
      prepare: () => this.prepareAs(owner),
    };
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

  private readAs(owner: StateFilesOwner | undefined, name: string): Promise<string | undefined> {
    return this.next(owner, () => this.files.get(name));
  }

  private writeAs(owner: StateFilesOwner | undefined, name: string, contents: string): Promise<void> {
    return this.next(owner, () => {
      if (this.failure !== undefined) throw new Error(`cannot write ${this.pathOf(name)}: ${this.failure}`);
      this.files.set(name, contents);
    });
  }

  /** Nothing is ever left half-written here, so nothing to remove; fails as the directory would when broken. */
  private prepareAs(owner: StateFilesOwner | undefined): Promise<string[]> {
    return this.next(owner, () => {
      if (this.failure !== undefined) throw new Error(`state files ${this.where} are not writable: ${this.failure}`);
      return [];
    });
  }

  /** Runs `operation` on the next microtask, unless the process that asked has died by then (never settles). */
  private next<T>(owner: StateFilesOwner | undefined, operation: () => T): Promise<T> {
    const life = this.life;
    return new Promise<T>((resolve, reject) => {
      void Promise.resolve().then(() => {
        if (life !== this.life || (owner !== undefined && !owner.alive)) return;
        try {
          resolve(operation());
        } catch (error) {
          reject(error as Error);
        }
      });
    });
  }
}
