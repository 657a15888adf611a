/**
 * Drain requests in gossip (src/daemon/remote-drain/drain-request-codec.ts and drain-request-table.ts): the codec
 * (round trips, bounded, damaged input refused), and which request counts: the later request wins wherever it was
 * made, a replay of an old one changes nothing, the target's answer replaces the pending copy and is never undone,
 * and the table stays bounded whatever a peer invents.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideApply,
  decodeDrainRequest,
  encodeDrainRequest,
  MAX_DRAIN_DETAIL_BYTES,
  MAX_DRAIN_TIME_MS,
  MAX_DRAIN_REQUEST_TARGETS,
  mergeDrainRequest,
  nextSeq,
  type DrainRequest,
  type DrainRequestTable,
} from '../../../src/daemon/remote-drain';
import { GossipRecordKind } from '../../../src/daemon/records/record-kinds';
import { decodeRecords, encodeRecords } from '../../../src/daemon/records/records-codec';
import { MLB_RECORDS_VERSION } from '../../../src/daemon/records-protocol';

const T0 = Date.parse('2026-12-01T09:00:00Z');
const request = (over: Partial<DrainRequest> = {}): DrainRequest => ({
  target: 'node-2',
  action: 'drain',
  requestedBy: 'node-1',
  seq: T0,
  at: T0,
  outcome: 'pending',
  ...over,
});

describe('drain request codec', () => {
  it('round-trips a pending request, an applied answer and a failure with its reason', () => {
    for (const r of [
      request(),
      request({ action: 'undrain', outcome: 'applied' }),
      request({ outcome: 'failed', detail: 'cannot record the drain in /var/lib/mlb/drain.json (EROFS)' }),
    ]) {
      expect(decodeDrainRequest(encodeDrainRequest(r)!)).toEqual(r);
    }
  });

  it('round-trips any request within its limits', () => {
    const name = fc.string({ minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(
        name,
        name,
        fc.constantFrom('drain', 'undrain' as const),
        fc.constantFrom('pending', 'applied', 'failed' as const),
        fc.nat({ max: Number.MAX_SAFE_INTEGER }),
        fc.nat({ max: MAX_DRAIN_TIME_MS }),
        fc.option(fc.string({ minLength: 1, maxLength: 50 }), { nil: undefined }),
        (target, requestedBy, action, outcome, seq, at, detail) => {
          const r: DrainRequest = { target, requestedBy, action, outcome, seq, at, ...(detail === undefined ? {} : { detail }) };
          expect(decodeDrainRequest(encodeDrainRequest(r)!)).toEqual(r);
        },
      ),
    );
  });

  it('travels as gossip record kind 5 beside the other records, in both forms', () => {
    for (const version of [1, MLB_RECORDS_VERSION]) {
      const received = decodeRecords(encodeRecords([{ kind: GossipRecordKind.drainRequest, value: request() }], version));
      expect(received.ok && received.value.records).toEqual([{ kind: 5, value: request() }]);
    }
  });

  it('is bounded: the largest request fits one gossip packet, a long failure reason is cut on a character boundary', () => {
    const longest = encodeDrainRequest(
      request({ target: 'n'.repeat(255), requestedBy: 'b'.repeat(255), outcome: 'failed', detail: 'é'.repeat(5000) }),
    )!;
    expect(longest.length).toBeLessThan(800);
    const detail = decodeDrainRequest(longest)?.detail ?? '';
    expect(Buffer.byteLength(detail)).toBeLessThanOrEqual(MAX_DRAIN_DETAIL_BYTES);
    expect(detail).toBe('é'.repeat(MAX_DRAIN_DETAIL_BYTES / 2));
  });

  it('refuses to encode what no peer would accept: an empty or over-long node name, an unsafe seq', () => {
    expect(encodeDrainRequest(request({ target: '' }))).toBeUndefined();
    expect(encodeDrainRequest(request({ requestedBy: 'x'.repeat(256) }))).toBeUndefined();
    expect(encodeDrainRequest(request({ seq: -1 }))).toBeUndefined();
    expect(encodeDrainRequest(request({ seq: 2 ** 53 }))).toBeUndefined();
  });

  it('drops every truncation, another magic or version, unknown action or outcome codes, bad UTF-8 and unsafe numbers', () => {
    const good = encodeDrainRequest(request({ outcome: 'failed', detail: 'disk full' }))!;
    for (let n = 0; n < good.length; n++) expect(decodeDrainRequest(good.subarray(0, n)), `cut at ${n}`).toBeUndefined();
    const damaged = (at: number, value: number) => Uint8Array.from(good, (b, i) => (i === at ? value : b));
    const actionAt = 4 + 1 + 1 + 6 + 1 + 6 + 16;
    expect(decodeDrainRequest(damaged(0, 0x78))).toBeUndefined();
    expect(decodeDrainRequest(damaged(4, 2))).toBeUndefined();
    expect(decodeDrainRequest(damaged(actionAt, 2))).toBeUndefined();
    expect(decodeDrainRequest(damaged(actionAt + 1, 3))).toBeUndefined();
    expect(decodeDrainRequest(damaged(6, 0xff))).toBeUndefined();
    expect(decodeDrainRequest(damaged(4 + 1 + 1 + 6 + 1 + 6, 0xff))).toBeUndefined();
    expect(decodeDrainRequest(Uint8Array.of(0x6d, 0x6c, 0x62, 0x64, 1, 0))).toBeUndefined();
    // A time no Date can hold would break every node's status when shown.
    const late = Uint8Array.from(good);
    new DataView(late.buffer).setBigUint64(4 + 1 + 1 + 6 + 1 + 6 + 8, BigInt(MAX_DRAIN_TIME_MS) + 1n);
    expect(decodeDrainRequest(late)).toBeUndefined();
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const withMagic = Uint8Array.from([0x6d, 0x6c, 0x62, 0x64, 1, ...bytes]);
        expect(() => decodeDrainRequest(bytes)).not.toThrow();
        expect(() => decodeDrainRequest(withMagic)).not.toThrow();
      }),
    );
  });
});

describe('which drain request counts', () => {
  const empty: DrainRequestTable = new Map();

  it('a later request for a node replaces an earlier one, wherever each was made', () => {
    const drain = request({ seq: T0, requestedBy: 'node-1' });
    const undrain = request({ action: 'undrain', seq: T0 + 5, requestedBy: 'node-3' });
    const a = mergeDrainRequest(mergeDrainRequest(empty, drain).table, undrain);
    expect(a).toMatchObject({ changed: true, reason: 'newer' });
    expect(a.table.get('node-2')).toEqual(undrain);
    // Heard in the other order (a relay late), the same request wins.
    const b = mergeDrainRequest(mergeDrainRequest(empty, undrain).table, drain);
    expect(b).toMatchObject({ changed: false, reason: 'stale' });
    expect(b.table.get('node-2')).toEqual(undrain);
  });

  it('two requests stamped in the same millisecond: the requester whose name sorts last wins on every node', () => {
    const one = request({ requestedBy: 'node-1', action: 'drain' });
    const three = request({ requestedBy: 'node-3', action: 'undrain' });
    expect(mergeDrainRequest(mergeDrainRequest(empty, one).table, three).table.get('node-2')).toEqual(three);
    expect(mergeDrainRequest(mergeDrainRequest(empty, three).table, one).table.get('node-2')).toEqual(three);
  });

  it("the target's answer replaces the pending copy, and a late pending copy never undoes it", () => {
    const pending = request();
    const applied = request({ outcome: 'applied' });
    const acked = mergeDrainRequest(mergeDrainRequest(empty, pending).table, applied);
    expect(acked).toMatchObject({ changed: true, reason: 'acknowledged' });
    const late = mergeDrainRequest(acked.table, pending);
    expect(late).toMatchObject({ changed: false, reason: 'same' });
    expect(late.table.get('node-2')?.outcome).toBe('applied');
  });

  it('stays bounded: a full table evicts the target with the oldest request, and drops one older than all', () => {
    let table: DrainRequestTable = empty;
    for (let i = 0; i < MAX_DRAIN_REQUEST_TARGETS; i++)
      table = mergeDrainRequest(table, request({ target: `invented-${i}`, seq: T0 + i })).table;
    const older = mergeDrainRequest(table, request({ target: 'node-2', seq: T0 - 1 }));
    expect(older).toMatchObject({ changed: false, reason: 'tableFull' });
    const newer = mergeDrainRequest(table, request({ target: 'node-2', seq: T0 + 10_000 }));
    expect(newer.table.size).toBe(MAX_DRAIN_REQUEST_TARGETS);
    expect(newer.table.has('invented-0')).toBe(false);
    expect(newer.table.has('node-2')).toBe(true);
  });

  it('a new stamp outranks everything heard, and follows the wall clock when that is ahead', () => {
    expect(nextSeq(T0 + 10_000, T0)).toBe(T0 + 10_001);
    expect(nextSeq(T0 - 5, T0)).toBe(T0);
  });
});

describe('what the target applies', () => {
  it('a request newer than the one drain.json records', () => {
    expect(decideApply('node-2', request({ seq: T0 + 1 }), { requestedBy: 'node-2', seq: T0 }, true)).toEqual({ apply: true });
    expect(decideApply('node-2', request(), undefined, true)).toEqual({ apply: true });
  });

  it('not a replay of the request it applied, nor an older one', () => {
    expect(decideApply('node-2', request(), { requestedBy: 'node-1', seq: T0 }, true)).toEqual({ apply: false, reason: 'alreadyApplied' });
    expect(decideApply('node-2', request({ seq: T0 - 1 }), { requestedBy: 'node-3', seq: T0 }, true)).toEqual({
      apply: false,
      reason: 'alreadyApplied',
    });
  });

  it('nothing heard in gossip without a key, since anyone could have sent it', () => {
    expect(decideApply('node-2', request(), undefined, false)).toEqual({ apply: false, reason: 'unauthenticated' });
  });

  it('not a request for another node, nor an answer: one that failed here, or an old drain after drain.json was removed', () => {
    expect(decideApply('node-3', request(), undefined, true)).toEqual({ apply: false, reason: 'notForThisNode' });
    expect(decideApply('node-2', request({ outcome: 'failed' }), undefined, true)).toEqual({ apply: false, reason: 'answered' });
    expect(decideApply('node-2', request({ outcome: 'applied' }), undefined, true)).toEqual({ apply: false, reason: 'answered' });
  });
});
