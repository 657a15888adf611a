/**
 * A real `mlb daemon` (the built bundle, gossip encrypted) against inbound gossip streams a neighbour without the
 * key can open on loopback: twenty that each announce and send 20 MB, then more slow connections than the daemon
 * keeps. Its memory stays bounded and comes back, the slow ones are cut at the stream deadline (the fast
 * profile's 2 s TCP timeout) or at once past the cap, and each refusal is counted by reason in the metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOUND_STREAMS_MAX, STREAM_MAX_ENCRYPTED_BYTES } from '../../../src/gossip/codec';
import { keylessStreams, peakWhile, sampleUntil, slowConnections, startFloodTarget, type FloodTarget } from '../../support/gossip-flood';

/** What the daemon may grow by under the flood: the 24 MiB stream budget plus socket and GC slack. */
const MAX_GROWTH_BYTES = 64 * 1024 * 1024;
/**
 * Back within 30% of where it started, once the streams are gone. The target is 20% (bench/gossip-flood.bench.ts
 * reports it): on this 2-core VM the daemon is back within 20% in about two runs of three, and 76 -> 92 MB (21%)
 * in the third; from the smaller warm-up used before, 67 -> 91 MB happened as well, at older commits too. The test
 * holds the line that a leak would cross; the bench reports the target.
 */
const RETURN_FACTOR = 1.3;
/**
 * How long it may take: V8 gives its grown heap back when its memory reducer runs, some seconds into idleness
 * (10 s was sometimes too short: about one run in four still held 82-86 MB at 10 s against 68 MB before).
 */
const RETURN_WAIT_MS = 25_000;
/**
 * One keyless stream of the largest size before the baseline: the daemon has then run its stream path once at full
 * size (code compiled, buffers pooled, the heap and malloc grown to what one such stream needs), so the baseline is
 * a daemon that has met one hostile stream, and the flood is measured for what twenty add to that: nothing that
 * stays. Measured from a daemon that never saw one, the same 86 MB after the flood read as a miss or a pass
 * depending on how lean the bundle loads (a split bundle 9 MB leaner, a one-byte bundle text some more).
 */
const WARM_UP_STREAM_BYTES = STREAM_MAX_ENCRYPTED_BYTES;
const MiB = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

let target: FloodTarget;
beforeAll(async () => {
  target = await startFloodTarget();
}, 30_000);
afterAll(async () => {
  await target?.stop();
});

describe('inbound gossip streams from a neighbour without the key', () => {
  it("keeps the daemon's memory bounded under twenty 20 MB streams, and gives it back", async () => {
    await keylessStreams(target.port, 1, WARM_UP_STREAM_BYTES);
    // Counters are read as differences: the warm-up's refusal is not the flood's.
    const before = await target.drops();
    const added = (after: Record<string, number | undefined>, reason: string) => (after[reason] ?? 0) - (before[reason] ?? 0);
    const baseline = await sampleUntil(
      () => target.rss(),
      () => false,
      300,
    );
    const flood = keylessStreams(target.port, 20, STREAM_MAX_ENCRYPTED_BYTES);
    const peak = await peakWhile(() => target.rss(), flood);
    const after = await sampleUntil(
      () => target.rss(),
      (v) => v <= baseline * RETURN_FACTOR,
      RETURN_WAIT_MS,
    );
    expect(peak - baseline, `baseline ${MiB(baseline)}, peak ${MiB(peak)}`).toBeLessThan(MAX_GROWTH_BYTES);
    expect(after, `baseline ${MiB(baseline)}, after ${MiB(after)}`).toBeLessThanOrEqual(baseline * RETURN_FACTOR);
    const drops = await target.dropsOnce(
      (d) => added(d, 'streamBudgetExceeded') >= 18 && added(d, 'decryptFailed') + added(d, 'streamDeadline') >= 1,
    );
    // Nineteen of them never fit beside the first; the first is read whole and fails to decrypt, or (on a busy
    // machine) is cut at the 2 s deadline first.
    expect(added(drops, 'streamBudgetExceeded')).toBeGreaterThanOrEqual(18);
    expect(added(drops, 'decryptFailed') + added(drops, 'streamDeadline')).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it('closes slow connections at the stream deadline, and those past the cap at once', async () => {
    const count = INBOUND_STREAMS_MAX + 100;
    const slow = await slowConnections(target.port, count, 200);
    try {
      // Past the cap the daemon closes each newcomer as it arrives, while the first ones still trickle.
      await sampleUntil(
        () => slow.closed(),
        (n) => n >= count - INBOUND_STREAMS_MAX,
        5_000,
      );
      expect(slow.closed()).toBeGreaterThanOrEqual(count - INBOUND_STREAMS_MAX);
      // The rest keep sending a byte every 200 ms, and are still cut at the deadline.
      await slow.allClosed;
      const drops = await target.dropsOnce((d) => (d.tooManyStreams ?? 0) >= count - INBOUND_STREAMS_MAX && (d.streamDeadline ?? 0) >= 1);
      expect(drops.tooManyStreams ?? 0).toBeGreaterThanOrEqual(count - INBOUND_STREAMS_MAX);
      expect(drops.streamDeadline ?? 0).toBeGreaterThanOrEqual(1);
    } finally {
      slow.stop();
    }
  }, 30_000);
});
