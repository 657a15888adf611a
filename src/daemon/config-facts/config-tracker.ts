/**
 * The shell around config-agreement.ts and service-retention.ts: remembers what this node last elected on (the
 * definitions retention keeps), since when each mlb member has been live without facts, and what it last
 * logged, so a divergence or a retention is logged when it starts or changes, never on every recomputation.
 */
import type { Logger } from 'pino';
import { decodeNodeMeta } from '../../gossip/node-meta';
import type { Snapshot } from '../../model';
import type { LiveMember } from '../cluster-decision';
import { configAgreement, refusalMessage, type ConfigAgreement, type PeerConfig } from './config-agreement';
import { hashServiceKey, summarizeConfig, type ConfigSummary } from './config-digest';
import { MAX_PUBLISHED_SERVICE_KEYS, type ConfigFacts } from './config-facts-codec';
import { retainServices, retentionMessage, type Retention } from './service-retention';

export interface ConfigStep {
  readonly agreement: ConfigAgreement;
  readonly retention: Retention;
  /** What this node publishes about its file now (ConfigFactsSharing.publish). */
  readonly facts: Omit<ConfigFacts, 'node' | 'epoch' | 'seq'>;
}

export class ConfigTracker {
  private previous: Snapshot | undefined;
  private summary: { file: Snapshot; summary: ConfigSummary } | undefined;
  private awaitingSince = new Map<string, number>();
  private logged = new Map<string, string>();
  private loggedRetention = '';
  private loggedRefusals = new Map<string, string>();
  last: ConfigStep | undefined;

  constructor(
    private readonly self: string,
    private readonly logger: Logger,
  ) {}

  /** `refused`: this node's file on disk was refused (its first error); the others are told so. */
  step(file: Snapshot, live: readonly LiveMember[], facts: ReadonlyMap<string, ConfigFacts>, now: number, refused?: string): ConfigStep {
    const own = this.summarize(file);
    const liveMlb = live.filter((m) => decodeNodeMeta(m.meta) !== undefined).map((m) => m.name);
    this.trackAwaiting(liveMlb, facts, now);
    const agreement = configAgreement({ self: this.self, own, liveMlb, facts, awaitingSince: this.awaitingSince, now });
    const retention = retainServices(file, this.previous, agreement);
    this.previous = retention.snapshot;
    this.logDivergence(agreement.peers);
    this.logRefusals(agreement.peers);
    this.logRetention(retention);
    const keyHashes = [...own.keyHashes].sort();
    const step: ConfigStep = {
      agreement,
      retention,
      facts: {
        digest: own.digest,
        services: own.services,
        keyHashes: keyHashes.slice(0, MAX_PUBLISHED_SERVICE_KEYS),
        keysTruncated: keyHashes.length > MAX_PUBLISHED_SERVICE_KEYS,
        retainedHashes: retention.retained.map((r) => hashServiceKey(r.service)),
        ...(refused === undefined ? {} : { refusedReason: refused }),
      },
    };
    this.last = step;
    return step;
  }

  private summarize(file: Snapshot): ConfigSummary {
    if (this.summary?.file !== file) this.summary = { file, summary: summarizeConfig(file) };
    return this.summary.summary;
  }

  private trackAwaiting(liveMlb: readonly string[], facts: ReadonlyMap<string, ConfigFacts>, now: number): void {
    const waiting = new Set(liveMlb.filter((n) => n !== this.self && !facts.has(n)));
    for (const node of this.awaitingSince.keys()) if (!waiting.has(node)) this.awaitingSince.delete(node);
    for (const node of waiting) if (!this.awaitingSince.has(node)) this.awaitingSince.set(node, now);
  }

  private logDivergence(peers: readonly PeerConfig[]): void {
    const seen = new Set<string>();
    for (const peer of peers) {
      if (peer.state !== 'differs') continue;
      seen.add(peer.node);
      const fingerprint = JSON.stringify([peer.digest, peer.services, peer.lacks, peer.extra]);
      if (this.logged.get(peer.node) === fingerprint) continue;
      this.logged.set(peer.node, fingerprint);
      this.logger.warn(
        { event: 'configDiverged', node: peer.node, digest: peer.digest, services: peer.services, lacks: peer.lacks, extra: peer.extra },
        peer.message,
      );
    }
    for (const node of [...this.logged.keys()]) {
      if (seen.has(node)) continue;
      this.logged.delete(node);
      const still = peers.find((p) => p.node === node);
      this.logger.info(
        { event: 'configConverged', node, state: still?.state ?? 'gone' },
        still ? `${node}'s configuration is the same as this node's again` : `${node} is no longer a live member: no longer compared`,
      );
    }
  }

  /** A peer's refused file is said once when it starts (or its reason changes), and once when it is fixed. */
  private logRefusals(peers: readonly PeerConfig[]): void {
    const now = new Map(peers.filter((p) => p.refused !== undefined).map((p) => [p.node, p.refused as string]));
    for (const [node, reason] of now) {
      if (this.loggedRefusals.get(node) === reason) continue;
      this.loggedRefusals.set(node, reason);
      this.logger.warn({ event: 'configRefusedOnPeer', node, reason }, refusalMessage(node, reason));
    }
    for (const node of [...this.loggedRefusals.keys()]) {
      if (now.has(node)) continue;
      this.loggedRefusals.delete(node);
      this.logger.info({ event: 'configAcceptedOnPeer', node }, `${node}'s configuration file is no longer refused`);
    }
  }

  private logRetention(retention: Retention): void {
    const fingerprint = JSON.stringify(retention.retained);
    if (fingerprint === this.loggedRetention) return;
    const wasRetaining = this.loggedRetention !== '' && this.loggedRetention !== '[]';
    this.loggedRetention = fingerprint;
    if (retention.retained.length > 0) {
      this.logger.warn({ event: 'servicesRetained', retained: retention.retained }, retentionMessage(retention.retained));
    } else if (wasRetaining) {
      this.logger.info(
        { event: 'retentionEnded', released: retention.released },
        'no live member defines the retained services any more: let go',
      );
    }
  }
}
