/**
 * The allocation table under --state-dir (allocations.json), so a restarted node, or a whole cluster restarted
 * at once, starts from the allocations it had instead of an empty table. The shell around the codec.
 *
 * Written atomically (state-dir.ts writeFileAtomic): a crash leaves the previous table, never half of one. A
 * damaged file is an error naming the file; whether to start empty is the caller's decision (starting empty
 * loses nothing another node still holds, since tables merge, but a lone node would allocate afresh).
 * What is read here is not the cluster's table: the daemon holds it aside and restores it into the live table's
 * gaps only (restore-allocations.ts), so an old or copied file cannot move a running service.
 */
import { join } from 'node:path';
import type { AllocationTable } from './allocation-table';
import { allocationTableFromJSON, allocationTableText } from './allocation-table-codec';
import { isAnyJSON, readJSONState, writeFileAtomic } from '../state-dir';
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

function allocationsPath(stateDir: string): string {
  return join(stateDir, ALLOCATIONS_FILE);
}

/** The persisted table; undefined when there is none yet. Throws AllocationStoreError when it cannot be used. */
export async function loadAllocationTable(stateDir: string): Promise<AllocationTable | undefined> {
  const path = allocationsPath(stateDir);
  let value: unknown;
  try {
    value = await readJSONState(path, isAnyJSON);
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new AllocationStoreError('allocationFileDamaged', path, `${path} is not valid JSON (${error.message}); move it aside to start with an empty allocation table`);
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

/** Saves to one file run one after another: writeFileAtomic's temporary name is the same within a process. */
const pendingSaves = new Map<string, Promise<void>>();

export function saveAllocationTable(stateDir: string, table: AllocationTable): Promise<void> {
  const path = allocationsPath(stateDir);
  const text = allocationTableText(table);
  const previous = pendingSaves.get(path) ?? Promise.resolve();
  const save = previous.catch(() => undefined).then(() => writeFileAtomic(path, text));
  pendingSaves.set(path, save);
  const forget = (): void => {
    if (pendingSaves.get(path) === save) pendingSaves.delete(path);
  };
  save.then(forget, forget);
  return save;
}
