/**
 * The daemon's election across recomputations. A recomputation runs after every membership, meta, health or
 * configuration change; electing every service from scratch each time (electAll) costs services x nodes, so a
 * cluster of 10,000 services paid that for one member joining. This keeps an ElectionIndex between calls and,
 * when only the live set moved, applies the joins and leaves to it (election-index.ts: only the units a node
 * can win or held are touched). Anything else that the index's units were built from changing (a Node's labels,
 * a pool, an advertisement, a service, what a service's endpoints mean for the election) makes it elect afresh,
 * so its outcomes and explanations are always those of electAll on the same inputs
 * (test/election/incremental-election.test.ts checks random clusters under churn).
 *
 * mlb's preference tiers (draining, warming-up nodes: deferral.ts) re-rank across nodes, which the index cannot
 * express: while any node is in a tier, electAll decides. With both sets empty the tiers change nothing, so the
 * index elects exactly as electAll with them.
 */
import type { IPAddressPool, Service } from '../model';
import { ElectionIndex } from './election-index';
import { electAll, type FullElection } from './elect';
import type { ElectionConfig, ServiceElectionInput, ServiceEndpoints } from './election-input';

/** Elects every service; the daemon's seam between the full election and the incremental one. */
export interface Elector {
  elect(config: ElectionConfig, services: readonly ServiceElectionInput[], live: ReadonlySet<string>): FullElection;
}

/** Every call from scratch: one-shot callers, and the reference the incremental elector must equal. */
export const FULL_ELECTION: Elector = { elect: (config, services, live) => electAll(config, services, live) };

/** How the last call was served: what a test or a profile reads to see that a change cost what it changed. */
export interface IncrementalElectionStats {
  /** Calls that elected every service (first call, or the index's inputs changed). */
  readonly full: number;
  /** Calls served by applying membership changes to the index. */
  readonly incremental: number;
  /** Joins and leaves applied to the index, over all incremental calls. */
  readonly membershipChanges: number;
}

export class IncrementalElection implements Elector {
  private index: ElectionIndex | undefined;
  /** What the index's units were built from, besides the live set (see inputsKey). */
  private key: string | undefined;
  private live = new Set<string>();
  /** Bumped whenever the index moves: an explanation asked for later must not read a newer state. */
  private generation = 0;
  private readonly ids = new ObjectIds();
  private counts = { full: 0, incremental: 0, membershipChanges: 0 };

  get stats(): IncrementalElectionStats {
    return { ...this.counts };
  }

  elect(config: ElectionConfig, services: readonly ServiceElectionInput[], live: ReadonlySet<string>): FullElection {
    const mlb = config.mlb;
    if (mlb && (mlb.draining.size > 0 || mlb.warmingUp.size > 0)) {
      this.forget();
      this.counts.full++;
      return electAll(config, services, live);
    }
    const { mlb: _tiers, ...plain } = config;
    const key = this.inputsKey(plain, services);
    let index = this.index;
    if (index && key === this.key) {
      this.counts.incremental++;
      for (const node of this.live) if (!live.has(node)) this.apply(index, { kind: 'leave', node });
      for (const node of live) if (!this.live.has(node)) this.apply(index, { kind: 'join', node });
    } else {
      this.counts.full++;
      index = new ElectionIndex(plain);
      index.elect(services, live);
      this.index = index;
      this.key = key;
    }
    this.live = new Set(live);
    this.generation++;
    const generation = this.generation;
    const current = index;
    return {
      outcomes: current.outcomes(),
      // The index explains its current state; once it has moved on, the full election of these inputs does.
      explain: () => (generation === this.generation ? current.explain() : electAll(config, services, live).explain()),
    };
  }

  private apply(index: ElectionIndex, change: { kind: 'join' | 'leave'; node: string }): void {
    index.applyMembership(change);
    this.counts.membershipChanges++;
  }

  private forget(): void {
    this.index = undefined;
    this.key = undefined;
    this.live = new Set();
    this.generation++;
  }

  /**
   * Everything the index's units and context were built from except the live set: the Nodes (rebuilt by the
   * daemon every time, so by content), the configuration's objects and the services (immutable snapshots: by
   * identity), each service's IPs and pool, and what its endpoints mean to the election (endpointsKey).
   */
  private inputsKey(config: ElectionConfig, services: readonly ServiceElectionInput[]): string {
    const ids = this.ids;
    const parts = [
      JSON.stringify(config.nodes),
      JSON.stringify(config.options ?? {}),
      [config.pools, config.l2Advertisements, config.bgpAdvertisements, config.bgpPeers]
        .map((list) => list.map((o) => ids.of(o)).join(','))
        .join('|'),
    ];
    for (const s of services) {
      const ips = (s.ips ?? s.service.ingressIPs).map((ip) => `${ip.family}:${ip.value.toString(16)}`).join(',');
      parts.push(`${ids.of(s.service)};${ips};${poolKey(s.pool, ids)};${endpointsKey(s.service, s.endpoints)}`);
    }
    return parts.join('\n');
  }
}

function poolKey(pool: IPAddressPool | null | undefined, ids: ObjectIds): string {
  return pool === null ? 'none' : pool === undefined ? 'auto' : String(ids.of(pool));
}

/**
 * What the election reads of a service's endpoints (node-eligibility.ts): the serving nodes themselves only for
 * a health-checked or ETP Local service (and the order of an ETP Local unit); otherwise only whether any
 * endpoint exists. The daemon gives a plain service every live node as serving, so keying on the set itself
 * would rebuild the index on every membership change for nothing.
 */
function endpointsKey(service: Service, endpoints: ServiceEndpoints): string {
  const serving =
    endpoints.healthChecked === true || service.externalTrafficPolicy === 'Local'
      ? [...endpoints.servingNodes].sort().join(',')
      : String(endpoints.servingNodes.size > 0);
  const lacking = endpoints.notConfiguredOn ? [...endpoints.notConfiguredOn].sort().join(',') : '';
  return `${serving};${endpoints.servingWithoutNode === true};${endpoints.healthChecked === true};${lacking}`;
}

/** A number per object, stable while the object lives: identity as text, without holding the object. */
class ObjectIds {
  private readonly ids = new WeakMap<object, number>();
  private next = 0;

  of(o: object): number {
    let id = this.ids.get(o);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(o, id);
    }
    return id;
  }
}
