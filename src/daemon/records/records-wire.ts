/**
 * Where mlb's records meet memberlist: changes go out as keyed broadcasts, every part's records ride on each
 * push/pull as user state (anti-entropy, for whatever a broadcast missed), and received payloads are decoded
 * (records-codec.ts) and handed to the part that owns each kind. The parts (health reports, the allocation
 * table, configuration facts, conflict reports, drain requests) register here; none of them sees bytes.
 *
 * Which form is written follows the records version every live member advertises (records-protocol.ts): the
 * msgpack envelope only while every other live mlb member understands it, the v1 layout otherwise. When the
 * version in use changes (the last old member left, or an old one joined) the push/pull state is rewritten in
 * the new form at once, and when it drops this node's own latest broadcasts are sent again in the older form, so
 * an old member that missed them (sent in a form it cannot read) does not wait for a push/pull.
 */
import type { Logger } from 'pino';
import { decodeNodeMeta, type NodeMeta } from '../../gossip/node-meta';
import { recordsVersionInUse, UNVERSIONED_RECORDS_VERSION } from '../records-protocol';
import { decodeRecords, encodeRecords } from './records-codec';
import { RecordDropReason, type GossipRecord, type GossipRecordKind } from './record-kinds';

/** What a received record did to its part: nothing new, news for the push/pull state only, or an election input. */
export type RecordEffect = 'none' | 'state' | 'election';

/** One owner of record kinds: what it pushes with the state, and what it does with a received record. */
export interface RecordsPart {
  state(): readonly GossipRecord[];
  receive(record: GossipRecord): RecordEffect;
}

/** What a part may ask of the wire. */
export interface RecordsChannel {
  /** This node's own news, at once (a newer broadcast with the same key replaces a queued older one). */
  broadcast(records: readonly GossipRecord[], key: string): void;
  /** Passes on a record this node has just learned (see RecordsWire.relay). */
  relay(record: GossipRecord, key: string): void;
  /** What some part's state() returns changed: the next push/pull carries it. */
  stateChanged(): void;
}

/** The parts of a gossip node the wire uses (GossipNode has them). */
export interface RecordsGossip {
  broadcast(payload: Uint8Array, key?: string): void;
  setLocalState(userState: Uint8Array): void;
  liveMembers(): readonly { readonly name: string; readonly meta?: Uint8Array }[];
  on(event: 'userMessage' | 'remoteState', listener: (bytes: Uint8Array) => void): unknown;
  on(event: 'join' | 'leave' | 'update', listener: () => void): unknown;
}

export interface RecordsWireOptions {
  readonly gossip: RecordsGossip;
  readonly self: string;
  /** A received record changed an election input (called once per payload). */
  readonly onChange: () => void;
  readonly logger?: Pick<Logger, 'info'>;
}

export class RecordsWire implements RecordsChannel {
  /** Received records refused, by reason (mlb_gossip_record_drops_total). */
  readonly drops: Record<RecordDropReason, number> = Object.fromEntries(Object.values(RecordDropReason).map((r) => [r, 0])) as Record<
    RecordDropReason,
    number
  >;
  private readonly owners = new Map<GossipRecordKind, RecordsPart>();
  private readonly parts: RecordsPart[] = [];
  /** This node's latest broadcast per key, sent again in the older form when the version in use drops. */
  private readonly latest = new Map<string, readonly GossipRecord[]>();
  private version: number;

  constructor(private readonly options: RecordsWireOptions) {
    this.version = this.liveVersion();
    options.gossip.on('userMessage', (bytes) => this.receive(bytes));
    options.gossip.on('remoteState', (bytes) => this.receive(bytes));
    for (const event of ['join', 'leave', 'update'] as const) options.gossip.on(event, () => this.membersChanged());
  }

  /** `part` owns `kinds`: it receives them, and its state() rides on every push/pull. */
  register(kinds: readonly GossipRecordKind[], part: RecordsPart): void {
    for (const kind of kinds) this.owners.set(kind, part);
    this.parts.push(part);
  }

  /** The records version this node writes now (records-protocol.ts). */
  versionInUse(): number {
    return this.version;
  }

  broadcast(records: readonly GossipRecord[], key: string): void {
    this.latest.set(key, records);
    this.options.gossip.broadcast(encodeRecords(records, this.version), key);
  }

  /**
   * Passes on a record this node has just learned (newer than what it held): a broadcast goes out a limited number
   * of times to random members (4 in a cluster of up to 9, memberlist's retransmit limit), so one member of five
   * usually missed the originator's and would learn it only at a push/pull, 15 s or more later, acting on stale
   * facts meanwhile (an IP dark or announced twice, a conflict or a failing check not shown). Each part relays a
   * record once, when it is new, keyed by its origin so a newer record from the same node replaces an older one
   * still queued; a record already held is not relayed, so it dies out. The way serf spreads its user events.
   */
  relay(record: GossipRecord, key: string): void {
    this.options.gossip.broadcast(encodeRecords([record], this.version), key);
  }

  stateChanged(): void {
    this.options.gossip.setLocalState(
      encodeRecords(
        this.parts.flatMap((p) => p.state()),
        this.version,
      ),
    );
  }

  private receive(bytes: Uint8Array): void {
    const decoded = decodeRecords(bytes);
    if (!decoded.ok) {
      this.drops[decoded.reason]++;
      return;
    }
    for (const drop of decoded.value.drops) this.drops[drop.reason]++;
    let state = false;
    let election = false;
    for (const record of decoded.value.records) {
      const effect = this.owners.get(record.kind)?.receive(record) ?? 'none';
      state ||= effect !== 'none';
      election ||= effect === 'election';
    }
    if (state) this.stateChanged();
    if (election) this.options.onChange();
  }

  /**
   * The lowest records version the other live mlb members advertise. With none heard yet (alone, or before the
   * first join) the oldest form: whoever this node meets first may be an older release, and the state and
   * broadcasts queued now are what it receives in that first exchange.
   */
  private liveVersion(): number {
    const others: NodeMeta[] = [];
    for (const m of this.options.gossip.liveMembers()) {
      const meta = m.name === this.options.self ? undefined : decodeNodeMeta(m.meta);
      if (meta) others.push(meta);
    }
    return others.length === 0 ? UNVERSIONED_RECORDS_VERSION : recordsVersionInUse(others);
  }

  private membersChanged(): void {
    const next = this.liveVersion();
    if (next === this.version) return;
    const dropped = next < this.version;
    this.options.logger?.info(
      { event: 'recordsVersionInUse', from: this.version, to: next },
      `gossip records now written as version ${next} (the lowest every live member understands)`,
    );
    this.version = next;
    this.stateChanged();
    if (dropped) for (const [key, records] of this.latest) this.options.gossip.broadcast(encodeRecords(records, next), key);
  }
}
