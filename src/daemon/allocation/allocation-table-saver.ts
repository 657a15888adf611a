/**
 * allocations.json under --state-dir (allocation-store.ts) as the daemon uses it: read once at start, then
 * written after every change of the live table, one write after another (a later table never overtaken by an
 * earlier one still being written). A failed write is logged and the daemon goes on: the cluster still holds
 * the table, and the next change writes it again.
 */
import type { Logger } from 'pino';
import type { StateFiles } from '../../runtime/state-files';
import type { AllocationTable } from './allocation-table';
import { loadAllocationTable, saveAllocationTable } from './allocation-store';

export class AllocationTableSaver {
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly files: StateFiles,
    private readonly logger: Pick<Logger, 'info' | 'error'>,
  ) {}

  /** The table the file holds, or undefined (none, or unreadable: logged, and the cluster's table is used). */
  async load(): Promise<AllocationTable | undefined> {
    const table = await loadAllocationTable(this.files).catch((error: Error) => {
      this.logger.error({ event: 'stateAllocationsUnreadable' }, `${error.message}: starting from the cluster's table`);
      return undefined;
    });
    if (table) {
      this.logger.info(
        { event: 'allocationsLoaded', version: table.version, services: table.entries.size },
        `allocation table version ${table.version} read from disk; held aside until the cluster's table is heard`,
      );
    }
    return table;
  }

  /** Writes `table` after the writes before it. */
  save(table: AllocationTable): void {
    this.writes = this.writes
      .then(() => saveAllocationTable(this.files, table))
      .catch((error: Error) => this.logger.error({ event: 'stateWriteFailed' }, `cannot persist the allocation table: ${error.message}`));
  }

  /** Resolves when every table saved so far has been written. */
  flush(): Promise<void> {
    return this.writes;
  }
}
