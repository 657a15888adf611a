/**
 * What a simulated node reports carries its own clock, not the wall clock: the event stream's `at`, when it
 * started announcing an IP (status's "since") and its log lines' `ts` all read the runtime it was given.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../src/daemon/daemon-events';
import { LocalAnnouncements } from '../../src/daemon/local-announcements';
import { createLogger } from '../../src/daemon/logger';
import { parseIP } from '../../src/ip/parse-ip';
import { virtualRuntime } from '../../src/runtime';

/** Far from the wall clock, so a reading of Date.now() cannot pass for it. */
const SIMULATED_START = Date.UTC(2031, 5, 1, 8, 0, 0);

function jsonLines(): { destination: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Record<string, unknown>);
      done();
    },
  });
  return { destination, lines };
}

describe("a simulated node's clock", () => {
  it('stamps its events, its announcements and its log lines', async () => {
    const rt = virtualRuntime({ seed: 1, startMs: SIMULATED_START });
    await rt.advance(1_500);
    const { destination, lines } = jsonLines();
    const logger = createLogger({ destination, clock: rt });

    expect(new EventLog(rt).record({ type: 'configReloaded', file: 'mlb.yaml' }).at).toBe('2031-06-01T08:00:01.500Z');

    const announcements = new LocalAnnouncements(undefined, undefined, logger, rt);
    announcements.apply([{ service: 'demo/web', ip: parseIP('192.0.2.10')!, interfaces: ['eth0'] }], () => 'notOwner');
    expect(announcements.announced().map((a) => a.since)).toEqual([SIMULATED_START + 1_500]);

    logger.info({ event: 'x' }, 'y');
    expect(lines.at(-1)?.ts).toBe('2031-06-01T08:00:01.500Z');
  });
});
