/**
 * Conflicts in gossip (src/daemon/self-check/conflict-report.ts and conflict-sharing.ts): the codec (round trips,
 * bounded, damaged input refused), the table (newest report per observer, refreshed by duplicates, dropped when
 * the observer is not live or not heard for the TTL), when the observer publishes, and two nodes' sharing: what
 * one node's self-check sees shows on the other, marked with the observer, and goes when the observer clears it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GossipRecordKind, type GossipRecord } from '../../../src/daemon/records/record-kinds';
import { decodeRecords, encodeRecords } from '../../../src/daemon/records/records-codec';
import { MLB_RECORDS_VERSION } from '../../../src/daemon/records-protocol';
import {
  CONFLICT_REPORT_MAX_ENTRIES,
  CONFLICT_REPORT_REFRESH_MS,
  CONFLICT_REPORT_TTL_MS,
  decodeConflictReport,
  encodeConflictReport,
  mergeConflictReport,
  reportDue,
  retainConflictReports,
  type ConflictReport,
  type ConflictReportTable,
} from '../../../src/daemon/self-check/conflict-report';
import { ConflictSharing, conflictPairKey } from '../../../src/daemon/self-check/conflict-sharing';
import type { Conflict } from '../../../src/daemon/self-check/conflict-registry';

const T0 = Date.parse('2026-10-04T08:00:00Z');
const report = (over: Partial<ConflictReport> = {}): ConflictReport => ({
  node: 'node-a',
  epoch: T0 - 60_000,
  seq: 1,
  active: 2,
  conflicts: [
    { ip: '10.213.0.210', mac: '02:13:00:00:00:05', firstSeen: T0, lastSeen: T0 + 3000 },
    { ip: 'fd00:213::210', mac: '02:13:00:00:00:05', firstSeen: T0 + 1, lastSeen: T0 + 2000 },
  ],
  ...over,
});

describe('conflict report codec', () => {
  it('round-trips IPv4 and IPv6 conflicts with their times and the active count', () => {
    expect(decodeConflictReport(encodeConflictReport(report()))).toEqual(report());
  });

  it('round-trips any report within its limits', () => {
    const mac = fc
      .array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 })
      .map((b) => b.map((x) => x.toString(16).padStart(2, '0')).join(':'));
    const ipv4 = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }).map((b) => b.join('.'));
    const time = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 60 }).filter((s) => new TextEncoder().encode(s).length <= 255),
        time,
        time,
        fc.integer({ min: 0, max: 0xffff }),
        fc.array(fc.record({ ip: ipv4, mac, firstSeen: time, lastSeen: time }), { maxLength: CONFLICT_REPORT_MAX_ENTRIES }),
        (node, epoch, seq, extra, conflicts) => {
          const r: ConflictReport = { node, epoch, seq, active: conflicts.length + extra, conflicts };
          expect(decodeConflictReport(encodeConflictReport(r))).toEqual(r);
        },
      ),
    );
  });

  it('lists at most CONFLICT_REPORT_MAX_ENTRIES, fits one gossip packet, and keeps the exact active count', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({
      ip: `fd00:213::${i + 1}`,
      mac: '02:13:00:00:00:05',
      firstSeen: T0,
      lastSeen: T0,
    }));
    const bytes = encodeConflictReport(report({ node: 'n'.repeat(255), active: 100, conflicts: many }));
    expect(bytes.length).toBeLessThan(1000);
    const decoded = decodeConflictReport(bytes);
    expect(decoded?.conflicts).toHaveLength(CONFLICT_REPORT_MAX_ENTRIES);
    expect(decoded?.active).toBe(100);
  });

  it('anything damaged, truncated or foreign decodes to undefined without throwing', () => {
    const bytes = encodeConflictReport(report());
    for (let n = 0; n < bytes.length; n++) expect(decodeConflictReport(bytes.slice(0, n))).toBeUndefined();
    const badFamily = bytes.slice();
    badFamily[4 + 2 + 'node-a'.length + 21] = 5;
    expect(decodeConflictReport(badFamily)).toBeUndefined();
    const newer = bytes.slice();
    newer[4] = 2;
    expect(decodeConflictReport(newer)).toBeUndefined();
    expect(decodeConflictReport(Uint8Array.of(0x6d, 0x6c, 0x62, 0x68, 1, 0))).toBeUndefined();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (junk) => {
        expect(() => decodeConflictReport(junk)).not.toThrow();
      }),
    );
  });
});

describe('conflict report table', () => {
  it('keeps the newest report per observer; the same one heard again only refreshes; an older one is ignored', () => {
    let table: ConflictReportTable = new Map();
    let m = mergeConflictReport(table, report({ seq: 2 }), T0);
    expect(m).toMatchObject({ changed: true, reason: 'firstReport' });
    table = m.table;
    m = mergeConflictReport(table, report({ seq: 1, conflicts: [] }), T0 + 1000);
    expect(m).toMatchObject({ changed: false, reason: 'stale' });
    m = mergeConflictReport(table, report({ seq: 2 }), T0 + 2000);
    expect(m).toMatchObject({ changed: false, reason: 'refreshed' });
    expect(m.table.get('node-a')?.heardAt).toBe(T0 + 2000);
    m = mergeConflictReport(m.table, report({ seq: 3, active: 0, conflicts: [] }), T0 + 3000);
    expect(m).toMatchObject({ changed: true, reason: 'newer' });
    expect(m.table.get('node-a')?.report.conflicts).toEqual([]);
    // A restarted observer (a later epoch) wins with any seq.
    m = mergeConflictReport(m.table, report({ epoch: T0, seq: 1 }), T0 + 4000);
    expect(m).toMatchObject({ changed: true, reason: 'newer' });
  });

  it('drops a report whose observer is not a live member, or that was not heard for the TTL', () => {
    let table = mergeConflictReport(new Map(), report(), T0).table;
    table = mergeConflictReport(table, report({ node: 'node-c' }), T0 + 5000).table;
    const kept = retainConflictReports(table, new Set(['node-a', 'node-c']), T0 + CONFLICT_REPORT_TTL_MS - 1);
    expect(kept.dropped).toEqual([]);
    const aged = retainConflictReports(table, new Set(['node-a', 'node-c']), T0 + CONFLICT_REPORT_TTL_MS);
    expect(aged.dropped).toEqual([{ node: 'node-a', reason: 'notHeard' }]);
    const gone = retainConflictReports(table, new Set(['node-a']), T0 + 1000);
    expect(gone.dropped).toEqual([{ node: 'node-c', reason: 'notLive' }]);
    expect([...gone.table.keys()]).toEqual(['node-a']);
  });

  it('the observer publishes when its list changes, and refreshes a non-empty one', () => {
    const list = report().conflicts;
    const first = reportDue(undefined, list, 2, T0);
    expect(first).toMatchObject({ due: true, reason: 'changed' });
    const published = { fingerprint: first.fingerprint, at: T0 };
    // Only last-seen times moved: no new report until the refresh is due.
    expect(
      reportDue(
        published,
        list.map((c) => ({ ...c, lastSeen: c.lastSeen + 1000 })),
        2,
        T0 + 1000,
      ),
    ).toMatchObject({ due: false });
    expect(reportDue(published, list, 2, T0 + CONFLICT_REPORT_REFRESH_MS)).toMatchObject({ due: true, reason: 'refresh' });
    expect(reportDue(published, list.slice(1), 1, T0 + 1000)).toMatchObject({ due: true, reason: 'changed' });
    const empty = reportDue(published, [], 0, T0 + 1000);
    expect(empty).toMatchObject({ due: true, reason: 'changed' });
    expect(reportDue({ fingerprint: empty.fingerprint, at: T0 + 1000 }, [], 0, T0 + 60_000)).toMatchObject({ due: false });
  });
});

describe('conflict sharing between two nodes', () => {
  const conflict = (over: Partial<Conflict> = {}): Conflict => ({
    ip: '10.213.0.210',
    mac: '02:13:00:00:00:05',
    node: null,
    interface: 'eth0',
    evidence: 'probeReply',
    reason: 'notMember',
    firstSeen: new Date(T0).toISOString(),
    lastSeen: new Date(T0 + 2000).toISOString(),
    sightings: 2,
    ...over,
  });

  function pair() {
    let now = T0;
    const sent: (readonly GossipRecord[])[] = [];
    const logs: Record<string, unknown>[] = [];
    const logger = { info: (fields: object) => void logs.push(fields as Record<string, unknown>) };
    const a = new ConflictSharing({
      self: 'node-a',
      epoch: T0 - 1,
      logger,
      runtime: { now: () => now },
      wire: { broadcast: (records) => void sent.push(records), relay: () => {}, stateChanged: () => {} },
    });
    const b = new ConflictSharing({
      self: 'node-b',
      epoch: T0 - 2,
      logger,
      runtime: { now: () => now },
      wire: { broadcast: () => {}, relay: () => {}, stateChanged: () => {} },
    });
    /** Delivers what node-a broadcast since the last call to node-b, as gossip would. */
    const deliver = (): void => {
      for (const records of sent.splice(0)) {
        const received = decodeRecords(encodeRecords(records, MLB_RECORDS_VERSION));
        for (const r of received.ok ? received.value.records : []) b.receive(r);
      }
    };
    return { a, b, deliver, logs, advance: (ms: number) => void (now += ms), sent };
  }

  it('what node-a sees is listed on node-b, marked as observed by node-a, and goes when node-a clears it', () => {
    const p = pair();
    const live = new Set(['node-a', 'node-b']);
    p.a.publish([conflict()], 1);
    p.deliver();
    expect(p.b.shared(live)).toEqual({
      conflicts: [{ ip: '10.213.0.210', mac: '02:13:00:00:00:05', firstSeen: T0, lastSeen: T0 + 2000, observedBy: 'node-a' }],
      active: 1,
    });
    expect(p.logs).toMatchObject([{ event: 'conflictReported', observedBy: 'node-a', ip: '10.213.0.210', mac: '02:13:00:00:00:05' }]);
    // node-b seeing the same (IP, MAC) itself counts it once, not twice (mlb_conflicts_active is per pair).
    expect(p.b.shared(live, new Set([conflictPairKey('10.213.0.210', '02:13:00:00:00:05')])).active).toBe(0);
    expect(p.b.shared(live, new Set([conflictPairKey('10.213.0.210', '02:13:00:00:00:06')])).active).toBe(1);
    // Its own record travels in push/pull state too.
    expect(p.a.state().map((r) => r.kind === GossipRecordKind.conflictReport && r.value.node)).toEqual(['node-a']);

    // Unchanged: nothing new on the wire until the refresh.
    p.a.publish([conflict({ lastSeen: new Date(T0 + 3000).toISOString() })], 1);
    expect(p.sent).toHaveLength(0);
    p.advance(CONFLICT_REPORT_REFRESH_MS);
    p.a.publish([conflict({ lastSeen: new Date(T0 + 9000).toISOString() })], 1);
    expect(p.sent).toHaveLength(1);
    p.deliver();
    expect(p.b.shared(live).conflicts[0]?.lastSeen).toBe(T0 + 9000);

    p.a.publish([], 0);
    p.deliver();
    expect(p.b.shared(live)).toEqual({ conflicts: [], active: 0 });
  });

  it('an observer that is no longer live takes its findings with it', () => {
    const p = pair();
    p.a.publish([conflict()], 1);
    p.deliver();
    expect(p.b.shared(new Set(['node-b'])).conflicts).toEqual([]);
  });
});
