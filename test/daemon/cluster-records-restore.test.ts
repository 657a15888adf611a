/**
 * The cluster records (src/daemon/cluster-records.ts) with allocations.json on disk, over a fake gossip node: the file is held aside until a peer's
 * table arrives (then it only fills gaps) or, for a node that reached nobody, until the wait is over; meanwhile
 * the node, allocator or not, neither writes a table nor uses addresses the cluster did not give.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { GossipNode } from '../../src/gossip/gossip-node';
import { formatIP } from '../../src/ip';
import type { Snapshot } from '../../src/model';
import { allocationTableText, makeAllocationTable } from '../../src/daemon/allocation';
import { startClusterRecords } from '../../src/daemon/cluster-records';
import { GossipRecordKind } from '../../src/daemon/records/record-kinds';
import { decodeRecords, encodeRecords } from '../../src/daemon/records/records-codec';
import { RecordsWire } from '../../src/daemon/records/records-wire';
import { createLogger } from '../../src/daemon/logger';
import { pool, service } from '../allocator/factories';
import { entry } from './allocation/arbitraries';
import { eventually } from '../e2e/daemon-lab';

const root = mkdtempSync(join(tmpdir(), 'mlb-cluster-records-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SNAPSHOT = {
  pools: [pool('default', ['192.0.2.10-192.0.2.29'])],
  services: [service('web'), service('db'), service('api')],
} as unknown as Snapshot;

/** The file: web and db elsewhere than the cluster has them, api that the cluster does not hold; version 500. */
const FILE = makeAllocationTable(500, 'node-z', [
  ['demo/web', entry(['192.0.2.20'], 500, 'node-z')],
  ['demo/db', entry(['192.0.2.21'], 499, 'node-z')],
  ['demo/api', entry(['192.0.2.22'], 498, 'node-z')],
]);

class FakeGossip extends EventEmitter {
  readonly broadcasts: Uint8Array[] = [];
  broadcast(payload: Uint8Array): void {
    this.broadcasts.push(payload);
  }
  setLocalState(): void {}
  /** The live members: none here (a node alone writes the v1 layout, records-wire.ts). */
  liveMembers(): [] {
    return [];
  }
  /** Broadcasts that carried an allocation table (the health report goes out at start too). */
  tables(): number {
    return this.broadcasts.filter((b) => {
      const received = decodeRecords(b);
      return received.ok && received.value.records.some((r) => r.kind === GossipRecordKind.allocationTable);
    }).length;
  }
}

async function startNode(name: string, restoreAloneWaitMs: number) {
  const stateDir = join(root, name);
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, 'allocations.json'), allocationTableText(FILE));
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Record<string, unknown>);
      done();
    },
  });
  const gossip = new FakeGossip();
  const wire = new RecordsWire({ gossip: gossip as unknown as GossipNode, self: name, onChange: () => undefined });
  const cluster = await startClusterRecords({
    wire,
    self: name,
    epoch: 1,
    stateDir,
    logger: createLogger({ destination, level: 'debug' }),
    onChange: () => undefined,
    restoreAloneWaitMs,
  });
  const ips = (): Record<string, string[]> =>
    Object.fromEntries([...cluster.allocation.allocate(SNAPSHOT, []).addresses].map(([k, a]) => [k, a.ips.map(formatIP)]));
  return { cluster, gossip, lines, ips };
}

describe('the allocation table and allocations.json', () => {
  it("a peer's table restores the file at once: the peer's entries stay, the file fills the gap, both sides logged", async () => {
    const node = await startNode('node-a', 60_000);
    node.cluster.allocation.markJoined();
    // Held aside: this node allocates (it is alone in its member list) but neither writes nor uses a fresh run.
    expect(node.ips()).toEqual({});
    expect(node.gossip.tables()).toBe(0);

    const peer = makeAllocationTable(3, 'node-b', [
      ['demo/web', entry(['192.0.2.10'], 2, 'node-b')],
      ['demo/db', entry(['192.0.2.11'], 3, 'node-b')],
    ]);
    // From a peer of the release before the msgpack records (the v1 layout, records version 1).
    node.gossip.emit('remoteState', encodeRecords([{ kind: GossipRecordKind.allocationTable, value: peer }], 1), true);
    expect(node.ips()).toEqual({ 'demo/api': ['192.0.2.22'], 'demo/db': ['192.0.2.11'], 'demo/web': ['192.0.2.10'] });
    expect(node.cluster.allocation.allocationView().version).toBe(3);
    const conflicts = node.lines.filter((l) => l.event === 'allocationRestoreConflict');
    expect(conflicts.map((l) => [l.service, (l.live as { ips: string[] }).ips, (l.disk as { ips: string[] }).ips])).toEqual([
      ['demo/db', ['192.0.2.11'], ['192.0.2.21']],
      ['demo/web', ['192.0.2.10'], ['192.0.2.20']],
    ]);
    expect(conflicts[0]).toMatchObject({
      level: 'warn',
      kept: 'live',
      live: { writer: 'node-b', version: 3 },
      disk: { writer: 'node-z', version: 499 },
    });
    expect(node.lines.find((l) => l.event === 'allocationsRestored')).toMatchObject({
      trigger: 'heard',
      filled: ['demo/api'],
      conflicts: 2,
    });
    await node.cluster.close();
  });

  it('a node that reached nobody uses its file once the wait is over, and writes only what is new', async () => {
    const node = await startNode('node-c', 20);
    expect(node.ips()).toEqual({});
    node.cluster.allocation.markJoined();
    await eventually(() => node.lines.find((l) => l.event === 'allocationsRestored'), 5_000, 5);
    expect(node.lines.find((l) => l.event === 'allocationsRestored')).toMatchObject({
      trigger: 'alone',
      filled: ['demo/api', 'demo/db', 'demo/web'],
    });
    expect(node.ips()).toEqual({ 'demo/api': ['192.0.2.22'], 'demo/db': ['192.0.2.21'], 'demo/web': ['192.0.2.20'] });
    // The file's version 500 is not the table's: nothing changed, so nothing was written.
    expect(node.cluster.allocation.allocationView().version).toBe(0);
    expect(node.lines.some((l) => l.event === 'allocationsPublished')).toBe(false);
    await node.cluster.close();
  });
});
