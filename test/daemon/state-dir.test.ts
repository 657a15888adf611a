/**
 * The state directory's file writing (src/daemon/state-dir.ts) on a real temporary directory: a failed atomic
 * write leaves the old file and no temporary file, and the temporary files an interrupted write left are removed
 * at the next start, but never a running writer's nor anything that is not a regular file.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ensureStateDir,
  isStaleTemporaryFile,
  removeStaleTemporaryFiles,
  temporaryFileWriter,
  temporaryPathFor,
  writeFileAtomic,
} from '../../src/daemon/state-dir';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mlb-state-dir-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces the file and leaves no temporary file', async () => {
    const path = join(dir, 'drain.json');
    writeFileSync(path, 'old');
    await writeFileAtomic(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['drain.json']);
  });

  it('a rename that fails (the target is a directory) rejects and removes its temporary file', async () => {
    const path = join(dir, 'allocations.json');
    mkdirSync(path);
    writeFileSync(join(path, 'keep'), 'x');
    await expect(writeFileAtomic(path, '{}')).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir)).toEqual(['allocations.json']);
    expect(readdirSync(path)).toEqual(['keep']);
  });

  it('an open that fails (as on a read-only file system) rejects, changes nothing and removes nothing that is not its own', async () => {
    const path = join(dir, 'drain.json');
    writeFileSync(path, 'old');
    // Root may write in a mode 0500 directory; a directory where the temporary file goes fails open() for anyone.
    mkdirSync(temporaryPathFor(path));
    await expect(writeFileAtomic(path, 'new')).rejects.toThrow(/EISDIR/);
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(readdirSync(dir).sort()).toEqual(['drain.json', `drain.json.tmp-${process.pid}`]);
  });
});

describe('leftover temporary files', () => {
  it('reads the writer from the name, and only from names writeFileAtomic makes', () => {
    expect(temporaryFileWriter('drain.json.tmp-4242')).toBe(4242);
    expect(temporaryFileWriter(temporaryPathFor('x.json').split('/').at(-1) as string)).toBe(process.pid);
    expect(['drain.json', 'drain.json.tmp-', 'x.tmp-12a', '.tmp-12', 'notes.tmp'].map(temporaryFileWriter)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('is stale when its writer is gone, or has our own id (an earlier process with the same pid)', () => {
    const running = (pid: number) => pid === 7;
    expect(isStaleTemporaryFile(8, 100, running)).toBe(true);
    expect(isStaleTemporaryFile(7, 100, running)).toBe(false);
    expect(isStaleTemporaryFile(100, 100, () => true)).toBe(true);
  });

  it("start-up removes the files crashed writers left, keeps a running writer's, directories and other files", async () => {
    const running = (pid: number) => pid === 7;
    writeFileSync(join(dir, 'drain.json'), '{}');
    writeFileSync(join(dir, 'drain.json.tmp-8'), '{"drai');
    writeFileSync(join(dir, 'restarts.json.tmp-9'), '');
    writeFileSync(join(dir, 'known-peers.json.tmp-7'), '{}');
    writeFileSync(join(dir, `allocations.json.tmp-${process.pid}`), '{}');
    mkdirSync(join(dir, 'odd.tmp-10'));
    const removed = await removeStaleTemporaryFiles(dir, running);
    expect(removed.sort()).toEqual(
      [join(dir, `allocations.json.tmp-${process.pid}`), join(dir, 'drain.json.tmp-8'), join(dir, 'restarts.json.tmp-9')].sort(),
    );
    expect(readdirSync(dir).sort()).toEqual(['drain.json', 'known-peers.json.tmp-7', 'odd.tmp-10']);
  });

  it('ensureStateDir removes them and says which', async () => {
    // A pid above Linux's pid_max (4194304) belongs to no process.
    writeFileSync(join(dir, 'drain.json.tmp-99999999'), '{');
    expect(await ensureStateDir(dir)).toEqual([join(dir, 'drain.json.tmp-99999999')]);
    expect(readdirSync(dir)).toEqual(['.write-test']);
  });
});
