/**
 * The allocation table under --state-dir (allocations.json), so a restarted node, or a whole cluster restarted
 * at once, starts from the allocations it had instead of an empty table. The shell around the codec.
 *
 * Written atomically (StateFiles.writeAtomic, state-dir.ts on a directory): a crash leaves the previous table, never half of one. A
 * damaged file is an error naming the file; whether to start empty is the caller's decision (starting empty
 * loses nothing another node still holds, since tables merge, but a lone node would allocate afresh).
 * What is read here is not the cluster's table: the daemon holds it aside and restores it into the live table's
 * gaps only (restore-allocations.ts), so an old or copied file cannot move a running service.
 */
import type { StateFiles } from '../../runtime/state-files';
import type { AllocationTable } from './allocation-table';
import { allocationTableFromJSON, allocationTableText } from './allocation-table-codec';
import { asStateFiles } from '../directory-state-files';
import { isAnyJSON, readStateFileJSON } from '../state-dir';
import { CodedError } from '../../errors/coded-error';

export const ALLOCATIONS_FILE = 'allocations.json';

export class AllocationStoreError extends CodedError<'allocationFileDamaged' | 'allocationFileUnreadable'> {
  constructor(
    code: 'allocationFileDamaged' | 'allocationFileUnreadable',
    readonly path: string,
    message: string,
  ) {
    super(code, message);
  }
}

/**
 * The persisted table; undefined when there is none yet. Throws AllocationStoreError when it cannot be used.
 * `state`: the --state-dir path, or the node's StateFiles.
 */
export async function loadAllocationTable(state: string | StateFiles): Promise<AllocationTable | undefined> {
  const files = asStateFiles(state);
  const path = files.pathOf(ALLOCATIONS_FILE);
  let value: unknown;
  try {
    value = await readStateFileJSON(files, ALLOCATIONS_FILE, isAnyJSON);
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new AllocationStoreError(
        'allocationFileDamaged',
        path,
        `${path} is not valid JSON (${error.message}); move it aside to start with an empty allocation table`,
      );
    }
    throw new AllocationStoreError('allocationFileUnreadable', path, `cannot read ${path}: ${(error as Error).message}`);
  }
  if (value === undefined) return undefined;
  const decoded = allocationTableFromJSON(value);
  if (!decoded.ok) {
    throw new AllocationStoreError(
      'allocationFileDamaged',
      path,
      `${path} does not hold an allocation table mlb wrote (${decoded.reason}: ${decoded.detail}); move it aside to start with an empty allocation table`,
    );
  }
  return decoded.table;
}

/** Saves run one after another per file (StateFiles.writeAtomic's promise), the last one asked wins. */
export function saveAllocationTable(state: string | StateFiles, table: AllocationTable): Promise<void> {
  return asStateFiles(state).writeAtomic(ALLOCATIONS_FILE, allocationTableText(table));
}
