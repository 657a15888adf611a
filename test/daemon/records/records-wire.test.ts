/**
 * The records version negotiated through node meta (src/daemon/records/records-wire.ts, records-protocol.ts), on
 * an in-memory gossip bus: a node of this release writes the v1 layout while any live mlb member advertises an
 * older records version (a member of the release before advertises none), and an old node, which reads only the
 * v1 layout, understands it; this release reads the old node's records; the msgpack envelope takes over when the
 * last old member leaves, and the v1 layout comes back (with this node's latest news sent again) when one joins.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { encodeNodeMeta } from '../../../src/gossip/node-meta';
import { decodeLegacyRecords, encodeLegacyRecords } from '../../../src/daemon/records/legacy-records';
import { GossipRecordKind, type GossipRecord } from '../../../src/daemon/records/record-kinds';
import { RecordsWire, type RecordEffect, type RecordsPart } from '../../../src/daemon/records/records-wire';
import { MLB_RECORDS_VERSION } from '../../../src/daemon/records-protocol';
import { healthReportOf } from './record-samples';

const BASE = { labels: {}, conditions: [], draining: false, warmingUp: false };
/** This release's meta, and the meta of the release before records were versioned (no version field). */
const NEW_META = encodeNodeMeta({ ...BASE, macs: [], recordsVersion: MLB_RECORDS_VERSION, release: 'new' });
const OLD_META = encodeNodeMeta(BASE);
const ENVELOPE = 0x93;
const V1_MAGIC = 0x6d; // "m" of "mlbg"

/** Every node's gossip: a broadcast reaches every other live node at once, as a user message. */
class Bus {
  readonly live = new Map<string, Uint8Array>();
  readonly nodes = new Map<string, NodeGossip>();

  add(name: string, meta: Uint8Array): NodeGossip {
    const gossip = new NodeGossip(name, this);
    this.nodes.set(name, gossip);
    this.join(name, meta);
    return gossip;
  }

  join(name: string, meta: Uint8Array): void {
    this.live.set(name, meta);
    for (const [other, g] of this.nodes) if (other !== name) g.emit('join');
  }

  leave(name: string): void {
    this.live.delete(name);
    for (const g of this.nodes.values()) g.emit('leave');
  }
}

class NodeGossip extends EventEmitter {
  state: Uint8Array | undefined;
  readonly sent: Uint8Array[] = [];
  constructor(
    readonly name: string,
    private readonly bus: Bus,
  ) {
    super();
  }
  broadcast(payload: Uint8Array): void {
    this.sent.push(payload);
    for (const [other, g] of this.bus.nodes) if (other !== this.name && this.bus.live.has(other)) g.emit('userMessage', payload);
  }
  setLocalState(bytes: Uint8Array): void {
    this.state = bytes;
  }
  liveMembers() {
    return [...this.bus.live].map(([name, meta]) => ({ name, meta }));
  }
}

/** A part that publishes health reports and keeps what it receives. */
class Reports implements RecordsPart {
  own: GossipRecord | undefined;
  readonly heard: string[] = [];
  state(): GossipRecord[] {
    return this.own ? [this.own] : [];
  }
  receive(record: GossipRecord): RecordEffect {
    if (record.kind === GossipRecordKind.healthReport) this.heard.push(record.value.node);
    return 'election';
  }
}

function newNode(bus: Bus, name: string) {
  const gossip = bus.add(name, NEW_META);
  const wire = new RecordsWire({ gossip, self: name, onChange: () => undefined });
  const reports = new Reports();
  wire.register([GossipRecordKind.healthReport], reports);
  const publish = (): void => {
    reports.own = healthReportOf(2, name);
    wire.broadcast([reports.own], 'mlb-health');
    wire.stateChanged();
  };
  return { gossip, wire, reports, publish };
}

/** What the release before runs: it reads the v1 layout only (anything else is "not ours" to it). */
function heardByOldNode(gossip: NodeGossip): string[] {
  return gossip.sent.flatMap((bytes) => {
    const received = decodeLegacyRecords(bytes);
    return received.ok ? received.value.records.map((r) => (r.kind === GossipRecordKind.healthReport ? r.value.node : '?')) : [];
  });
}

describe('the records version in a mixed cluster', () => {
  it('an old member holds everyone to the v1 layout; the envelope takes over when it leaves and yields when one joins', () => {
    const bus = new Bus();
    const a = newNode(bus, 'node-a');
    const b = newNode(bus, 'node-b');
    const old = bus.add('node-old', OLD_META);

    // With the old member live: what node-a says reaches it in the layout it reads.
    a.publish();
    expect(a.wire.versionInUse()).toBe(0);
    expect(heardByOldNode(a.gossip)).toEqual(['node-a']);
    expect(a.gossip.state?.[0]).toBe(V1_MAGIC);
    expect(b.reports.heard).toEqual(['node-a']);
    // And what the old member says (v1, as its release writes it) reaches the new ones.
    old.broadcast(encodeLegacyRecords([healthReportOf(1, 'node-old')]));
    expect(a.reports.heard).toEqual(['node-old']);

    // The last old member leaves: state and broadcasts switch to the msgpack envelope, still understood.
    bus.leave('node-old');
    expect(a.wire.versionInUse()).toBe(MLB_RECORDS_VERSION);
    expect(a.gossip.state?.[0]).toBe(ENVELOPE);
    a.publish();
    expect(a.gossip.sent.at(-1)?.[0]).toBe(ENVELOPE);
    expect(b.reports.heard).toEqual(['node-a', 'node-old', 'node-a']);

    // An old member joins again: the state is v1 again, and node-a's latest news is sent again in v1 for it.
    const sentBefore = a.gossip.sent.length;
    bus.join('node-old', OLD_META);
    expect(a.gossip.state?.[0]).toBe(V1_MAGIC);
    const resent = a.gossip.sent.slice(sentBefore);
    expect(resent.map((bytes) => bytes[0])).toEqual([V1_MAGIC]);
    expect(heardByOldNode({ sent: resent } as NodeGossip)).toEqual(['node-a']);
  });

  it('relays in the form in use, one record per relay', () => {
    const bus = new Bus();
    const a = newNode(bus, 'node-a');
    newNode(bus, 'node-b');
    a.wire.relay(healthReportOf(1, 'node-x'), 'mlb-health:node-x');
    expect(a.gossip.sent.at(-1)?.[0]).toBe(ENVELOPE);
    bus.add('node-old', OLD_META);
    a.wire.relay(healthReportOf(1, 'node-y'), 'mlb-health:node-y');
    expect(heardByOldNode({ sent: a.gossip.sent.slice(-1) } as NodeGossip)).toEqual(['node-y']);
  });

  it('a node that has heard nobody writes the v1 layout: whoever it meets first may be old', () => {
    const bus = new Bus();
    const alone = newNode(bus, 'node-a');
    alone.publish();
    expect(alone.wire.versionInUse()).toBe(0);
    expect(heardByOldNode(alone.gossip)).toEqual(['node-a']);
  });

  it('counts what it cannot read by reason and keeps going', () => {
    const bus = new Bus();
    const a = newNode(bus, 'node-a');
    const other = bus.add('node-x', NEW_META);
    other.broadcast(Buffer.from('not mlb'));
    other.broadcast(Uint8Array.of(0x6d, 0x6c, 0x62, 0x67, 1, GossipRecordKind.healthReport, 0, 0, 0, 3, 1, 2, 3));
    other.broadcast(Uint8Array.of(0x93, 0xa4, ...Buffer.from('mlbr'), 0x02, 0xdd, 0xff, 0xff, 0xff, 0xff));
    expect(a.wire.drops).toMatchObject({ notOurs: 1, badHealthReport: 1, badEnvelope: 1 });
    other.broadcast(encodeLegacyRecords([healthReportOf(1, 'node-x')]));
    expect(a.reports.heard).toEqual(['node-x']);
  });
});
