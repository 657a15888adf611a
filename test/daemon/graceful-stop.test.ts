import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { runStopSteps, StopError } from '../../src/daemon/graceful-stop';

/** A logger whose JSON lines the test can read. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, out), lines };
}

describe('runStopSteps', () => {
  it('runs every step after a failing one, logs the failure with its step, and names it in StopError', async () => {
    const { logger, lines } = capture();
    const ran: string[] = [];
    const error = await runStopSteps(
      [
        [
          'handover',
          () => {
            ran.push('handover');
          },
        ],
        [
          'vips',
          async () => {
            ran.push('vips');
            throw new Error('mlb0: the VIP binder is closed');
          },
        ],
        [
          'leave',
          async () => {
            ran.push('leave');
          },
        ],
        [
          'peers',
          () => {
            ran.push('peers');
            throw new Error('EROFS');
          },
        ],
      ],
      logger,
    ).catch((e: unknown) => e);
    expect(ran).toEqual(['handover', 'vips', 'leave', 'peers']);
    expect(error).toBeInstanceOf(StopError);
    expect((error as StopError).code).toBe('stopIncomplete');
    expect((error as StopError).failedSteps).toEqual(['vips: mlb0: the VIP binder is closed', 'peers: EROFS']);
    expect(lines.filter((l) => l.event === 'stopStepFailed').map((l) => l.step)).toEqual(['vips', 'peers']);
  });

  it('resolves when every step succeeds', async () => {
    const { logger, lines } = capture();
    await expect(
      runStopSteps(
        [
          ['a', () => undefined],
          ['b', async () => undefined],
        ],
        logger,
      ),
    ).resolves.toBeUndefined();
    expect(lines).toEqual([]);
  });
});
