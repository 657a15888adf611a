/**
 * The restart history (src/daemon/damping/restart-history.ts): the pure updates and their bounds, and the file
 * under a real temporary --state-dir: only runs that got running are recorded, a clean stop marks this process's
 * run only, an unclean end is noticed once, and a damaged or older file is reported and replaced.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EMPTY_RESTART_HISTORY,
  loadRestartHistory,
  recordCleanStop,
  recordRunning,
  RESTART_HISTORY_FILE,
  RESTART_HISTORY_MAX_RUNS,
  RESTART_HISTORY_RETENTION_MS,
  runEnd,
  withCleanStop,
  withRunning,
  withUncleanEndNoticed,
} from '../../../src/daemon/damping/restart-history';

const DAY = 24 * 60 * 60 * 1000;

describe('the pure updates', () => {
  it('a run is recorded when it gets running; a clean stop marks it', () => {
    let h = withRunning(EMPTY_RESTART_HISTORY, 1000);
    expect(runEnd(h.runs[0]!)).toBe('open');
    h = withCleanStop(h, 1000, 2000);
    expect(h.runs).toEqual([{ runningSince: 1000, stoppedCleanlyAt: 2000 }]);
    expect(runEnd(h.runs[0]!)).toBe('clean');
  });

  it('a start notices an open last run as ended uncleanly, once: later starts leave the first notice', () => {
    const crashed = withRunning(EMPTY_RESTART_HISTORY, 1000);
    const noticed = withUncleanEndNoticed(crashed, 5000);
    expect(noticed.runs).toEqual([{ runningSince: 1000, uncleanEndNoticedAt: 5000 }]);
    expect(withUncleanEndNoticed(noticed, 9000)).toBe(noticed);
    const clean = withCleanStop(crashed, 1000, 2000);
    expect(withUncleanEndNoticed(clean, 9000)).toBe(clean);
    expect(withUncleanEndNoticed(EMPTY_RESTART_HISTORY, 9000)).toBe(EMPTY_RESTART_HISTORY);
  });

  it('a clean stop marks only the run this process recorded: one that never got running marks nothing', () => {
    const crashed = withRunning(EMPTY_RESTART_HISTORY, 1000);
    expect(withCleanStop(crashed, 4000, 5000)).toBe(crashed);
    const noticed = withUncleanEndNoticed(crashed, 3000);
    expect(withCleanStop(noticed, 1000, 5000)).toBe(noticed);
  });

  it('keeps at most RESTART_HISTORY_MAX_RUNS runs, the newest', () => {
    let h = EMPTY_RESTART_HISTORY;
    for (let i = 0; i < RESTART_HISTORY_MAX_RUNS + 10; i++) h = withRunning(withUncleanEndNoticed(h, i * 1000), i * 1000);
    expect(h.runs).toHaveLength(RESTART_HISTORY_MAX_RUNS);
    expect(h.runs.at(-1)?.runningSince).toBe((RESTART_HISTORY_MAX_RUNS + 9) * 1000);
  });

  it('drops runs whose last event is older than the retention, but never the last run, however old', () => {
    let h = withRunning(EMPTY_RESTART_HISTORY, 0);
    h = withRunning(withCleanStop(h, 0, 1000), 2000);
    h = withRunning(h, 30 * DAY);
    expect(h.runs.map((r) => r.runningSince)).toEqual([2000, 30 * DAY]);
    h = withRunning(h, 30 * DAY + RESTART_HISTORY_RETENTION_MS + 1);
    expect(h.runs.map((r) => r.runningSince)).toEqual([30 * DAY, 30 * DAY + RESTART_HISTORY_RETENTION_MS + 1]);
  });
});

describe('the file', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const stateDir = (): string => (dir = mkdtempSync(join(tmpdir(), 'mlb-restarts-')));

  it('holds running runs with how they ended, in ISO time', async () => {
    const d = stateDir();
    await recordRunning(d, Date.parse('2026-10-04T08:00:00Z'));
    await recordCleanStop(d, Date.parse('2026-10-04T08:00:00Z'), Date.parse('2026-10-04T09:00:00Z'));
    await recordRunning(d, Date.parse('2026-10-04T09:00:05Z'));
    expect(JSON.parse(readFileSync(join(d, RESTART_HISTORY_FILE), 'utf8'))).toEqual({
      version: 2,
      runs: [
        { runningSince: '2026-10-04T08:00:00.000Z', stoppedCleanlyAt: '2026-10-04T09:00:00.000Z' },
        { runningSince: '2026-10-04T09:00:05.000Z' },
      ],
    });
    expect((await loadRestartHistory(d)).history.runs).toEqual([
      { runningSince: Date.parse('2026-10-04T08:00:00Z'), stoppedCleanlyAt: Date.parse('2026-10-04T09:00:00Z') },
      { runningSince: Date.parse('2026-10-04T09:00:05Z') },
    ]);
  });

  it('a damaged file is reported, not trusted', async () => {
    const d = stateDir();
    writeFileSync(join(d, RESTART_HISTORY_FILE), '{"version":2,"runs":[{"runningSince":"yesterday"}]}');
    expect(await loadRestartHistory(d)).toEqual({
      history: EMPTY_RESTART_HISTORY,
      problem: `${join(d, RESTART_HISTORY_FILE)} does not hold what mlb wrote there; starting a new restart history`,
    });
    writeFileSync(join(d, RESTART_HISTORY_FILE), '{ not json');
    expect((await loadRestartHistory(d)).problem).toMatch(/restarts\.json: .*JSON.*; starting a new restart history$/);
  });

  it('a file from an earlier mlb (every start a run, refused ones too) is replaced, and says why', async () => {
    const d = stateDir();
    writeFileSync(join(d, RESTART_HISTORY_FILE), '{"version":1,"runs":[{"startedAt":"2026-10-04T08:00:00.000Z"}]}');
    expect((await loadRestartHistory(d)).problem).toBe(
      `${join(d, RESTART_HISTORY_FILE)} is from an earlier mlb that counted refused starts as crashes; starting a new restart history`,
    );
  });
});
