/**
 * mlb's records on the wire (src/daemon/records/records-codec.ts): every kind travels in the msgpack envelope and
 * in the v1 layout of older releases, and both decode to the same records, so old and new nodes understand each
 * other; whatever arrives damaged, oversized or of an unknown kind is dropped and counted by reason, never thrown,
 * and one damaged record costs only itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MsgpackWriter } from '../../../src/gossip/codec/msgpack-writer';
import { GossipRecordKind, RecordDropReason, type GossipRecord } from '../../../src/daemon/records/record-kinds';
import { decodeRecords, encodeRecords, RECORDS_MAX_BYTES } from '../../../src/daemon/records/records-codec';
import { MLB_RECORDS_VERSION, UNVERSIONED_RECORDS_VERSION } from '../../../src/daemon/records-protocol';
import { allocationTableOf, healthReportOf, SAMPLES } from './record-samples';

const V1 = UNVERSIONED_RECORDS_VERSION;
const V2 = MLB_RECORDS_VERSION;
const REASONS: ReadonlySet<string> = new Set(Object.values(RecordDropReason));

/**
 * One record's [kind, body] as the envelope holds it: what follows the envelope's 8-byte head (fixarray, "mlbr" as
 * fixstr, the version, and a fixarray of one).
 */
function entryOf(record: GossipRecord): Uint8Array {
  return encodeRecords([record], V2).subarray(8);
}

function records(bytes: Uint8Array): readonly GossipRecord[] {
  const received = decodeRecords(bytes);
  if (!received.ok) throw new Error(`dropped: ${received.reason} (${received.detail})`);
  return received.value.records;
}

describe('the records codec', () => {
  it('carries every kind in both forms, and both decode to the same records', () => {
    const fromOld = records(encodeRecords(SAMPLES, V1));
    const fromNew = records(encodeRecords(SAMPLES, V2));
    expect(fromNew).toEqual(SAMPLES);
    expect(fromOld).toEqual(fromNew);
  });

  it('writes the msgpack envelope from records version 2 on, the v1 layout ("mlbg") below it', () => {
    expect([...encodeRecords(SAMPLES, V1).subarray(0, 4)]).toEqual([...Buffer.from('mlbg')]);
    expect(encodeRecords(SAMPLES, V2)[0]).toBe(0x93);
  });

  it('costs no more in the envelope for a health report, and an allocation table a third less (binary IPs, no JSON)', () => {
    for (const record of [healthReportOf(10), healthReportOf(1000)]) {
      expect(encodeRecords([record], V2).length).toBeLessThanOrEqual(encodeRecords([record], V1).length);
    }
    for (const record of [allocationTableOf(10), allocationTableOf(1000)]) {
      expect(encodeRecords([record], V2).length).toBeLessThan(encodeRecords([record], V1).length * 0.7);
    }
  });

  it('skips and counts kinds this release does not know, in both forms, keeping the others', () => {
    const ok = new MsgpackWriter();
    ok.arrayHeader(3).text('mlbr').uint(3).arrayHeader(2);
    ok.arrayHeader(2).uint(200).arrayHeader(1).text('from a newer release');
    ok.raw(entryOf(healthReportOf(2)));
    const newer = decodeRecords(ok.bytes());
    expect(newer.ok && newer.value.records).toEqual([healthReportOf(2)]);
    expect(newer.ok && newer.value.drops.map((d) => d.reason)).toEqual(['unknownKind']);

    const old = encodeRecords([healthReportOf(2)], V1);
    const withUnknown = Buffer.concat([old, Uint8Array.of(200, 0, 0, 0, 2, 7, 7)]);
    const older = decodeRecords(withUnknown);
    expect(older.ok && older.value.records).toEqual([healthReportOf(2)]);
    expect(older.ok && older.value.drops.map((d) => d.reason)).toEqual(['unknownKind']);
  });

  it('drops one damaged record and keeps the others beside it', () => {
    const w = new MsgpackWriter();
    w.arrayHeader(3).text('mlbr').uint(2).arrayHeader(2);
    w.arrayHeader(2).uint(GossipRecordKind.allocationTable).arrayHeader(4).uint(1).text('node-2').arrayHeader(0).arrayHeader(1);
    // An entry with an IP of 5 bytes.
    w.arrayHeader(5)
      .text('demo/web')
      .arrayHeader(1)
      .str(Uint8Array.of(1, 2, 3, 4, 5))
      .uint(1)
      .uint(0)
      .uint(0);
    w.raw(entryOf(healthReportOf(1)));
    const received = decodeRecords(w.bytes());
    expect(received.ok && received.value.records).toEqual([healthReportOf(1)]);
    expect(received.ok && received.value.drops.map((d) => d.reason)).toEqual(['badTable']);
  });

  it('refuses a payload over RECORDS_MAX_BYTES before reading it, and bytes that are not mlb records', () => {
    const huge = new Uint8Array(RECORDS_MAX_BYTES + 1);
    huge[0] = 0x93;
    expect(decodeRecords(huge)).toMatchObject({ ok: false, reason: 'recordsTooLarge' });
    expect(decodeRecords(new Uint8Array())).toMatchObject({ ok: false, reason: 'notOurs' });
    expect(decodeRecords(Buffer.from('{"hello":1}'))).toMatchObject({ ok: false, reason: 'notOurs' });
    // An array of three that is not the envelope (another program's msgpack).
    expect(decodeRecords(Uint8Array.of(0x93, 1, 2, 3))).toMatchObject({ ok: false, reason: 'notOurs' });
  });

  it('trusts no count: a list claiming four billion records in a few bytes is refused without reading on', () => {
    const claim = Uint8Array.of(0x93, 0xa4, ...Buffer.from('mlbr'), 0x02, 0xdd, 0xff, 0xff, 0xff, 0xff, 0x90);
    expect(decodeRecords(claim)).toMatchObject({ ok: false, reason: 'badEnvelope' });
  });

  it('never throws on damaged bytes of either form: every cut and every flipped byte is a counted drop or a decode', () => {
    for (const version of [V1, V2]) {
      const bytes = encodeRecords(SAMPLES, version);
      for (let n = 0; n < bytes.length; n++) {
        const cut = decodeRecords(bytes.subarray(0, n));
        if (!cut.ok) expect(REASONS.has(cut.reason)).toBe(true);
      }
      fc.assert(
        fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 255 }), (at, value) => {
          const damaged = bytes.slice();
          damaged[at] = value;
          const received = decodeRecords(damaged);
          if (received.ok) for (const d of received.value.drops) expect(REASONS.has(d.reason)).toBe(true);
          else expect(REASONS.has(received.reason)).toBe(true);
        }),
        { numRuns: 2000 },
      );
    }
  });
});
