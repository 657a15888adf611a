/**
 * `mlb drain NODE` between daemons (src/daemon/remote-drain/remote-drain.ts), with gossip as an in-memory bus and
 * drain.json as a fake: the asked node gossips the request, the target applies it as a local drain (recorded with
 * who asked) and answers, the asker sees the answer; a replay changes nothing; a failed write is answered as a
 * failure; and without a gossip key nothing is asked or applied.
 */
import { describe, expect, it } from 'vitest';
import { DrainRecordError } from '../../../src/daemon/drain-record';
import { RemoteDrain, type DrainRequest } from '../../../src/daemon/remote-drain';
import { GossipRecordKind, type GossipRecord } from '../../../src/daemon/records/record-kinds';
import { decodeRecords, encodeRecords } from '../../../src/daemon/records/records-codec';
import { MLB_RECORDS_VERSION } from '../../../src/daemon/records-protocol';

const record = (value: DrainRequest): GossipRecord => ({ kind: GossipRecordKind.drainRequest, value });
const NO_WIRE = { broadcast: () => undefined, relay: () => undefined, stateChanged: () => undefined };
import type { DrainAsker } from '../../../src/daemon/speaker-flags';

const NODES = ['node-1', 'node-2', 'node-3'];

/** A node's drain.json: what it holds, and whether the next write fails. */
class FakeFlags {
  isDrained = false;
  appliedRequest: DrainAsker | undefined;
  failNext: string | undefined;
  readonly writes: { drained: boolean; asker: DrainAsker }[] = [];
  async setDrained(drained: boolean, asker: DrainAsker): Promise<boolean> {
    if (this.failNext) throw new DrainRecordError('drainNotRecorded', this.failNext);
    this.writes.push({ drained, asker });
    this.appliedRequest = { requestedBy: asker.requestedBy, seq: asker.seq };
    const changed = this.isDrained !== drained;
    this.isDrained = drained;
    return changed;
  }
}

interface Node {
  readonly drain: RemoteDrain;
  readonly flags: FakeFlags;
  readonly logs: { level: string; fields: Record<string, unknown>; msg: string }[];
  readonly changes: [boolean, string][];
}

/** Every node's broadcasts reach every other node, after the current step (as gossip would). */
function cluster(options: { keyed?: boolean; now?: number } = {}): Map<string, Node> {
  const nodes = new Map<string, Node>();
  let clock = options.now ?? Date.parse('2026-12-01T09:00:00Z');
  for (const self of NODES) {
    const flags = new FakeFlags();
    const logs: Node['logs'] = [];
    const changes: Node['changes'] = [];
    const log = (level: string) => (fields: object, msg: string) => logs.push({ level, fields: fields as Record<string, unknown>, msg });
    const drain = new RemoteDrain({
      self,
      authenticated: options.keyed ?? true,
      flags,
      runtime: { now: () => clock++ },
      wire: {
        // Through the records codec, as gossip carries them.
        broadcast: (records) =>
          queueMicrotask(() => {
            const received = decodeRecords(encodeRecords(records, MLB_RECORDS_VERSION));
            for (const [name, other] of nodes) {
              if (name === self) continue;
              for (const r of received.ok ? received.value.records : []) other.drain.receive(r);
            }
          }),
        relay: () => undefined,
        stateChanged: () => undefined,
      },
      members: () => NODES.map((name) => ({ name, state: 'alive', mlb: true })),
      onDrainChanged: (draining, by) => changes.push([draining, by]),
      logger: { info: log('info'), warn: log('warn'), error: log('error') },
    });
    nodes.set(self, { drain, flags, logs, changes });
  }
  return nodes;
}

/** Lets queued broadcasts and the applies they start run to the end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

const node = (c: Map<string, Node>, name: string) => c.get(name) as Node;

describe('mlb drain NODE between daemons', () => {
  it('node-1 asks node-2: node-2 records the drain with who asked, and every node sees it applied', async () => {
    const c = cluster();
    const answer = await node(c, 'node-1').drain.ask('drain', 'node-2');
    expect(answer).toMatchObject({
      changed: true,
      message: 'asked node-2 to drain',
      request: { target: 'node-2', action: 'drain', requestedBy: 'node-1' },
    });
    await settle();
    const two = node(c, 'node-2');
    expect(two.flags.writes).toEqual([
      { drained: true, asker: expect.objectContaining({ requestedBy: 'node-1', seq: answer.request!.seq }) },
    ]);
    expect(two.changes).toEqual([[true, 'node-1']]);
    for (const name of NODES) {
      expect(node(c, name).drain.requests().get('node-2'), name).toMatchObject({
        action: 'drain',
        requestedBy: 'node-1',
        outcome: 'applied',
        seq: answer.request!.seq,
      });
    }
  });

  it('a later undrain from node-3 wins, and a replay of the old drain changes nothing', async () => {
    const c = cluster();
    const drain = await node(c, 'node-1').drain.ask('drain', 'node-2');
    await settle();
    const oldBytes = record({
      target: 'node-2',
      action: 'drain',
      requestedBy: 'node-1',
      seq: drain.request!.seq,
      at: 0,
      outcome: 'pending',
    });
    await node(c, 'node-3').drain.ask('undrain', 'node-2');
    await settle();
    const two = node(c, 'node-2');
    expect(two.flags.isDrained).toBe(false);
    expect(two.changes).toEqual([
      [true, 'node-1'],
      [false, 'node-3'],
    ]);
    // The old request heard again (a node back from a partition relays it): ignored.
    expect(two.drain.receive(oldBytes)).toBe('none');
    await settle();
    expect(two.flags.writes).toHaveLength(2);
    expect(two.flags.isDrained).toBe(false);
  });

  it('a restarted target does not apply again the request its drain.json records', async () => {
    const c = cluster();
    const two = node(c, 'node-2');
    two.flags.isDrained = true;
    two.flags.appliedRequest = { requestedBy: 'node-1', seq: 5_000 };
    const restarted = new RemoteDrain({
      self: 'node-2',
      authenticated: true,
      flags: two.flags,
      wire: NO_WIRE,
      members: () => [],
      onDrainChanged: () => undefined,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    // It tells the others what it applied, and the same request heard back is no news.
    expect(restarted.requests().get('node-2')).toMatchObject({ action: 'drain', requestedBy: 'node-1', seq: 5_000, outcome: 'applied' });
    expect(restarted.state().map((r) => r.kind)).toEqual([GossipRecordKind.drainRequest]);
    restarted.receive(record({ target: 'node-2', action: 'drain', requestedBy: 'node-1', seq: 5_000, at: 0, outcome: 'pending' }));
    await settle();
    expect(two.flags.writes).toEqual([]);
  });

  it('drain.json cannot be written on the target: nothing changes there and the asker sees why', async () => {
    const c = cluster();
    node(c, 'node-2').flags.failNext = 'cannot record the drain in /var/lib/mlb/drain.json (EROFS: read-only file system): nothing changed';
    await node(c, 'node-1').drain.ask('drain', 'node-2');
    await settle();
    expect(node(c, 'node-2').flags.isDrained).toBe(false);
    expect(node(c, 'node-1').drain.requests().get('node-2')).toMatchObject({ outcome: 'failed', detail: expect.stringContaining('EROFS') });
  });

  it('an unknown name is refused with the closest member, a MetalLB speaker as having no drain', async () => {
    const c = cluster();
    await expect(node(c, 'node-1').drain.ask('drain', 'node-22')).rejects.toMatchObject({
      code: 'unknownNode',
      message: 'no member named "node-22" (did you mean "node-2"?); the members are node-1, node-2, node-3',
    });
    const plain = new RemoteDrain({
      self: 'node-1',
      authenticated: true,
      flags: new FakeFlags(),
      wire: NO_WIRE,
      members: () => [{ name: 'speaker-x', state: 'alive', mlb: false }],
      onDrainChanged: () => undefined,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await expect(plain.ask('drain', 'speaker-x')).rejects.toMatchObject({ code: 'notMlbNode' });
  });

  it('without a gossip key: asking another node is refused, a request heard in gossip is ignored and counted', async () => {
    const c = cluster({ keyed: false });
    await expect(node(c, 'node-1').drain.ask('drain', 'node-2')).rejects.toMatchObject({
      code: 'remoteDrainNeedsKey',
      message: expect.stringMatching(/^remote drain needs the gossip key \(--gossip-key-file\).*drain on node-2 itself/),
    });
    const two = node(c, 'node-2');
    const when = Date.parse('2026-12-01T09:00:10Z');
    const forged: DrainRequest = { target: 'node-2', action: 'drain', requestedBy: 'node-1', seq: when, at: when, outcome: 'pending' };
    two.drain.receive(record(forged));
    await settle();
    expect(two.flags.writes).toEqual([]);
    expect(two.drain.drops.unauthenticatedDrainRequest).toBe(1);
    expect(two.logs.find((l) => l.fields.event === 'drainRequestIgnored')?.level).toBe('warn');
    // Draining the node itself still works, and the others learn who drained it.
    expect(await two.drain.ask('drain', undefined)).toEqual({ changed: true, message: 'node-2 is draining: its IPs move to other nodes' });
    await settle();
    expect(node(c, 'node-3').drain.requests().get('node-2')).toMatchObject({ requestedBy: 'node-2', outcome: 'applied' });
  });

  it('drops a request stamped days ahead (a wrong clock), so it cannot drag every later request past it', async () => {
    const c = cluster();
    const two = node(c, 'node-2');
    const ahead: DrainRequest = {
      target: 'node-2',
      action: 'drain',
      requestedBy: 'node-3',
      seq: Number.MAX_SAFE_INTEGER,
      at: 0,
      outcome: 'pending',
    };
    expect(two.drain.receive(record(ahead))).toBe('none');
    await settle();
    expect(two.flags.writes).toEqual([]);
    expect(two.drain.drops.drainStampAhead).toBe(1);
    // Requests from sane clocks still work.
    await node(c, 'node-1').drain.ask('drain', 'node-2');
    await settle();
    expect(two.flags.isDrained).toBe(true);
  });
});
