/**
 * The daemon's election across recomputations. A recomputation runs after every membership, meta, health or
 * configuration change; electing every service from scratch each time (electAll) costs services x nodes, so a
 * cluster of 10,000 services paid that for one member joining. This keeps an ElectionIndex between calls and,
 * when only the live set moved, applies the joins and leaves to it (election-index.ts: only the units a node
 * can win or held are touched). When services changed (a reload) but Nodes, pools and advertisements did not, it
 * builds a new index on the same context, making units only for the services whose inputs changed and hashing
 * only their new IPs. Anything else changing (a Node's labels, a pool, an advertisement) makes it elect afresh,
 * so its outcomes and explanations are always those of electAll on the same inputs
 * (test/election/incremental-election.test.ts checks random clusters under churn).
 *
 * mlb's preference tiers (draining, warming-up nodes: deferral.ts) re-rank across nodes, which the index cannot
 * express: while any node is in a tier, electAll decides. With both sets empty the tiers change nothing, so the
 * index elects exactly as electAll with them.
 */
import type { IPAddressPool, Service } from '../model';
import type { ElectionUnit } from './election-context';
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
  /** Election units made from service inputs (a reload makes those of the services it changed). */
  readonly unitsMade: number;
}

export class IncrementalElection implements Elector {
  private index: ElectionIndex | undefined;
  /** What the index's context was built from (configKey). */
  private configKey: string | undefined;
  /** Per service, what its units were built from besides the context (serviceInputKey), in election order. */
  private serviceKeys: readonly string[] = [];
  /** The units of each service key, made by the index's context: a reload re-makes only what it changed. */
  private units = new Map<string, ElectionUnit[]>();
  private live = new Set<string>();
  /** Bumped whenever the index moves: an explanation asked for later must not read a newer state. */
  private generation = 0;
  private readonly ids = new ObjectIds();
  private counts = { full: 0, incremental: 0, membershipChanges: 0, unitsMade: 0 };

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
    const configKey = this.configKeyOf(plain);
    const serviceKeys = services.map((s) => this.serviceInputKey(s));
    let index = this.index;
    if (index && configKey === this.configKey && sameList(serviceKeys, this.serviceKeys)) {
      this.counts.incremental++;
      for (const node of this.live) if (!live.has(node)) this.apply(index, { kind: 'leave', node });
      for (const node of live) if (!this.live.has(node)) this.apply(index, { kind: 'join', node });
    } else {
      this.counts.full++;
      index = this.rebuild(plain, configKey, services, serviceKeys, live);
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

  /**
   * A new index on these inputs. With the same context (a reload that kept Nodes, pools and advertisements), the
   * units of services whose inputs did not change and the hash orders of their IPs come from the previous one.
   */
  private rebuild(
    config: ElectionConfig,
    configKey: string,
    services: readonly ServiceElectionInput[],
    serviceKeys: readonly string[],
    live: ReadonlySet<string>,
  ): ElectionIndex {
    const previous = configKey === this.configKey ? this.index : undefined;
    const index = previous ? new ElectionIndex(previous.context, previous) : new ElectionIndex(config);
    const known = previous ? this.units : new Map<string, ElectionUnit[]>();
    const units = new Map<string, ElectionUnit[]>();
    const all: ElectionUnit[] = [];
    services.forEach((service, i) => {
      const key = serviceKeys[i] as string;
      let made = known.get(key);
      if (!made) {
        made = index.context.unitsFor(service);
        this.counts.unitsMade += made.length;
      }
      units.set(key, made);
      all.push(...made);
    });
    index.electUnits(all, live);
    this.index = index;
    this.configKey = configKey;
    this.serviceKeys = serviceKeys;
    this.units = units;
    return index;
  }

  private apply(index: ElectionIndex, change: { kind: 'join' | 'leave'; node: string }): void {
    index.applyMembership(change);
    this.counts.membershipChanges++;
  }

  private forget(): void {
    this.index = undefined;
    this.configKey = undefined;
    this.serviceKeys = [];
    this.units = new Map();
    this.live = new Set();
    this.generation++;
  }

  /**
   * What the context was built from: the Nodes (rebuilt by the daemon every time, so by content) and the
   * configuration's objects (immutable snapshot objects, kept across reloads by snapshot-interning: by identity).
   */
  private configKeyOf(config: ElectionConfig): string {
    const ids = this.ids;
    const lists = [config.pools, config.l2Advertisements, config.bgpAdvertisements, config.bgpPeers];
    // A Node's addresses and subnets hold bigints (IP values), which JSON.stringify refuses as they are.
    const nodes = JSON.stringify(config.nodes, (_key, value: unknown) => (typeof value === 'bigint' ? `0x${value.toString(16)}` : value));
    return [nodes, JSON.stringify(config.options ?? {}), ...lists.map((list) => list.map((o) => ids.of(o)).join(','))].join('|');
  }

  /** What a service's units were built from besides the context: the Service, its IPs and pool, its endpoints. */
  private serviceInputKey(s: ServiceElectionInput): string {
    const ips = (s.ips ?? s.service.ingressIPs).map((ip) => `${ip.family}:${ip.value.toString(16)}`).join(',');
    // join, not a template: a template's result is a tree of string pieces (about 350 bytes here), join's one
    // flat string (about 80), and the index keeps one key per service.
    return [this.ids.of(s.service), ips, poolKey(s.pool, this.ids), endpointsKey(s.service, s.endpoints)].join(';');
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
