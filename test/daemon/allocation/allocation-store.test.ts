// allocations.json under a real temporary --state-dir: what is saved loads back; a damaged file is an error
// naming it; concurrent saves leave the last table, whole.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALLOCATIONS_FILE,
  AllocationStoreError,
  allocateFromTable,
  emptyAllocationTable,
  loadAllocationTable,
  makeAllocationTable,
  sameAllocationTable,
  saveAllocationTable,
} from '../../../src/daemon/allocation';
import { pool, service } from '../../allocator/factories';
import { entry } from './arbitraries';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mlb-allocations-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function loadError(): Promise<AllocationStoreError> {
  const error = await loadAllocationTable(dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AllocationStoreError);
  return error as AllocationStoreError;
}

describe('allocation store', () => {
  it('has nothing before the first save', async () => {
    expect(await loadAllocationTable(dir)).toBeUndefined();
  });

  it('loads what it saved: a restarted allocator finds the same addresses', async () => {
    const snapshot = { pools: [pool('default', ['192.0.2.10-192.0.2.19'])], services: [service('web'), service('db')] };
    const table = allocateFromTable(snapshot, emptyAllocationTable(), 'node-1', 1_700_000_000_000).table;
    await saveAllocationTable(dir, table);
    const loaded = await loadAllocationTable(dir);
    expect(loaded && sameAllocationTable(loaded, table)).toBe(true);
    const restarted = allocateFromTable(snapshot, loaded!, 'node-1', 1_700_000_060_000);
    expect(restarted.changed).toBe(false);
    expect((await stat(join(dir, ALLOCATIONS_FILE))).mode & 0o777).toBe(0o600);
  });

  it('reports a truncated file by name', async () => {
    const table = makeAllocationTable(1, 'node-1', [['demo/web', entry(['192.0.2.1'], 1, 'node-1')]]);
    await saveAllocationTable(dir, table);
    const path = join(dir, ALLOCATIONS_FILE);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.slice(0, text.length / 2));
    const error = await loadError();
    expect(error.code).toBe('allocationFileDamaged');
    expect(error.path).toBe(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain('move it aside');
  });

  it('reports JSON that is not an allocation table, with the reason', async () => {
    await writeFile(join(dir, ALLOCATIONS_FILE), '{"version":1,"peers":[]}\n');
    const error = await loadError();
    expect(error.code).toBe('allocationFileDamaged');
    expect(error.message).toContain('unknownFormat');
    await writeFile(
      join(dir, ALLOCATIONS_FILE),
      '{"format":1,"version":1,"allocator":"n","writers":["n"],"entries":[["demo/x",["10.0.0.01"],1,0,0]]}',
    );
    expect((await loadError()).message).toContain('not an IP in canonical form');
  });

  it('reports a file it cannot read as unreadable, not damaged', async () => {
    await mkdir(join(dir, ALLOCATIONS_FILE));
    expect((await loadError()).code).toBe('allocationFileUnreadable');
  });

  it('concurrent saves run one after another and leave the last table, with no temporary file behind', async () => {
    const tables = Array.from({ length: 10 }, (_, i) =>
      makeAllocationTable(i + 1, 'node-1', [[`demo/s${i}`, entry([`192.0.2.${i + 1}`], i + 1, 'node-1')]]),
    );
    await Promise.all(tables.map((t) => saveAllocationTable(dir, t)));
    const loaded = await loadAllocationTable(dir);
    expect(loaded && sameAllocationTable(loaded, tables[9]!)).toBe(true);
    expect(await readdir(dir)).toEqual([ALLOCATIONS_FILE]);
  });
});
