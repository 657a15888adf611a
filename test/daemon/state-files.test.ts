/**
 * The state-files seam (src/runtime/state-files.ts): the directory the daemon uses (--state-dir) and the memory a
 * simulated host uses keep the same promises (a missing file reads as undefined, the last write asked is the one
 * kept, prepare proves the store usable), and the memory one models a crash: what was written stays, a write in
 * flight is lost whole, and the dead process never runs on.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { directoryStateFiles } from '../../src/daemon/directory-state-files';
import { MemoryStateFiles } from '../../src/runtime/virtual/memory-state-files';
import type { StateFiles } from '../../src/runtime/state-files';

const root = mkdtempSync(join(tmpdir(), 'mlb-state-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let made = 0;

const stores: [string, () => StateFiles][] = [
  ['a directory', () => directoryStateFiles(join(root, `dir-${made++}`))],
  ['memory', () => new MemoryStateFiles(`node-${made++}`)],
];

describe.each(stores)('StateFiles on %s', (_kind, make) => {
  it('a file never written reads as undefined; one written reads back, under a path that names the store', async () => {
    const files = make();
    expect(await files.prepare()).toEqual([]);
    expect(await files.read('drain.json')).toBeUndefined();
    await files.writeAtomic('drain.json', '{"drained":true}\n');
    expect(await files.read('drain.json')).toBe('{"drained":true}\n');
    expect(files.pathOf('drain.json')).toBe(`${files.where}/drain.json`);
  });

  it('writes asked at once land in the order asked: the last one is what a restart reads', async () => {
    const files = make();
    await files.prepare();
    await Promise.all(['1', '2', '3'].map((v) => files.writeAtomic('allocations.json', v)));
    expect(await files.read('allocations.json')).toBe('3');
  });
});

describe('StateFiles on a directory', () => {
  it('prepare creates the directory and removes what a crashed writer left', async () => {
    const dir = join(root, 'leftovers');
    const files = directoryStateFiles(dir);
    await files.prepare();
    // A pid above Linux's pid_max (4194304) belongs to no process.
    writeFileSync(join(dir, 'drain.json.tmp-99999999'), '{');
    expect(await files.prepare()).toEqual([join(dir, 'drain.json.tmp-99999999')]);
    expect(readdirSync(dir)).toEqual(['.write-test']);
  });
});

describe('MemoryStateFiles', () => {
  it('never settles inside the call: a write lands on a later microtask', async () => {
    const files = new MemoryStateFiles('node-a');
    const write = files.writeAtomic('restarts.json', 'x');
    expect(files.peek('restarts.json')).toBeUndefined();
    await write;
    expect(files.peek('restarts.json')).toBe('x');
  });

  it('a crash keeps every write that resolved, loses the one in flight whole, and the dead process hears nothing', async () => {
    const files = new MemoryStateFiles('node-a');
    await files.writeAtomic('known-peers.json', 'old');
    let settled = false;
    void files.writeAtomic('known-peers.json', 'new').finally(() => (settled = true));
    void files.read('known-peers.json').finally(() => (settled = true));
    files.crash();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    // The restarted process reads what was on "disk" when the host died.
    expect(await files.read('known-peers.json')).toBe('old');
    await files.writeAtomic('known-peers.json', 'after restart');
    expect(files.names()).toEqual(['known-peers.json']);
    expect(files.peek('known-peers.json')).toBe('after restart');
  });

  it("a process's handle: once its host died, nothing its code still asks lands or settles; the next process reads what was written", async () => {
    const files = new MemoryStateFiles('node-a');
    const host = { alive: true };
    const dead = files.forProcess(host);
    await dead.writeAtomic('drain.json', 'written');
    let settled = false;
    void dead.writeAtomic('drain.json', 'in flight').finally(() => (settled = true));
    host.alive = false;
    // The dead process's code running on after the crash (a promise chain it had started).
    void dead.writeAtomic('drain.json', 'from the dead').finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const next = files.forProcess({ alive: true });
    expect(await next.read('drain.json')).toBe('written');
    expect(next.pathOf('drain.json')).toBe('node-a/drain.json');
  });

  it('a broken disk rejects writes and prepare, naming the file, and keeps the old contents', async () => {
    const files = new MemoryStateFiles('node-a');
    await files.writeAtomic('drain.json', 'old');
    files.failWrites('no space left on device');
    await expect(files.writeAtomic('drain.json', 'new')).rejects.toThrow('cannot write node-a/drain.json: no space left on device');
    await expect(files.prepare()).rejects.toThrow('state files node-a are not writable: no space left on device');
    expect(await files.read('drain.json')).toBe('old');
    files.failWrites(undefined);
    await files.writeAtomic('drain.json', 'new');
    expect(await files.read('drain.json')).toBe('new');
  });
});
