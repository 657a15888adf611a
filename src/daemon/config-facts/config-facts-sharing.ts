/**
 * Every node's configuration facts (config-facts-codec.ts) shared through gossip: this node's own, published
 * when they change (a reload, or retention starting or ending), and the newest received from each live member,
 * which config-tracker.ts compares.
 */
import { GossipRecordKind, type GossipRecord } from '../records/record-kinds';
import { encodedRecordBytes } from '../records/records-envelope';
import type { RecordEffect, RecordsChannel, RecordsPart } from '../records/records-wire';
import { mergeConfigFacts, type ConfigFacts } from './config-facts-codec';

/** Broadcast key: newer facts replace queued older ones. */
const CONFIG_BROADCAST_KEY = 'mlb-config';
/**
 * Push/pull state relays other nodes' configuration facts (so a newcomer learns everyone's at its join) while
 * they fit in this many bytes; beyond it only this node's own travel, and the others' arrive from their owners.
 * The allocation table may take 896 KiB of the 1 MiB user state (allocation-table-codec.ts).
 */
const CONFIG_FACTS_RELAY_BUDGET_BYTES = 64 * 1024;

export class ConfigFactsSharing implements RecordsPart {
  private facts: ReadonlyMap<string, ConfigFacts> = new Map();
  private seq = 0;
  private published: string | undefined;

  constructor(
    private readonly self: string,
    /** The daemon's start time: its facts outrank those of its previous life. */
    private readonly epoch: number,
    private readonly wire: RecordsChannel,
  ) {}

  /** The newest configuration facts per node (this node's own included once published). */
  table(): ReadonlyMap<string, ConfigFacts> {
    return this.facts;
  }

  /** Publishes this node's configuration facts when they changed. */
  publish(facts: Omit<ConfigFacts, 'node' | 'epoch' | 'seq'>): void {
    const fingerprint = JSON.stringify([
      facts.digest,
      facts.services,
      facts.keysTruncated,
      [...facts.keyHashes].sort(),
      [...facts.retainedHashes].sort(),
      facts.refusedReason ?? null,
    ]);
    if (fingerprint === this.published) return;
    this.published = fingerprint;
    const own: ConfigFacts = { ...facts, node: this.self, epoch: this.epoch, seq: ++this.seq };
    this.facts = mergeConfigFacts(this.facts, own).table;
    this.wire.broadcast([{ kind: GossipRecordKind.configFacts, value: own }], CONFIG_BROADCAST_KEY);
    this.wire.stateChanged();
  }

  /** Forgets the facts of nodes no longer live (this node's own stay). */
  retain(live: ReadonlySet<string>): void {
    this.facts = new Map([...this.facts].filter(([node]) => live.has(node) || node === this.self));
  }

  /** This node's facts first, then others' while they fit CONFIG_FACTS_RELAY_BUDGET_BYTES. */
  state(): GossipRecord[] {
    const own = this.facts.get(this.self);
    const others = [...this.facts.values()].filter((f) => f.node !== this.self);
    const records: GossipRecord[] = [];
    let budget = CONFIG_FACTS_RELAY_BUDGET_BYTES;
    for (const facts of own ? [own, ...others] : others) {
      const record: GossipRecord = { kind: GossipRecordKind.configFacts, value: facts };
      const size = encodedRecordBytes(record);
      if (facts !== own && size > budget) continue;
      budget -= size;
      records.push(record);
    }
    return records;
  }

  receive(record: GossipRecord): RecordEffect {
    if (record.kind !== GossipRecordKind.configFacts || record.value.node === this.self) return 'none';
    const merged = mergeConfigFacts(this.facts, record.value);
    this.facts = merged.table;
    if (!merged.changed) return 'none';
    this.wire.relay(record, `${CONFIG_BROADCAST_KEY}:${record.value.node}`);
    return 'election';
  }
}
