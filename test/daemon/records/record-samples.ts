/** One sample record of every kind, as a node would publish it, for the records codec and wire tests. */
import { makeAllocationTable } from '../../../src/daemon/allocation/allocation-table';
import { hashServiceKey } from '../../../src/daemon/config-facts';
import { GossipRecordKind, type GossipRecord } from '../../../src/daemon/records/record-kinds';
import { entry } from '../allocation/arbitraries';

const T0 = Date.parse('2026-12-01T09:00:00Z');

export function healthReportOf(services: number, node = 'node-2'): GossipRecord {
  const results = Object.fromEntries(Array.from({ length: services }, (_, i) => [`demo/service-${i}`, i % 7 !== 0]));
  return { kind: GossipRecordKind.healthReport, value: { node, epoch: T0, seq: 42, results } };
}

export function allocationTableOf(services: number): GossipRecord {
  const entries = Array.from({ length: services }, (_, i): [string, ReturnType<typeof entry>] => [
    `demo/service-${i}`,
    entry([`10.${(i >> 8) & 0xff}.${i & 0xff}.10`], 100 + i, i % 2 === 0 ? 'node-1' : 'node-2', { at: T0 + i, released: i % 50 === 49 }),
  ]);
  return { kind: GossipRecordKind.allocationTable, value: makeAllocationTable(100 + services, 'node-2', entries) };
}

export const SAMPLES: readonly GossipRecord[] = [
  healthReportOf(3),
  allocationTableOf(3),
  {
    kind: GossipRecordKind.configFacts,
    value: {
      node: 'node-2',
      epoch: T0,
      seq: 3,
      digest: hashServiceKey('digest'),
      services: 2,
      keyHashes: [hashServiceKey('demo/a'), hashServiceKey('demo/b')].sort(),
      keysTruncated: false,
      retainedHashes: [],
      refusedReason: 'mlb.yaml:3:1: not a service',
    },
  },
  {
    kind: GossipRecordKind.conflictReport,
    value: {
      node: 'node-2',
      epoch: T0,
      seq: 1,
      active: 2,
      conflicts: [
        { ip: '192.0.2.10', mac: '02:13:00:00:00:05', firstSeen: T0, lastSeen: T0 + 5 },
        { ip: '2001:db8::10', mac: '02:13:00:00:00:06', firstSeen: T0, lastSeen: T0 + 6 },
      ],
    },
  },
  {
    kind: GossipRecordKind.drainRequest,
    value: { target: 'node-3', action: 'drain', requestedBy: 'node-2', seq: T0, at: T0, outcome: 'failed', detail: 'EROFS' },
  },
  {
    kind: GossipRecordKind.healthDetails,
    value: { node: 'node-2', epoch: T0, seq: 9, failing: { 'demo/web': { since: T0 - 5, detail: 'HTTP 503' } } },
  },
];
