/**
 * The restart history (src/daemon/damping/restart-history.ts): the pure updates and their bounds, and the file
 * under a real temporary --state-dir: a start after a crash and after a clean stop, a damaged file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EMPTY_RESTART_HISTORY,
  loadRestartHistory,
  markCleanStop,
  recordStart,
  RESTART_HISTORY_FILE,
  RESTART_HISTORY_MAX_RUNS,
  RESTART_HISTORY_RETENTION_MS,
  withCleanStop,
  withStart,
} from '../../../src/daemon/damping/restart-history';
import { warmUpFor } from '../../../src/daemon/damping/warm-up-policy';

const DAY = 24 * 60 * 60 * 1000;

describe('withStart / withCleanStop', () => {
  it('appends the run; a clean stop marks the current run only', () => {
    let h = withStart(EMPTY_RESTART_HISTORY, 1000);
    h = withCleanStop(h, 2000);
    h = withStart(h, 3000);
    expect(h.runs).toEqual([{ startedAt: 1000, stoppedCleanlyAt: 2000 }, { startedAt: 3000 }]);
    expect(withCleanStop(EMPTY_RESTART_HISTORY, 5)).toEqual(EMPTY_RESTART_HISTORY);
  });

  it('keeps at most RESTART_HISTORY_MAX_RUNS runs, the newest', () => {
    let h = EMPTY_RESTART_HISTORY;
    for (let i = 0; i < RESTART_HISTORY_MAX_RUNS + 10; i++) h = withStart(h, i * 1000);
    expect(h.runs).toHaveLength(RESTART_HISTORY_MAX_RUNS);
    expect(h.runs.at(-1)?.startedAt).toBe((RESTART_HISTORY_MAX_RUNS + 9) * 1000);
  });

  it('drops runs older than the retention, but never the run that just ended, however old', () => {
    let h = withStart(EMPTY_RESTART_HISTORY, 0);
    h = withStart(h, 1000);
    h = withStart(h, 30 * DAY);
    expect(h.runs.map((r) => r.startedAt)).toEqual([1000, 30 * DAY]);
    h = withStart(h, 30 * DAY + RESTART_HISTORY_RETENTION_MS + 1);
    expect(h.runs.map((r) => r.startedAt)).toEqual([30 * DAY, 30 * DAY + RESTART_HISTORY_RETENTION_MS + 1]);
  });
});

describe('the file', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const stateDir = (): string => (dir = mkdtempSync(join(tmpdir(), 'mlb-restarts-')));

  it('a start, a crash, a start: the second start sees a crash and warms up', async () => {
    const d = stateDir();
    const first = await recordStart(d, Date.parse('2026-10-04T08:00:00Z'));
    expect(first.problem).toBeUndefined();
    expect(warmUpFor(first.history, Date.parse('2026-10-04T08:00:00Z')).durationMs).toBe(0);
    const second = await recordStart(d, Date.parse('2026-10-04T08:00:10Z'));
    expect(warmUpFor(second.history, Date.parse('2026-10-04T08:00:10Z'))).toMatchObject({ lastStop: 'crash', recentStarts: 2 });
    const file = JSON.parse(readFileSync(join(d, RESTART_HISTORY_FILE), 'utf8'));
    expect(file).toEqual({ version: 1, runs: [{ startedAt: '2026-10-04T08:00:00.000Z' }, { startedAt: '2026-10-04T08:00:10.000Z' }] });
  });

  it('markCleanStop is seen by the next start', async () => {
    const d = stateDir();
    await recordStart(d, 1_000_000);
    await markCleanStop(d, 1_005_000);
    const next = await recordStart(d, 1_006_000);
    expect(next.history.runs).toEqual([{ startedAt: 1_000_000, stoppedCleanlyAt: 1_005_000 }, { startedAt: 1_006_000 }]);
    expect(warmUpFor(next.history, 1_006_000).lastStop).toBe('clean');
  });

  it('a damaged file is reported and replaced, not trusted', async () => {
    const d = stateDir();
    writeFileSync(join(d, RESTART_HISTORY_FILE), '{"version":1,"runs":[{"startedAt":"yesterday"}]}');
    expect((await loadRestartHistory(d)).problem).toMatch(/restarts\.json: .*does not hold what mlb wrote there/);
    writeFileSync(join(d, RESTART_HISTORY_FILE), '{ not json');
    const recorded = await recordStart(d, 5000);
    expect(recorded.problem).toMatch(/restarts\.json: /);
    expect(recorded.history.runs).toEqual([{ startedAt: 5000 }]);
    expect((await loadRestartHistory(d)).problem).toBeUndefined();
  });
});
