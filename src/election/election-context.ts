/**
 * The precomputed side of an election: nodes by name, and for each (pool, matching advertisements) profile the
 * static reason of every node, shared by every service with that profile. Also turns a ServiceElectionInput
 * into election units (one per service and protocol).
 */
import type { BGPAdvertisement, IPAddressPool, L2Advertisement, Node } from '../model';
import { serviceKey } from '../model';
import { formatIP, type IP } from '../ip';
import { advertisementCoversPool, advertisementSelectsNode, bgpAdsForService, l2AdsForService, poolForIPs } from './advertisement-match';
import { peersOnNode } from './bgp-announcement';
import {
  hasAnyServingEndpoint,
  type ElectionConfig,
  type ElectionProtocol,
  type ServiceElectionInput,
  type ServiceEndpoints,
} from './election-input';
import { bgpStaticReason, finishBGPReason, finishL2Reason, l2StaticReason } from './node-eligibility';
import { ReasonCode, type ReasonCodeValue } from './reasons';

/** One service under one protocol: what the election ranks. */
export interface ElectionUnit {
  /** "namespace/name". */
  readonly service: string;
  readonly protocol: ElectionProtocol;
  readonly ips: readonly IP[];
  /** Go's canonical text of each IP. */
  readonly ipTexts: readonly string[];
  /** The text hashed for the ranking: the first IP's (dual stack: one winner for both). */
  readonly hashText: string;
  readonly pool: IPAddressPool | undefined;
  readonly endpoints: ServiceEndpoints;
  readonly anyEndpoint: boolean;
  readonly localPolicy: boolean;
  /** Static reason per node id (ElectionContext.nodeNames); undefined when no pool holds the IPs. */
  readonly staticCodes: Uint8Array | undefined;
  /** BGP: the pool's advertisements matching the service (announcements are built from them). */
  readonly bgpAds: readonly BGPAdvertisement[];
}

export class ElectionContext {
  /** Node names in configuration order, without duplicates: the ids every per-node array is indexed by. */
  readonly nodeNames: readonly string[];
  readonly nodeIds: ReadonlyMap<string, number>;
  readonly nodes: readonly Node[];
  private readonly staticCache = new Map<string, Uint8Array>();
  private readonly peerCache = new Map<number, readonly string[]>();

  constructor(readonly config: ElectionConfig) {
    const ids = new Map<string, number>();
    const nodes: Node[] = [];
    for (const node of config.nodes) {
      if (ids.has(node.meta.name)) continue;
      ids.set(node.meta.name, nodes.length);
      nodes.push(node);
    }
    this.nodes = nodes;
    this.nodeIds = ids;
    this.nodeNames = nodes.map((n) => n.meta.name);
  }

  /**
   * The units of one service: layer2 when an L2Advertisement covers the pool, bgp when a BGPAdvertisement does;
   * a pool covered by neither (or IPs in no pool) still yields a layer2 unit, so "nobody announces" always has
   * an explanation. A service without IPs yields none.
   */
  unitsFor(input: ServiceElectionInput): ElectionUnit[] {
    const ips = input.ips ?? input.service.ingressIPs;
    const first = ips[0];
    if (!first) return [];
    const pool = input.pool === null ? undefined : (input.pool ?? poolForIPs(this.config.pools, ips));
    const ipTexts = ips.map(formatIP);
    const base = {
      service: serviceKey(input.service),
      ips,
      ipTexts,
      hashText: ipTexts[0] as string,
      pool,
      endpoints: input.endpoints,
      anyEndpoint: hasAnyServingEndpoint(input.endpoints),
      localPolicy: input.service.externalTrafficPolicy === 'Local',
    };
    if (!pool) return [unitOf(base, 'layer2', undefined, [])];
    const units: ElectionUnit[] = [];
    const poolL2 = this.config.l2Advertisements.filter((ad) => advertisementCoversPool(ad, pool));
    const poolBGP = this.config.bgpAdvertisements.filter((ad) => advertisementCoversPool(ad, pool));
    if (poolL2.length > 0 || poolBGP.length === 0) {
      const ads = l2AdsForService(poolL2, pool, input.service);
      units.push(unitOf(base, 'layer2', this.l2Codes(ads), []));
    }
    if (poolBGP.length > 0) {
      const ads = bgpAdsForService(poolBGP, pool, input.service);
      units.push(unitOf(base, 'bgp', this.bgpCodes(pool, poolBGP, ads), ads));
    }
    return units;
  }

  private l2Codes(ads: readonly L2Advertisement[]): Uint8Array {
    // The L2 static reasons depend only on which advertisements match, not on the pool.
    const key = `l2|${ads.map((a) => this.config.l2Advertisements.indexOf(a)).join(',')}`;
    return this.cached(key, (node) => l2StaticReason(node, ads, this.config.options));
  }

  private bgpCodes(pool: IPAddressPool, poolAds: readonly BGPAdvertisement[], ads: readonly BGPAdvertisement[]): Uint8Array {
    // Conflicts depend on the pool's families, so the pool is part of the key.
    const key = `bgp|${this.config.pools.indexOf(pool)}:${pool.meta.name}|${ads.map((a) => this.config.bgpAdvertisements.indexOf(a)).join(',')}`;
    return this.cached(key, (node) => bgpStaticReason(node, poolAds, ads, pool, this.config.options));
  }

  private cached(key: string, reason: (node: Node) => number): Uint8Array {
    let codes = this.staticCache.get(key);
    if (!codes) {
      codes = new Uint8Array(this.nodes.length);
      for (let id = 0; id < this.nodes.length; id++) codes[id] = reason(this.nodes[id] as Node);
      this.staticCache.set(key, codes);
    }
    return codes;
  }

  /**
   * The reason code of a node id in a unit at a moment (0 = eligible). IPs in no pool stop everything first,
   * as in speaker/main.go, before either protocol looks at endpoints or nodes.
   */
  nodeCode(unit: ElectionUnit, id: number, live: boolean): number {
    const codes = unit.staticCodes;
    if (!codes) return ReasonCode.ipNotAllowed;
    return finishCode(unit, codes[id] as ReasonCodeValue, this.nodeNames[id] as string, live);
  }

  /** The reason code of a live member without a Node object (static reason unknownNode). */
  unknownMemberCode(unit: ElectionUnit, name: string): number {
    if (!unit.staticCodes) return ReasonCode.ipNotAllowed;
    return finishCode(unit, ReasonCode.unknownNode, name, true);
  }

  /** Peer names with a session on a node id. */
  peersOf(id: number): readonly string[] {
    let peers = this.peerCache.get(id);
    if (!peers) {
      peers = peersOnNode(this.config.bgpPeers, this.nodes[id] as Node);
      this.peerCache.set(id, peers);
    }
    return peers;
  }

  /** The BGP advertisements of a unit that select a node id. */
  nodeAds(unit: ElectionUnit, id: number): BGPAdvertisement[] {
    const node = this.nodes[id] as Node;
    return unit.bgpAds.filter((ad) => advertisementSelectsNode(ad, node));
  }
}

type UnitBase = Omit<ElectionUnit, 'protocol' | 'staticCodes' | 'bgpAds'>;

/**
 * A unit written out field by field: `{ ...base, protocol }` would give each of 10,000 units a V8 hidden class of
 * its own (a spread followed by more fields does, in Node 20).
 */
function unitOf(
  base: UnitBase,
  protocol: ElectionProtocol,
  staticCodes: Uint8Array | undefined,
  bgpAds: readonly BGPAdvertisement[],
): ElectionUnit {
  return {
    service: base.service,
    ips: base.ips,
    ipTexts: base.ipTexts,
    hashText: base.hashText,
    pool: base.pool,
    endpoints: base.endpoints,
    anyEndpoint: base.anyEndpoint,
    localPolicy: base.localPolicy,
    protocol,
    staticCodes,
    bgpAds,
  };
}

function finishCode(unit: ElectionUnit, staticCode: ReasonCodeValue, name: string, live: boolean): number {
  return unit.protocol === 'layer2' ? finishL2Reason(staticCode, unit, name, live) : finishBGPReason(staticCode, unit, name, live);
}
