/**
 * `mlb drain NODE` from any host (the shell around drain-request-codec.ts and drain-request-table.ts). The host
 * whose control socket is asked stamps a request and gossips it (a broadcast at once; push/pull state carries the
 * newest request per target to anyone who missed it). The target applies the newest request for itself exactly
 * as a local `mlb drain` (drain.json first, fail closed), logs who asked, and republishes the request with its
 * outcome: that is the acknowledgement the asking CLI waits for, and what every node's status shows as "drained
 * by". A local `mlb drain` goes through the same path with the node as requester, so every node's status knows
 * who drained whom, and a later request outranks an earlier one wherever it was made.
 *
 * Authorised by the gossip key: with a keyring every gossip packet is AES-GCM authenticated (memberlist's
 * encryption, verified on every packet), so a request can only come from a key holder. Without a key a request
 * is refused where it is asked (remoteDrainNeedsKey) and ignored where it arrives.
 */
import { didYouMean } from '../../model/parse/did-you-mean';
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import type { Clock } from '../../runtime/runtime';
import { DrainRecordError } from '../drain-record';
import { GossipRecordKind, type GossipRecord } from '../records/record-kinds';
import { encodedRecordBytes } from '../records/records-envelope';
import type { RecordEffect, RecordsChannel, RecordsPart } from '../records/records-wire';
import type { DrainAsker } from '../speaker-flags';
import { encodeDrainRequest, MAX_DRAIN_TIME_MS, type DrainAction, type DrainRequest } from './drain-request-codec';
import { decideApply, highestSeq, mergeDrainRequest, nextSeq, stampTooFarAhead, type DrainRequestTable } from './drain-request-table';
import { RemoteDrainError } from './remote-drain-error';

/** Broadcast key per target: a newer request for a node replaces a queued older one, others stay queued. */
const broadcastKey = (target: string) => `mlb-drain:${target}`;
/**
 * Push/pull relays other targets' requests while they fit in this many bytes (this node's own always travels).
 * The 1 MiB user state holds the allocation table (up to 896 KiB) and configuration facts (64 KiB); a request is
 * under 800 bytes, mostly about 40, so this carries hundreds of nodes' requests.
 */
const DRAIN_RELAY_BUDGET_BYTES = 16 * 1024;

/** What `mlb drain [NODE]` gets back (the control API's DrainResult). */
export interface DrainAnswer {
  readonly changed: boolean;
  readonly message: string;
  /** A remote request: what to wait for in the target's drain state (GET /v1/snapshot, members[].drain). */
  readonly request?: { readonly target: string; readonly action: DrainAction; readonly requestedBy: string; readonly seq: number };
}

export interface DrainMember {
  readonly name: string;
  readonly state: string;
  /** Runs mlb (publishes mlb meta); false for a plain MetalLB speaker. */
  readonly mlb: boolean;
}

export interface RemoteDrainOptions {
  readonly self: string;
  /** Gossip runs with a key (every packet authenticated): remote requests may be made and applied. */
  readonly authenticated: boolean;
  readonly wire: RecordsChannel;
  /** This node's drain state (speaker-flags.ts): written to drain.json before it changes. */
  readonly flags: {
    readonly isDrained: boolean;
    readonly appliedRequest: DrainAsker | undefined;
    setDrained(drained: boolean, asker: DrainAsker): Promise<boolean>;
  };
  /** Every member gossip knows, this node included. */
  readonly members: () => readonly DrainMember[];
  /** This node's drain state changed (the speaker records the event). */
  readonly onDrainChanged: (draining: boolean, requestedBy: string) => void;
  readonly logger: {
    info(fields: object, msg: string): void;
    warn(fields: object, msg: string): void;
    error(fields: object, msg: string): void;
  };
  /** What requests are stamped with and checked against (the real clock by default). */
  readonly runtime?: Clock;
}

export class RemoteDrain implements RecordsPart {
  private table: DrainRequestTable = new Map();
  /** Applies run one after another, each deciding afresh (a newer request may have arrived meanwhile). */
  private applying: Promise<unknown> = Promise.resolve();
  /** Well-formed requests refused (a damaged one is counted by the wire, badDrainRequest). */
  readonly drops = { unauthenticatedDrainRequest: 0, drainTableFull: 0, drainStampAhead: 0 };

  constructor(private readonly options: RemoteDrainOptions) {
    // What drain.json says this node last applied: the others learn it at the first push/pull.
    const applied = options.flags.appliedRequest;
    if (applied) {
      const action: DrainAction = options.flags.isDrained ? 'drain' : 'undrain';
      // drain.json keeps no request time: the stamp follows the wall clock closely enough to show.
      this.table = new Map([
        [
          options.self,
          { target: options.self, action, ...applied, at: Math.min(applied.seq, MAX_DRAIN_TIME_MS), outcome: 'applied' as const },
        ],
      ]);
    }
  }

  private now(): number {
    return (this.options.runtime ?? REAL_RUNTIME).now();
  }

  /** The newest request heard for each node (status: who drained it, and whether it answered). */
  requests(): DrainRequestTable {
    return this.table;
  }

  /**
   * `mlb drain [NODE]` / `mlb undrain [NODE]` on this node's control socket. No NODE, or this node's name: applied
   * here and now (rejects with DrainRecordError when drain.json cannot be written). Another node: checked,
   * stamped and gossiped; the answer names the request to wait for. Rejects with RemoteDrainError when refused.
   */
  async ask(action: DrainAction, target: string | undefined): Promise<DrainAnswer> {
    const { self } = this.options;
    if (target === undefined || target === self) return this.askHere(action);
    this.checkRemote(target);
    const request: DrainRequest = { target, action, requestedBy: self, seq: this.stamp(), at: this.now(), outcome: 'pending' };
    this.publish(request);
    this.options.logger.info(
      { event: 'drainRequested', target, action, seq: request.seq },
      `asked ${target} to ${action} (request ${request.seq})`,
    );
    return {
      changed: true,
      message: `asked ${target} to ${action}`,
      request: { target, action, requestedBy: self, seq: request.seq },
    };
  }

  private async askHere(action: DrainAction): Promise<DrainAnswer> {
    const { self } = this.options;
    const drained = action === 'drain';
    const request: DrainRequest = { target: self, action, requestedBy: self, seq: this.stamp(), at: this.now(), outcome: 'applied' };
    const changed = await this.enqueue(async () => {
      const did = await this.options.flags.setDrained(drained, request);
      this.publish(request);
      return did;
    });
    if (changed) this.options.onDrainChanged(drained, self);
    const message = drained
      ? changed
        ? `${self} is draining: its IPs move to other nodes`
        : `${self} was already draining`
      : changed
        ? `${self} takes part again`
        : `${self} was not draining`;
    return { changed, message };
  }

  /** Refuses what no node would apply, before anything is gossiped (RemoteDrainError). */
  private checkRemote(target: string): void {
    if (!this.options.authenticated) {
      throw new RemoteDrainError(
        'remoteDrainNeedsKey',
        `remote drain needs the gossip key (--gossip-key-file): without one, gossip is not authenticated and anyone who reaches the gossip port could drain a node; drain on ${target} itself (mlb drain there)`,
      );
    }
    const members = this.options.members();
    const member = members.find((m) => m.name === target);
    if (!member) {
      const names = members.map((m) => m.name).sort();
      throw new RemoteDrainError(
        'unknownNode',
        `no member named "${target}"${didYouMean(target, names)}; the members are ${names.join(', ')}`,
      );
    }
    if (!member.mlb)
      throw new RemoteDrainError(
        'notMlbNode',
        `${target} is a MetalLB speaker, not mlb: it has no drain (cordon it in Kubernetes instead)`,
      );
  }

  /** A seq above every request this node has heard and applied, and not behind its clock. */
  private stamp(): number {
    return nextSeq(Math.max(highestSeq(this.table), this.options.flags.appliedRequest?.seq ?? 0), this.now());
  }

  /** Takes `request` into the table and tells the others at once (and in the next push/pull). */
  private publish(request: DrainRequest): void {
    // The v1 codec's checks are what any peer accepts (names of 1..255 bytes, safe integers).
    if (!encodeDrainRequest(request)) {
      this.options.logger.error(
        { event: 'drainRequestNotSent', target: request.target },
        `cannot encode the drain request for ${request.target} (a node name over 255 bytes?)`,
      );
      return;
    }
    this.table = mergeDrainRequest(this.table, request).table;
    this.options.wire.broadcast([{ kind: GossipRecordKind.drainRequest, value: request }], broadcastKey(request.target));
    this.options.wire.stateChanged();
  }

  /** This node's own request state first, then the others' while they fit DRAIN_RELAY_BUDGET_BYTES. */
  state(): GossipRecord[] {
    const own = this.table.get(this.options.self);
    const others = [...this.table.values()].filter((r) => r !== own).sort((a, b) => b.seq - a.seq);
    const records: GossipRecord[] = [];
    let budget = DRAIN_RELAY_BUDGET_BYTES;
    for (const request of own ? [own, ...others] : others) {
      const record: GossipRecord = { kind: GossipRecordKind.drainRequest, value: request };
      const size = encodedRecordBytes(record);
      if (!encodeDrainRequest(request) || (request !== own && size > budget)) continue;
      budget -= size;
      records.push(record);
    }
    return records;
  }

  /** A drain request from gossip; 'election' when what status shows changed. Never throws. */
  receive(record: GossipRecord): RecordEffect {
    if (record.kind !== GossipRecordKind.drainRequest) return 'none';
    const request = record.value;
    if (stampTooFarAhead(request.seq, this.now())) {
      this.drops.drainStampAhead++;
      this.options.logger.warn(
        { event: 'drainRequestIgnored', target: request.target, requestedBy: request.requestedBy, seq: request.seq, reason: 'stampAhead' },
        `ignored a request from ${request.requestedBy} to ${request.action} ${request.target}: stamped more than a day ahead of this node's clock (is ${request.requestedBy}'s clock wrong?)`,
      );
      return 'none';
    }
    const merged = mergeDrainRequest(this.table, request);
    if (merged.reason === 'tableFull') this.drops.drainTableFull++;
    if (!merged.changed) return 'none';
    this.table = merged.table;
    if (request.target === this.options.self) void this.enqueue(() => this.applyNewest());
    else if (merged.reason !== 'acknowledged' && request.outcome === 'pending') {
      this.options.logger.info(
        { event: 'drainRequestHeard', target: request.target, action: request.action, requestedBy: request.requestedBy, seq: request.seq },
        `${request.requestedBy} asks ${request.target} to ${request.action}`,
      );
    }
    // The wire rewrites the push/pull state, which carries the request on.
    return 'election';
  }

  private enqueue<T>(step: () => Promise<T>): Promise<T> {
    const run = this.applying.catch(() => undefined).then(step);
    this.applying = run;
    return run;
  }

  /** Applies the newest request for this node when it is due (decideApply), and answers with the outcome. */
  private async applyNewest(): Promise<void> {
    const { self, flags, logger } = this.options;
    const request = this.table.get(self);
    if (!request) return;
    const decision = decideApply(self, request, flags.appliedRequest, this.options.authenticated);
    if (!decision.apply) {
      if (decision.reason === 'unauthenticated') {
        this.drops.unauthenticatedDrainRequest++;
        logger.warn(
          { event: 'drainRequestIgnored', requestedBy: request.requestedBy, action: request.action, reason: decision.reason },
          `ignored a request from ${request.requestedBy} to ${request.action} this node: gossip runs without a key (--gossip-key-file), so it cannot be told from a forgery`,
        );
      }
      return;
    }
    const drained = request.action === 'drain';
    try {
      const changed = await flags.setDrained(drained, request);
      this.publish({ ...request, outcome: 'applied' });
      if (changed) this.options.onDrainChanged(drained, request.requestedBy);
      else
        logger.info(
          { event: 'drainRequestApplied', requestedBy: request.requestedBy, action: request.action, changed },
          `${request.requestedBy} asked this node to ${request.action}: it already was ${drained ? 'drained' : 'taking part'}`,
        );
    } catch (error) {
      // drainNotRecorded: nothing changed (speaker-flags.ts logged it); the asker learns why.
      const detail = error instanceof DrainRecordError ? error.message : `failed: ${(error as Error).message}`;
      this.publish({ ...request, outcome: 'failed', detail });
    }
  }
}
