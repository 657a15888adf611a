/**
 * The cluster records (src/daemon/cluster-records.ts: the allocation table and allocations.json) on a simulated host: its allocations.json in memory state files
 * and its clock and timers virtual. The file held aside is restored exactly RESTORE_ALONE_WAIT_MS after the first
 * join when nobody sent a table, not a moment before; a released entry ages by the node's clock; and the table a
 * node persisted is what it finds when its process restarts on the same files.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { GossipNode } from '../../src/gossip/gossip-node';
import { formatIP } from '../../src/ip';
import type { Snapshot } from '../../src/model';
import {
  ALLOCATIONS_FILE,
  allocationTableText,
  makeAllocationTable,
  RELEASED_ENTRY_TTL_MS,
  type AllocationTable,
} from '../../src/daemon/allocation';
import { RESTORE_ALONE_WAIT_MS } from '../../src/daemon/allocation/allocation-table-sharing';
import { startClusterRecords, type ClusterRecords } from '../../src/daemon/cluster-records';
import { GossipRecordKind } from '../../src/daemon/records/record-kinds';
import { decodeRecords, encodeRecords } from '../../src/daemon/records/records-codec';
import { RecordsWire } from '../../src/daemon/records/records-wire';
import { MLB_RECORDS_VERSION } from '../../src/daemon/records-protocol';
import { createLogger } from '../../src/daemon/logger';
import { MemoryStateFiles, virtualRuntime, type VirtualRuntime } from '../../src/runtime';
import { pool, service } from '../allocator/factories';
import { entry } from './allocation/arbitraries';

const SNAPSHOT = { pools: [pool('default', ['192.0.2.10-192.0.2.29'])], services: [service('web'), service('db')] } as unknown as Snapshot;
const HOUR_MS = 60 * 60 * 1000;

class FakeGossip extends EventEmitter {
  private state: Uint8Array | undefined;
  broadcast(): void {}
  setLocalState(bytes: Uint8Array): void {
    this.state = bytes;
  }
  liveMembers(): [] {
    return [];
  }
  /** The allocation table the next push/pull carries to the others. */
  pushedTable(): AllocationTable | undefined {
    const received = this.state ? decodeRecords(this.state) : undefined;
    const record = (received?.ok ? received.value.records : []).find((r) => r.kind === GossipRecordKind.allocationTable);
    return record?.kind === GossipRecordKind.allocationTable ? record.value : undefined;
  }
}

const running: ClusterRecords[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.close();
});

async function startNode(files: MemoryStateFiles, rt: VirtualRuntime) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Record<string, unknown>);
      done();
    },
  });
  const gossip = new FakeGossip();
  const wire = new RecordsWire({ gossip: gossip as unknown as GossipNode, self: 'node-a', onChange: () => undefined });
  const cluster = await startClusterRecords({
    wire,
    self: 'node-a',
    epoch: rt.now(),
    stateFiles: files,
    runtime: rt,
    logger: createLogger({ destination, level: 'debug', clock: rt }),
    onChange: () => undefined,
  });
  running.push(cluster);
  const ips = (): Record<string, string[]> =>
    Object.fromEntries([...cluster.allocation.allocate(SNAPSHOT, []).addresses].map(([k, a]) => [k, a.ips.map(formatIP)]));
  const hear = (table: AllocationTable): void =>
    void gossip.emit('remoteState', encodeRecords([{ kind: GossipRecordKind.allocationTable, value: table }], MLB_RECORDS_VERSION), true);
  return { cluster, gossip, lines, ips, hear };
}

describe('the allocation table on virtual time', () => {
  it('a node that reached nobody restores its file exactly RESTORE_ALONE_WAIT_MS after its first join', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const files = new MemoryStateFiles('node-a');
    await files.writeAtomic(
      ALLOCATIONS_FILE,
      allocationTableText(makeAllocationTable(9, 'node-z', [['demo/web', entry(['192.0.2.20'], 9, 'node-z')]])),
    );
    const node = await startNode(files, rt);
    node.cluster.allocation.markJoined();
    const joinedAt = rt.now();
    await rt.advance(RESTORE_ALONE_WAIT_MS - 1);
    expect(node.ips()).toEqual({});
    expect(node.lines.some((l) => l.event === 'allocationsRestored')).toBe(false);
    await rt.advance(1);
    expect(node.ips()).toMatchObject({ 'demo/web': ['192.0.2.20'] });
    const restored = node.lines.find((l) => l.event === 'allocationsRestored');
    expect(restored).toMatchObject({
      trigger: 'alone',
      filled: ['demo/web'],
      ts: new Date(joinedAt + RESTORE_ALONE_WAIT_MS).toISOString(),
    });
  });

  it("a released entry ages by the node's clock: an hour-old one is kept, a day-old one dropped", async () => {
    const rt = virtualRuntime({ seed: 1 });
    const node = await startNode(new MemoryStateFiles('node-a'), rt);
    node.cluster.allocation.markJoined();
    node.hear(
      makeAllocationTable(4, 'node-b', [
        ['demo/web', entry(['192.0.2.10'], 4, 'node-b')],
        ['demo/old', entry(['192.0.2.11'], 3, 'node-b', { released: true, at: rt.now() - RELEASED_ENTRY_TTL_MS })],
        ['demo/recent', entry(['192.0.2.12'], 2, 'node-b', { released: true, at: rt.now() - HOUR_MS })],
      ]),
    );
    expect([...node.gossip.pushedTable()!.entries.keys()]).toEqual(['demo/recent', 'demo/web']);
  });

  it('the table it persisted is what its restarted process finds on the same files', async () => {
    const rt = virtualRuntime({ seed: 1 });
    const files = new MemoryStateFiles('node-a');
    const first = await startNode(files, rt);
    first.cluster.allocation.markJoined();
    first.hear(
      makeAllocationTable(7, 'node-b', [
        ['demo/web', entry(['192.0.2.10'], 7, 'node-b')],
        ['demo/db', entry(['192.0.2.11'], 6, 'node-b')],
      ]),
    );
    await first.cluster.flush();
    await first.cluster.close();
    files.crash();

    const again = await startNode(files, rt);
    expect(again.lines.find((l) => l.event === 'allocationsLoaded')).toMatchObject({ version: 7, services: 2 });
    again.cluster.allocation.markJoined();
    await rt.advance(RESTORE_ALONE_WAIT_MS);
    expect(again.ips()).toEqual({ 'demo/db': ['192.0.2.11'], 'demo/web': ['192.0.2.10'] });
  });
});
