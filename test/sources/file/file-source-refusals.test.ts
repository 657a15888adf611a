// What the file source refuses while it runs, and that the last good configuration keeps running meanwhile: a file
// still being written, emptied or cut off, a FIFO or an oversize file at the path, a parse that cannot finish.
import type { Clock, Scheduler } from '../../../src/runtime';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigLoadError,
  ConfigParseError,
  type ConfigParser,
  FileSource,
  type FileSourceOptions,
  type FileSourceState,
  parseInProcess,
} from '../../../src/sources/file';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const TUTORIAL_L2 = readFileSync(join(FIXTURES, 'valid', 'tutorial-l2.yaml'), 'utf8');
const TUTORIAL_BGP = readFileSync(join(FIXTURES, 'valid', 'tutorial-bgp.yaml'), 'utf8');
/** Generous: CI machines are slow; the tests never assert on timing, only on outcomes. */
const WAIT_MS = 10_000;

let dir: string;
let file: string;
const sources: FileSource[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mlb-file-refusals-'));
  file = join(dir, 'mlb.yaml');
});

afterEach(() => {
  for (const s of sources.splice(0)) s.stop();
  rmSync(dir, { recursive: true, force: true });
});

function source(options: FileSourceOptions = {}): FileSource {
  const s = new FileSource(file, { useFsWatch: false, pollIntervalMs: 60_000, settleMs: 0, ...options });
  sources.push(s);
  return s;
}

/** Fails instead of hanging when `promise` does not settle (a blocked read would otherwise stall the test run). */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT_MS} ms`)), WAIT_MS).unref()),
  ]);
}

const poolNames = (state: FileSourceState): string[] => state.snapshot?.pools.map((p) => p.meta.name) ?? [];
const errorCodes = (state: FileSourceState): string[] => state.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);

/**
 * A Scheduler whose timeouts fire only when the test says so, and a clock that stands `clockOffsetMs` from the
 * wall clock (the file's ctime is the wall clock's): at the start of the test by default, so every file the test
 * writes looks freshly written however slowly the test runs.
 */
function manualTimers(clockOffsetMs?: number) {
  const pending: { fn: () => void; ms: number }[] = [];
  const testStart = Date.now();
  const runtime: Clock & Scheduler = {
    now: () => (clockOffsetMs === undefined ? testStart : Date.now() + clockOffsetMs),
    after: (ms, fn) => {
      const timer = { fn, ms };
      pending.push(timer);
      return {
        cancel: () => {
          const at = pending.indexOf(timer);
          if (at !== -1) pending.splice(at, 1);
        },
      };
    },
    at: () => ({ cancel: () => undefined }),
    every: () => ({ cancel: () => undefined }),
  };
  /** Waits until the source has set a timer, returns its delay, and fires it once `before` has run. */
  async function fireNext(before: () => void = () => undefined): Promise<number> {
    await vi.waitFor(() => expect(pending.length).toBeGreaterThan(0), { timeout: WAIT_MS });
    const timer = pending.shift()!;
    before();
    timer.fn();
    return timer.ms;
  }
  return { runtime, fireNext };
}

describe('FileSource: a file being written', () => {
  it('waits until size and mtime stop changing, then reads the finished file once', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const timers = manualTimers();
    const s = source({ runtime: timers.runtime, settleMs: 50 });
    const started = s.start();
    await timers.fireNext();
    await started;
    const seen: FileSourceState[] = [];
    s.onChange((state) => seen.push(state));

    // A writer truncates the file and writes the first half; the reload starts while it is still at it.
    const half = TUTORIAL_BGP.indexOf('kind: BGPPeer') + 8;
    writeFileSync(file, TUTORIAL_BGP.slice(0, half));
    const reloading = s.reload();
    // The writer finishes during the settle wait: the size changed, so mlb waits once more ...
    expect(await timers.fireNext(() => appendFileSync(file, TUTORIAL_BGP.slice(half)))).toBe(50);
    // ... and then, the file unchanged, reads it.
    await timers.fireNext();
    await within(reloading, 'the reload');
    expect(seen.map((state) => state.stale)).toEqual([false]);
    expect(poolNames(s.state)).toEqual(['bgp']);
  });
});

describe('FileSource: a file that was written a while ago', () => {
  it('is read at once, at start and on a reload: its ctime says it has been unchanged for the settle time', async () => {
    writeFileSync(file, TUTORIAL_L2);
    // The clock a minute ahead: the file was last touched a minute ago.
    const timers = manualTimers(60_000);
    const s = source({ runtime: timers.runtime, settleMs: 50 });
    await within(s.start(), 'the start, with no timer fired');
    expect(poolNames(s.state)).toEqual(['default']);
    writeFileSync(file, TUTORIAL_BGP);
    await within(s.reload(), 'the reload, with no timer fired');
    expect(poolNames(s.state)).toEqual(['bgp']);
  });

  it('is waited for when it was touched within the settle time', async () => {
    writeFileSync(file, TUTORIAL_L2);
    // The clock 40 ms ahead, inside the 10 s settle time: the file looks freshly written.
    const timers = manualTimers(40);
    const s = source({ runtime: timers.runtime, settleMs: 10_000 });
    const started = s.start();
    expect(await timers.fireNext()).toBe(10_000);
    await within(started, 'the start');
    expect(poolNames(s.state)).toEqual(['default']);
  });
});

describe('FileSource: refused files keep the last good configuration', () => {
  async function started(options: FileSourceOptions = {}): Promise<FileSource> {
    writeFileSync(file, TUTORIAL_L2);
    const s = source(options);
    await s.start();
    return s;
  }

  it.each([
    ['emptied (: > mlb.yaml)', ''],
    ['left with comments only', '# new configuration follows\n'],
  ])('a file %s is stale with a reason, not a configuration without services', async (_name, text) => {
    const s = await started();
    writeFileSync(file, text);
    const state = await within(s.reload(), 'the reload');
    expect(state.stale).toBe(true);
    expect(poolNames(state)).toEqual(['default']);
    expect(state.snapshot?.services).toHaveLength(3);
    expect(errorCodes(state)).toEqual(['fileEmpty']);
    expect(state.diagnostics[0]?.message).toContain(`${file} holds no objects`);
    expect(state.diagnostics[0]?.message).toContain(`rename it over ${file}`);
  });

  it('a file cut off inside its last document is stale, though what is left would validate', async () => {
    const s = await started();
    // What `head -c` or a writer caught mid-way leaves: valid YAML, one service short of a field.
    writeFileSync(file, TUTORIAL_L2.slice(0, TUTORIAL_L2.length - 3));
    const state = await within(s.reload(), 'the reload');
    expect(state.stale).toBe(true);
    expect(state.snapshot?.services).toHaveLength(3);
    expect(errorCodes(state)).toEqual(['fileIncomplete']);
    expect(state.diagnostics[0]?.message).toContain('does not end with a newline');
  });

  it('a FIFO put at the path is refused at once, without opening it, and the source still stops', async () => {
    const s = await started();
    const fifo = join(dir, 'pipe');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
    renameSync(fifo, file);
    const state = await within(s.reload(), 'the reload of a FIFO');
    expect(state.stale).toBe(true);
    expect(poolNames(state)).toEqual(['default']);
    expect(errorCodes(state)).toEqual(['fileNotRegular']);
    expect(state.diagnostics[0]?.message).toContain(`${file} is a FIFO (named pipe), not a regular file`);
    s.stop();
  });

  it('a FIFO at the path fails the start with the reason', async () => {
    spawnSync('mkfifo', [file]);
    const error = await within(
      source()
        .start()
        .catch((e: unknown) => e),
      'the start on a FIFO',
    );
    expect(error).toBeInstanceOf(ConfigLoadError);
    expect((error as ConfigLoadError).diagnostics.map((d) => d.code)).toEqual(['fileNotRegular']);
  });

  it('a file over the size limit is refused before it is read', async () => {
    const s = await started({ maxBytes: TUTORIAL_L2.length + 100 });
    writeFileSync(file, `${TUTORIAL_L2}${'#'.repeat(200)}\n`);
    const state = await within(s.reload(), 'the reload');
    expect(state.stale).toBe(true);
    expect(poolNames(state)).toEqual(['default']);
    expect(errorCodes(state)).toEqual(['fileTooLarge']);
    expect(state.diagnostics[0]?.message).toContain('raise --max-config-bytes');
  });

  it('recovers when a complete file replaces the refused one', async () => {
    const s = await started();
    writeFileSync(file, '');
    expect((await s.reload()).stale).toBe(true);
    writeFileSync(file, TUTORIAL_BGP);
    const state = await s.reload();
    expect(state.stale).toBe(false);
    expect(poolNames(state)).toEqual(['bgp']);
  });
});

describe('FileSource: the injected parser', () => {
  it('parses with the parser it was given', async () => {
    writeFileSync(file, TUTORIAL_L2);
    const files: string[] = [];
    const parse: ConfigParser = (request, signal) => {
      files.push(request.file);
      return parseInProcess(request, signal);
    };
    await source({ parse }).start();
    expect(files).toEqual([file]);
  });

  it('a parse that cannot finish is stale with its reason, and the same text is parsed again next time', async () => {
    writeFileSync(file, TUTORIAL_L2);
    let failing = false;
    const parse: ConfigParser = (request, signal) =>
      failing
        ? Promise.reject(new ConfigParseError('parseOutOfMemory', 'the parser ran out of its 2048 MB of memory'))
        : parseInProcess(request, signal);
    const s = source({ parse });
    await s.start();
    failing = true;
    writeFileSync(file, TUTORIAL_BGP);
    const stale = await s.reload();
    expect(stale.stale).toBe(true);
    expect(poolNames(stale)).toEqual(['default']);
    expect(errorCodes(stale)).toEqual(['parseFailed']);
    expect(stale.diagnostics[0]?.message).toBe(`${file} could not be parsed: the parser ran out of its 2048 MB of memory`);
    failing = false;
    expect(poolNames(await s.reload())).toEqual(['bgp']);
  });

  it('stop() cancels a parse in progress: a reload never holds up a shutdown', async () => {
    writeFileSync(file, TUTORIAL_L2);
    let parsing = false;
    let hung = false;
    const hanging: ConfigParser = (request, signal) => {
      if (!parsing) return parseInProcess(request, signal);
      hung = true;
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new ConfigParseError('parseAborted', 'cancelled'))));
    };
    const s = source({ parse: hanging });
    const first = await s.start();
    parsing = true;
    writeFileSync(file, TUTORIAL_BGP);
    const reloading = s.reload();
    await vi.waitFor(() => expect(hung).toBe(true));
    s.stop();
    const state = await within(reloading, 'the reload after stop()');
    expect(state.snapshot).toBe(first.snapshot);
    expect(state.stale).toBe(false);
  });
});
