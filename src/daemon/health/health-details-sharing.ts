/**
 * Every node's failing-check details (health-details.ts) as this node knows them: its own, published when what
 * it would say changes (not on every probe), and the newest received from each live member. The shell around
 * it (health-report-sharing.ts) broadcasts what publish() returns and pushes records() with the push/pull state.
 */
import { encodedRecordBytes } from '../records/records-envelope';
import { GossipRecordKind, type GossipRecord } from '../records/record-kinds';
import { AWAITING_FIRST_PROBE, type HealthResult } from './health-monitor';
import { mergeHealthDetails, type FailingCheck, type HealthDetails } from './health-details';

/**
 * Push/pull state relays other nodes' details while they fit in this many bytes (a newcomer's `mlb explain`
 * then knows them at once); beyond it they arrive from their owners. Leaves the 1 MiB user state to the
 * allocation table.
 */
const HEALTH_DETAILS_RELAY_BUDGET_BYTES = 32 * 1024;

export class HealthDetailsSharing {
  private table: ReadonlyMap<string, HealthDetails> = new Map();
  private seq = 0;
  private published: string | undefined;

  constructor(
    private readonly self: string,
    private readonly epoch: number,
  ) {}

  /**
   * Whether one probe's result changes what this node says (O(1), so the monitor can ask after every probe of
   * thousands of services; publish() then builds the whole record only when something did change).
   */
  changes(key: string, result: HealthResult): boolean {
    const own = this.table.get(this.self)?.failing;
    const said = own && Object.hasOwn(own, key) ? own[key] : undefined;
    if (result.state !== 'failing' || result.detail === AWAITING_FIRST_PROBE) return said !== undefined;
    return said === undefined || said.detail !== result.detail || said.since !== result.since;
  }

  /** This node's failing checks now; its record when they changed since the last call, else undefined. */
  publish(results: ReadonlyMap<string, HealthResult>): GossipRecord | undefined {
    const failing: Record<string, FailingCheck> = {};
    for (const [key, result] of results) {
      // Before the first probe there is nothing to say but "not yet", which the report's verdict already says.
      if (result.state === 'failing' && result.detail !== AWAITING_FIRST_PROBE)
        failing[key] = { since: result.since, detail: result.detail };
    }
    const fingerprint = JSON.stringify(Object.entries(failing).sort(([a], [b]) => (a < b ? -1 : 1)));
    if (fingerprint === this.published) return undefined;
    this.published = fingerprint;
    const own: HealthDetails = { node: this.self, epoch: this.epoch, seq: ++this.seq, failing };
    this.table = mergeHealthDetails(this.table, own).table;
    return { kind: GossipRecordKind.healthDetails, value: own };
  }

  /** A peer's details; true when they told us something new. Our own, echoed back, are ignored. */
  receive(details: HealthDetails): boolean {
    if (details.node === this.self) return false;
    const merged = mergeHealthDetails(this.table, details);
    this.table = merged.table;
    return merged.changed;
  }

  /** Forgets members gossip no longer knows (this node's own details stay). */
  retain(known: ReadonlySet<string>): void {
    this.table = new Map([...this.table].filter(([node]) => node === this.self || known.has(node)));
  }

  /** This node's record first, then others' while they fit HEALTH_DETAILS_RELAY_BUDGET_BYTES. */
  records(): GossipRecord[] {
    const own = this.table.get(this.self);
    const out: GossipRecord[] = [];
    let budget = HEALTH_DETAILS_RELAY_BUDGET_BYTES;
    for (const details of [...(own ? [own] : []), ...[...this.table.values()].filter((d) => d.node !== this.self)]) {
      const record: GossipRecord = { kind: GossipRecordKind.healthDetails, value: details };
      const size = encodedRecordBytes(record);
      if (details !== own && size > budget) continue;
      budget -= size;
      out.push(record);
    }
    return out;
  }

  /** Node -> service key -> why its check fails. */
  view(): ReadonlyMap<string, HealthDetails> {
    return this.table;
  }
}
