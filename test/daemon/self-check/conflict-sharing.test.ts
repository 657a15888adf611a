/**
 * Conflict reports in gossip (src/daemon/self-check/conflict-sharing.ts): a node passes on a report it has just
 * learned, once, so every member hears of a conflict within a gossip round or two, not at the observer's refresh.
 */
import { describe, expect, it } from 'vitest';
import { ConflictSharing } from '../../../src/daemon/self-check/conflict-sharing';
import type { ConflictReport } from '../../../src/daemon/self-check/conflict-report';
import { GossipRecordKind, type GossipRecord } from '../../../src/daemon/records/record-kinds';
import { SILENT_LOG } from '../../../src/runtime/log';

const T0 = Date.parse('2026-10-04T08:00:00Z');
const report = (seq: number): ConflictReport => ({
  node: 'node-b',
  epoch: T0,
  seq,
  active: 1,
  conflicts: [{ ip: '192.0.2.10', mac: '0a:bc:de:00:00:01', firstSeen: T0, lastSeen: T0 + seq }],
});

describe('a conflict report heard from gossip', () => {
  it('is relayed once when it is new, keyed by its observer, and not again when heard again', () => {
    const sent: { record: GossipRecord; key: string }[] = [];
    const sharing = new ConflictSharing({
      self: 'node-a',
      epoch: T0,
      logger: SILENT_LOG,
      runtime: { now: () => T0 },
      wire: { broadcast: () => undefined, relay: (record, key) => sent.push({ record, key }), stateChanged: () => undefined },
    });
    const first: GossipRecord = { kind: GossipRecordKind.conflictReport, value: report(1) };
    expect(sharing.receive(first)).toBe('election');
    expect(sharing.receive(first)).toBe('none');
    expect(sent.map((s) => s.key)).toEqual(['mlb-conflicts:node-b']);
    expect(sent[0]!.record).toEqual(first);
    sharing.receive({ kind: GossipRecordKind.conflictReport, value: report(2) });
    expect(sent).toHaveLength(2);
  });
});
