/**
 * The state-files seam: what must survive a restart of the daemon (known peers, the allocation table, the drain
 * record, the restart history), as named text files. On a host it is a directory written atomically (the daemon's
 * --state-dir, src/daemon/directory-state-files.ts); in a simulated cluster it is memory that outlives the node
 * process using it (virtual/memory-state-files.ts), so a restarted simulated node finds what it wrote.
 */

export interface StateFiles {
  /** Where the files live, for messages: the directory, or the simulated host's name. */
  readonly where: string;
  /** How messages name one file (its path on disk). */
  pathOf(name: string): string;
  /** The file's contents, or undefined when it does not exist; rejects when it exists but cannot be read. */
  read(name: string): Promise<string | undefined>;
  /**
   * Replaces the file's contents: after a crash at any moment it holds the old contents or the new ones, never a
   * mix. Writes to one file run in the order they were asked for. Rejects (contents unchanged) when it cannot.
   */
  writeAtomic(name: string, contents: string): Promise<void>;
  /**
   * Makes the store ready at start-up, before anything is written: creates it, removes what an interrupted write
   * left (returned, for the log) and proves it writable. Rejects with a message naming `where` when it cannot.
   */
  prepare(): Promise<string[]>;
}
