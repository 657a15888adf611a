/**
 * The WarmUp shell (src/daemon/damping/warm-up.ts) with a real temporary --state-dir on a manual clock: what the
 * daemon publishes (active, until), the log lines with what was counted, onEnd when the warm-up is over, and what
 * the next start reads: a crash of a running daemon counts; a clean stop, and a start that never got running
 * (a configuration refused), do not; an unwritable state dir leaves damping off instead of failing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualRuntime } from '../../support/manual-runtime';
import { WarmUp } from '../../../src/daemon/damping/warm-up';
import { WARM_UP_BASE_MS } from '../../../src/daemon/damping/warm-up-policy';
import { RESTART_HISTORY_FILE } from '../../../src/daemon/damping/restart-history';
import { type Log } from '../../../src/runtime/log';

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg?: string;
}

function recorder(): { logger: Log; lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, msg?: string) =>
    lines.push({ level, fields: fields as Record<string, unknown>, ...(msg === undefined ? {} : { msg }) });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

let dir: string;
/** The clock every start reads and the warm-up's timer runs on: it moves only when a test says so. */
let rt: ManualRuntime;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mlb-warmup-'));
  rt = new ManualRuntime(Date.parse('2026-12-01T10:00:00Z'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Every line each WarmUp logged, as it logs them (later lines too: the end of the warm-up). */
const logged = new WeakMap<WarmUp, Line[]>();
const recorderOf = (w: WarmUp): Line[] => logged.get(w) ?? [];

/** One daemon process: starts at the clock, then (unless refused) gets running. */
async function daemonStart(lines: Line[] | undefined, how: 'running' | 'refused', onEnd?: () => void): Promise<WarmUp> {
  const log = recorder();
  const w = await WarmUp.start({ stateDir: dir, startedAt: rt.now(), logger: log.logger, runtime: rt, ...(onEnd ? { onEnd } : {}) });
  if (how === 'running') {
    await rt.advanceBy(2 * 1000);
    await w.markRunning();
  }
  lines?.push(...log.lines);
  logged.set(w, log.lines);
  return w;
}

const decided = (lines: Line[]): Line | undefined =>
  lines.find((l) => l.fields.event === 'warmUpStarted' || l.fields.event === 'warmUpSkipped');

describe('WarmUp', () => {
  it('first start: not warming, logged as skipped with its reason', async () => {
    const lines: Line[] = [];
    const w = await daemonStart(lines, 'running');
    expect(w.active).toBe(false);
    expect(w.until).toBeUndefined();
    expect(decided(lines)).toMatchObject({ level: 'info', fields: { event: 'warmUpSkipped', reason: 'noEarlierRun' } });
    expect(lines.at(-1)).toMatchObject({ fields: { event: 'runRecorded' } });
    w.close();
  });

  it('a start after a running daemon crashed warms up for BASE, then ends by itself exactly then, logs it and calls onEnd once', async () => {
    (await daemonStart(undefined, 'running')).close();
    await rt.advanceBy(20_000);
    const startedAt = rt.now();
    const onEnd = vi.fn();
    const lines: Line[] = [];
    const w = await daemonStart(lines, 'running', onEnd);
    expect(w.active).toBe(true);
    expect(w.until).toBe(startedAt + WARM_UP_BASE_MS);
    expect(w.reason).toMatch(
      /^1 unclean end of a running daemon in the last 1 h \(the last run, running since 2026-12-01T10:00:02.000Z, has no clean stop on record: it crashed or was killed; .*\): warming up for 30 s$/,
    );
    expect(decided(lines)).toMatchObject({
      fields: { event: 'warmUpStarted', reason: 'recentUncleanEnds', uncleanEnds: 1, lastStop: 'unclean', durationMs: WARM_UP_BASE_MS },
      msg: w.reason,
    });
    const log = recorderOf(w);
    await rt.advanceTo(startedAt + WARM_UP_BASE_MS - 1);
    expect(w.active).toBe(true);
    expect(onEnd).not.toHaveBeenCalled();
    expect(log.filter((l) => l.fields.event === 'warmUpEnded')).toEqual([]);
    await rt.advanceTo(startedAt + WARM_UP_BASE_MS);
    expect(w.active).toBe(false);
    expect(w.until).toBeUndefined();
    expect(onEnd).toHaveBeenCalledTimes(1);
    expect(log.filter((l) => l.fields.event === 'warmUpEnded')).toEqual([
      {
        level: 'info',
        fields: { event: 'warmUpEnded', reason: 'elapsed', durationMs: WARM_UP_BASE_MS },
        msg: 'warm-up over: taking part in elections as a steady node',
      },
    ]);
    w.close();
  });

  it('an operator ends it early (mlb warmup end): logged with reason operator and the time left, onEnd once, the timer never fires', async () => {
    (await daemonStart(undefined, 'running')).close();
    await rt.advanceBy(20_000);
    const onEnd = vi.fn();
    const log = recorder();
    const w = await WarmUp.start({ stateDir: dir, startedAt: rt.now(), logger: log.logger, runtime: rt, onEnd });
    expect(w.active).toBe(true);
    await rt.advanceBy(10_000);
    expect(w.endNow()).toBe(true);
    expect(w.active).toBe(false);
    expect(onEnd).toHaveBeenCalledTimes(1);
    expect(log.lines.at(-1)).toMatchObject({
      level: 'info',
      fields: { event: 'warmUpEnded', reason: 'operator', leftMs: WARM_UP_BASE_MS - 10_000 },
    });
    expect(log.lines.at(-1)!.msg).toMatch(/^warm-up ended by an operator \(mlb warmup end\) with 20 s left/);
    expect(w.endNow()).toBe(false);
    await rt.advanceBy(WARM_UP_BASE_MS);
    expect(onEnd).toHaveBeenCalledTimes(1);
    expect(log.lines.filter((l) => l.fields.event === 'warmUpEnded')).toHaveLength(1);
    w.close();
  });

  it('a clean stop does not count: the next start does not warm up; close() cancels without calling onEnd', async () => {
    const first = await daemonStart(undefined, 'running');
    await first.markCleanStop();
    first.close();
    await rt.advanceBy(5000);
    const lines: Line[] = [];
    const second = await daemonStart(lines, 'running');
    expect(second.active).toBe(false);
    expect(second.decision).toMatchObject({ lastStop: 'clean', uncleanEnds: 0, durationMs: 0 });
    expect(decided(lines)?.msg).toMatch(
      /^no unclean end of a running daemon in the last 1 h \(the last run, running since .*, stopped cleanly 5 s ago; clean stops and starts that never got running are not counted\): no warm-up$/,
    );
  });

  it('starts refused for a configuration typo (4, as systemd retries) do not count: the fixed start does not warm up', async () => {
    const first = await daemonStart(undefined, 'running');
    await first.markCleanStop();
    first.close();
    for (let i = 0; i < 4; i++) {
      await rt.advanceBy(10_000);
      const refused = await daemonStart(undefined, 'refused');
      expect(refused.active).toBe(false);
      refused.close();
    }
    await rt.advanceBy(10_000);
    const fixed = await daemonStart(undefined, 'running');
    expect(fixed.active).toBe(false);
    expect(fixed.decision).toMatchObject({ code: 'noRecentUncleanEnd', uncleanEnds: 0, lastStop: 'clean' });
    fixed.close();
  });

  it('a crash then refused starts: the crash is counted once, when first noticed, and the file says so', async () => {
    (await daemonStart(undefined, 'running')).close();
    await rt.advanceBy(10_000);
    const crashNoticedAt = rt.now();
    for (let i = 0; i < 3; i++) {
      (await daemonStart(undefined, 'refused')).close();
      await rt.advanceBy(10_000);
    }
    const fixed = await daemonStart(undefined, 'running');
    expect(fixed.decision).toMatchObject({ uncleanEnds: 1, durationMs: WARM_UP_BASE_MS });
    fixed.close();
    const file = JSON.parse(readFileSync(join(dir, RESTART_HISTORY_FILE), 'utf8'));
    expect(file.runs).toEqual([
      { runningSince: '2026-12-01T10:00:02.000Z', uncleanEndNoticedAt: new Date(crashNoticedAt).toISOString() },
      { runningSince: new Date(rt.now()).toISOString() },
    ]);
  });

  it('a graceful stop of a start that never got running does not mark the earlier crash clean', async () => {
    (await daemonStart(undefined, 'running')).close();
    await rt.advanceBy(10_000);
    const stoppedEarly = await daemonStart(undefined, 'refused');
    await stoppedEarly.markCleanStop();
    stoppedEarly.close();
    await rt.advanceBy(10_000);
    const next = await daemonStart(undefined, 'running');
    expect(next.decision).toMatchObject({ uncleanEnds: 1, lastStop: 'unclean' });
    next.close();
  });

  it('an unwritable state dir: warned, no warm-up, the daemon still starts', async () => {
    // A directory that does not exist cannot be written, not even by root (mode bits would not stop root).
    dir = join(dir, 'missing', 'deeper');
    const lines: Line[] = [];
    const w = await daemonStart(lines, 'running');
    expect(w.active).toBe(false);
    expect(lines.at(-1)).toMatchObject({ level: 'warn', fields: { event: 'restartHistoryUnwritable' } });
    expect(lines.at(-1)?.msg).toBe('cannot record this run under --state-dir: a crash of it will not count toward flap damping');
    await w.markCleanStop();
    w.close();
  });
});
