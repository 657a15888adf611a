// The file source against real files in a temporary directory: editors' rename-and-replace saves, invalid
// edits, deletions, and the stat fallback when fs.watch is off.
import { REAL_RUNTIME, type Clock, type Scheduler } from '../../../src/runtime';
import { mkdtempSync, rmSync, writeFileSync, renameSync, unlinkSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nextState } from './next-state';
import {
  type ConfigParser,
  ConfigLoadError,
  FileSource,
  type FileSourceOptions,
  type FileSourceState,
  loadConfigFile,
  parseInProcess,
} from '../../../src/sources/file';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const TUTORIAL_L2 = readFileSync(join(FIXTURES, 'valid', 'tutorial-l2.yaml'), 'utf8');
const TUTORIAL_BGP = readFileSync(join(FIXTURES, 'valid', 'tutorial-bgp.yaml'), 'utf8');
const REVERSED = readFileSync(join(FIXTURES, 'invalid', 'reversed-range.yaml'), 'utf8');
/** Generous: CI machines are slow; the tests never assert on timing, only on outcomes. */

let dir: string;
let file: string;
const sources: FileSource[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mlb-file-source-'));
  file = join(dir, 'mlb.yaml');
});

afterEach(() => {
  for (const s of sources.splice(0)) s.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Saves the way editors do: write a temporary file beside it, then rename it over the original. */
function saveLikeAnEditor(text: string): void {
  const temp = join(dir, '.mlb.yaml.swp');
  writeFileSync(temp, text);
  renameSync(temp, file);
}

function source(options: FileSourceOptions = {}): FileSource {
  const s = new FileSource(file, { debounceMs: 20, pollIntervalMs: 100, settleMs: 10, ...options });
  sources.push(s);
  return s;
}

const poolNames = (state: FileSourceState): string[] => state.snapshot?.pools.map((p) => p.meta.name) ?? [];

describe('loadConfigFile', () => {
  it('validates a file and names it in positions', async () => {
    writeFileSync(file, REVERSED);
    const result = await loadConfigFile(file);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.find((d) => d.code === 'reversedRange')?.position).toEqual({ file, line: 9, column: 7 });
  });

  it('rejects with the fs error for a missing file', async () => {
    await expect(loadConfigFile(join(dir, 'nope.yaml'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('FileSource', () => {
  it('starts from a valid file with the clock it was given', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const state = await source({ runtime: { ...REAL_RUNTIME, now: () => 1234 } }).start();
    expect(state).toMatchObject({ stale: false, loadedAt: 1234 });
    // Notes only say which ipFamilies mlb chose for services that wrote none.
    expect(state.diagnostics.filter((d) => d.severity !== 'note')).toEqual([]);
    expect(poolNames(state)).toEqual(['default']);
  });

  it('parses the first load with firstParse and every reload with parse (the daemon: in-process, then a worker)', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const used: string[] = [];
    const counting =
      (name: string): ConfigParser =>
      (request, signal) => {
        used.push(name);
        return parseInProcess(request, signal);
      };
    const s = source({ firstParse: counting('first'), parse: counting('reload') });
    await s.start();
    const changed = nextState(s, (state) => poolNames(state).includes('bgp'));
    saveLikeAnEditor(TUTORIAL_BGP);
    await changed;
    expect(used).toEqual(['first', 'reload']);
  });

  it('reloads an edit reading only what changed: the same state as a fresh load, unchanged objects kept', async () => {
    const service = (name: string): string =>
      `---\napiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  type: LoadBalancer\n  ports: [{ port: 80 }]\n`;
    const services = Array.from({ length: 20 }, (_, i) => service(`svc-${i}`));
    writeFileSync(file, TUTORIAL_L2 + services.join(''));
    const s = source();
    const first = await s.start();
    const byName = (state: FileSourceState, name: string) => state.snapshot?.services.find((x) => x.meta.name === name);
    const fresh = async () => {
      const result = await loadConfigFile(file);
      return { snapshot: result.ok ? result.snapshot : undefined, diagnostics: result.diagnostics };
    };

    const appended = nextState(s, (state) => byName(state, 'added') !== undefined);
    saveLikeAnEditor(TUTORIAL_L2 + services.join('') + service('added'));
    const afterAppend = await appended;
    expect({ snapshot: afterAppend.snapshot, diagnostics: afterAppend.diagnostics }).toStrictEqual(await fresh());
    expect(byName(afterAppend, 'svc-0')).toBe(byName(first, 'svc-0'));

    // An edit in the middle that adds a line: the documents after it start elsewhere and are read again.
    const edited = services.map((text, i) => (i === 10 ? text.replace('ports:', 'loadBalancerClass: other\n  ports:') : text));
    const changed = nextState(s, (state) => byName(state, 'added') === undefined);
    saveLikeAnEditor(TUTORIAL_L2 + edited.join(''));
    const afterEdit = await changed;
    expect({ snapshot: afterEdit.snapshot, diagnostics: afterEdit.diagnostics }).toStrictEqual(await fresh());
    expect(byName(afterEdit, 'svc-9')).toBe(byName(first, 'svc-9'));
    expect(byName(afterEdit, 'svc-11')).not.toBe(byName(first, 'svc-11'));
  });

  it('refuses to start from an invalid file, with the reasons', async () => {
    writeFileSync(file, REVERSED);
    const s = source();
    const error = await s.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigLoadError);
    expect((error as ConfigLoadError).diagnostics.map((d) => d.code)).toContain('reversedRange');
    expect(s.state.snapshot).toBeUndefined();
  });

  it('refuses to start without a file', async () => {
    await expect(source().start()).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('picks up an editor-style save as a new snapshot', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const s = source({ pollIntervalMs: 60_000 }); // fs.watch alone
    await s.start();
    const changed = nextState(s, (state) => poolNames(state).includes('bgp'));
    saveLikeAnEditor(TUTORIAL_BGP);
    const state = await changed;
    expect(state.stale).toBe(false);
    expect(state.snapshot?.bgpPeers.map((p) => p.meta.name)).toEqual(['router']);
  });

  it('keeps the last good snapshot through an invalid edit, reports stale, and recovers', async () => {
    writeFileSync(file, TUTORIAL_L2);
    let clock = 1;
    const s = source({ runtime: { ...REAL_RUNTIME, now: () => clock } });
    const first = await s.start();
    clock = 2;
    const stale = nextState(s, (state) => state.stale);
    saveLikeAnEditor(REVERSED);
    const staleState = await stale;
    expect(staleState.snapshot).toBe(first.snapshot);
    expect(staleState.loadedAt).toBe(1);
    expect(staleState.diagnostics.find((d) => d.severity === 'error')?.message).toContain(
      'start IP "192.168.10.210" is after the end IP "192.168.10.200"',
    );

    const fresh = nextState(s, (state) => !state.stale);
    saveLikeAnEditor(TUTORIAL_BGP);
    const freshState = await fresh;
    expect(poolNames(freshState)).toEqual(['bgp']);
    expect(freshState.loadedAt).toBe(2);
  });

  it('reports a deleted file as stale and recovers when it comes back', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const s = source();
    await s.start();
    const gone = nextState(s, (state) => state.stale);
    unlinkSync(file);
    const goneState = await gone;
    expect(goneState.diagnostics[0]?.code).toBe('fileUnreadable');
    expect(poolNames(goneState)).toEqual(['default']);
    const back = nextState(s, (state) => !state.stale);
    writeFileSync(file, TUTORIAL_L2);
    expect(poolNames(await back)).toEqual(['default']);
  });

  it('notices edits through the stat poll when fs.watch is off', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const s = source({ useFsWatch: false, pollIntervalMs: 50 });
    await s.start();
    const changed = nextState(s, (state) => poolNames(state).includes('bgp'));
    writeFileSync(file, TUTORIAL_BGP);
    expect((await changed).stale).toBe(false);
  });

  it('does not announce a new snapshot when the file is rewritten unchanged', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const s = source({ useFsWatch: false, pollIntervalMs: 60_000 });
    const first = await s.start();
    const seen: FileSourceState[] = [];
    s.onChange((state) => seen.push(state));
    writeFileSync(file, TUTORIAL_L2);
    const state = await s.reload();
    expect(seen).toEqual([]);
    expect(state.snapshot).toBe(first.snapshot);
  });

  it('debounces change notices through the injected scheduler: nothing is read until the timer fires', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const timeouts = new Map<number, () => void>();
    let nextId = 1;
    let pollTick: (() => void) | undefined;
    const runtime: Clock & Scheduler = {
      now: () => Date.now(),
      after: (_ms, fn) => {
        const id = nextId++;
        timeouts.set(id, fn);
        return { cancel: () => void timeouts.delete(id) };
      },
      every: (_ms, fn) => {
        pollTick = fn;
        return { cancel: () => undefined };
      },
      at: () => ({ cancel: () => undefined }),
    };
    // No settle wait: every timer here is the debounce's.
    const s = source({ runtime, useFsWatch: false, settleMs: 0 });
    await s.start();
    writeFileSync(file, TUTORIAL_BGP);
    pollTick?.();
    await vi.waitFor(() => expect(timeouts.size).toBe(1));
    pollTick?.(); // a second notice replaces the pending timer instead of adding one
    await vi.waitFor(() => expect([...timeouts.keys()]).toEqual([2]));
    expect(poolNames(s.state)).toEqual(['default']);
    const changed = nextState(s, (state) => poolNames(state).includes('bgp'));
    timeouts.get(2)?.();
    expect(poolNames(await changed)).toEqual(['bgp']);
  });
});
