/**
 * The WarmUp shell (src/daemon/damping/warm-up.ts) with a real temporary --state-dir and fake timers: what the
 * daemon publishes (active, until), the log lines with their reasons, onEnd when the warm-up is over, the clean
 * stop recorded for the next start, and an unwritable state dir that leaves damping off instead of failing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WarmUp, type WarmUpLogger } from '../../../src/daemon/damping/warm-up';
import { WARM_UP_BASE_MS } from '../../../src/daemon/damping/warm-up-policy';

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg?: string;
}

function recorder(): { logger: WarmUpLogger; lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, msg?: string) => lines.push({ level, fields: fields as Record<string, unknown>, ...(msg === undefined ? {} : { msg }) });
  return { logger: { info: at('info'), warn: at('warn') }, lines };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mlb-warmup-'));
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

describe('WarmUp', () => {
  it('first start: not warming, logged as skipped with its reason', async () => {
    const { logger, lines } = recorder();
    const w = await WarmUp.start({ stateDir: dir, startedAt: Date.now(), logger });
    expect(w.active).toBe(false);
    expect(w.until).toBeUndefined();
    expect(lines).toEqual([expect.objectContaining({ level: 'info', fields: expect.objectContaining({ event: 'warmUpSkipped', reason: 'firstStart' }) })]);
    w.close();
  });

  it('a start after a crash warms up for BASE, then ends by itself and calls onEnd once', async () => {
    const { logger, lines } = recorder();
    const t0 = Date.now();
    (await WarmUp.start({ stateDir: dir, startedAt: t0 - 20_000, logger })).close();
    vi.useFakeTimers();
    const onEnd = vi.fn();
    const w = await WarmUp.start({ stateDir: dir, startedAt: t0, logger, onEnd });
    expect(w.active).toBe(true);
    expect(w.until).toBe(t0 + 2 * WARM_UP_BASE_MS);
    expect(w.reason).toBe('started 2 times in 1 h (last stop was a crash): warming up for 1 min');
    expect(lines.at(-1)).toMatchObject({ fields: { event: 'warmUpStarted', reason: 'restarted', durationMs: 2 * WARM_UP_BASE_MS }, msg: w.reason });
    await vi.advanceTimersByTimeAsync(2 * WARM_UP_BASE_MS - 1);
    expect(w.active).toBe(true);
    expect(onEnd).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(w.active).toBe(false);
    expect(w.until).toBeUndefined();
    expect(onEnd).toHaveBeenCalledTimes(1);
    expect(lines.at(-1)?.fields.event).toBe('warmUpEnded');
    w.close();
  });

  it('markCleanStop is what the next start reads; close() cancels the end without calling onEnd', async () => {
    vi.useFakeTimers();
    const { logger } = recorder();
    const t0 = Date.now();
    const first = await WarmUp.start({ stateDir: dir, startedAt: t0, logger });
    await first.markCleanStop();
    first.close();
    const onEnd = vi.fn();
    const second = await WarmUp.start({ stateDir: dir, startedAt: t0 + 5000, logger, onEnd });
    expect(second.decision).toMatchObject({ lastStop: 'clean', durationMs: 2 * WARM_UP_BASE_MS });
    second.close();
    await vi.advanceTimersByTimeAsync(10 * WARM_UP_BASE_MS);
    expect(onEnd).not.toHaveBeenCalled();
    expect(second.active).toBe(false);
  });

  it('an unwritable state dir: warned, no warm-up, the daemon still starts; a failed clean stop is warned too', async () => {
    // A directory that does not exist cannot be written, not even by root (mode bits would not stop root).
    const { logger, lines } = recorder();
    const w = await WarmUp.start({ stateDir: join(dir, 'missing', 'deeper'), startedAt: Date.now(), logger });
    expect(w.active).toBe(false);
    expect(lines[0]).toMatchObject({ level: 'warn', fields: { event: 'restartHistoryUnwritable' } });
    await w.markCleanStop();
    expect(lines.at(-1)).toMatchObject({ level: 'warn', fields: { event: 'restartHistoryUnwritable' } });
    w.close();
  });
});
