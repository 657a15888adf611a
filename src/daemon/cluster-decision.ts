/**
 * The daemon's functional core: from everything a node knows (the configuration, the live members and their
 * meta, the allocation, the health reports) to the election of every service and what this node must
 * announce. Pure: the speaker calls it after any change and applies the difference, so a missed or duplicated
 * event changes nothing (docs/architecture.md, "One direction of data").
 *
 * Every node runs this on the same inputs (meta and health travel in gossip) and so agrees on one owner per IP
 * without asking anyone, exactly as MetalLB's speakers do.
 */
import {
  advertisementCoversPool,
  advertisementSelectsNode,
  FULL_ELECTION,
  l2AdsForService,
  peersOnNode,
  poolForIPs,
  type BGPAnnouncement,
  type ElectionConfig,
  type ElectionOptions,
  type ElectionOutcome,
  type Elector,
  type Explanation,
  type MlbNodeStates,
  type ServiceElectionInput,
  type ServiceEndpoints,
} from '../election';
import { memberFacts, type MemberFacts } from '../gossip/member-facts';
import { decodeNodeMeta, type NodeMeta } from '../gossip/node-meta';
import type { IP } from '../ip';
import type { ServiceAddresses } from './allocation/effective-allocation';
import { nodeKnownByName, serviceKey, withKubeletLabels, type IPAddressPool, type Node, type Service, type Snapshot } from '../model';

/** A service the source knows no endpoints of: nothing serves it (MetalLB: notOwner everywhere). */
const NO_ENDPOINTS: ServiceEndpoints = { servingNodes: new Set() };

export interface LiveMember {
  readonly name: string;
  readonly meta?: Uint8Array;
}

/** What the election reads of a gossip member: its name and meta, without the optional field when it has none. */
export function liveMemberOf(member: { readonly name: string; readonly meta?: Uint8Array | undefined }): LiveMember {
  return member.meta ? { name: member.name, meta: member.meta } : { name: member.name };
}

export type { ServiceAddresses };

export interface ClusterInputs {
  readonly self: string;
  readonly snapshot: Snapshot;
  /** Alive and suspect members (memberlist Members(), MetalLB's usable speakers), this node included. */
  readonly live: readonly LiveMember[];
  /**
   * Every member gossip still remembers (dead and left ones too), with the meta it last published: explain lists
   * them as notLiveMember, described as they last described themselves.
   */
  readonly known?: readonly LiveMember[];
  /** "namespace/name" -> addresses; services without an entry have no IP yet. */
  readonly addresses: ReadonlyMap<string, ServiceAddresses>;
  /** Health-checked services only: "namespace/name" -> nodes whose latest report passes. */
  readonly passing: ReadonlyMap<string, ReadonlySet<string>>;
  /**
   * "namespace/name" -> live members whose configuration lacks the service (config-facts/config-agreement.ts):
   * they are not candidates for it. An mlb-only input like health: ignored while a MetalLB speaker is live.
   */
  readonly notConfiguredOn?: (service: string) => readonly string[];
  readonly options?: ElectionOptions;
  /**
   * "namespace/name" -> where the service can be served, when the configuration source knows it (Kubernetes: its
   * EndpointSlices). Given, it is the election's endpoint input for every service, as in MetalLB's speaker; absent
   * (plain hosts), every live node serves, or those whose health check passes.
   */
  readonly endpoints?: ReadonlyMap<string, ServiceEndpoints>;
}

/** One IP this node must answer for at layer 2, and where. */
export interface OwnedL2 {
  readonly service: string;
  readonly ip: IP;
  /** L2Advertisement.interfaces of the advertisements selecting this node; empty: choose automatically. */
  readonly interfaces: readonly string[];
}

export interface ClusterDecision {
  readonly facts: MemberFacts;
  /** Whether health, drain and warm-up took part, and why (logged when it changes). */
  readonly mlbInputs: { readonly allowed: boolean; readonly reason: string };
  readonly outcomes: readonly ElectionOutcome[];
  /** Per IP and protocol, every node's reason (computed on demand: explain and status read it). */
  explain(): Explanation[];
  readonly ownedL2: readonly OwnedL2[];
  /** The routes this node advertises (BGP: every eligible node announces), one per advertisement and IP. */
  readonly ownedBGP: readonly BGPAnnouncement[];
  /** The IPs this node advertises by BGP (bound locally like L2-owned ones, so their traffic is accepted). */
  readonly bgpIPs: readonly IP[];
  /** BGPPeer names whose nodeSelectors select this node: it keeps a session with each, routes or not. */
  readonly peersOnSelf: readonly string[];
}

/**
 * `elector`: how every service is elected. The speaker passes its IncrementalElection, which keeps the election
 * between calls and only re-elects what a membership change can move; the outcome is the same either way.
 */
export function decideCluster(inputs: ClusterInputs, elector: Elector = FULL_ELECTION): ClusterDecision {
  const facts = memberFacts(inputs.live);
  const allowed = facts.mlbOnlyInputsAllowed;
  const config: ElectionConfig = {
    nodes: electionNodes(inputs.snapshot, facts, inputs.known, inputs.endpoints !== undefined),
    pools: inputs.snapshot.pools,
    l2Advertisements: inputs.snapshot.l2Advertisements,
    bgpAdvertisements: inputs.snapshot.bgpAdvertisements,
    bgpPeers: inputs.snapshot.bgpPeers,
    ...(inputs.options ? { options: inputs.options } : {}),
    ...(allowed ? { mlb: nodeStates(facts.facts) } : {}),
  };
  const services = serviceInputs(inputs, facts, allowed);
  const election = elector.elect(config, services, new Set(facts.live));
  const selfNode = config.nodes.find((n) => n.meta.name === inputs.self);
  let explanations: Explanation[] | undefined;
  const explain = () => (explanations ??= election.explain());
  const bgp = ownedBGP(election.outcomes, services, inputs.self, explain);
  return {
    facts,
    mlbInputs: { allowed, reason: facts.reason },
    outcomes: election.outcomes,
    explain,
    ownedL2: selfNode ? ownedL2(election.outcomes, services, inputs, selfNode) : [],
    ownedBGP: bgp.announcements,
    bgpIPs: bgp.ips,
    peersOnSelf: selfNode ? peersOnNode(inputs.snapshot.bgpPeers, selfNode) : [],
  };
}

/**
 * The Node objects of the election. An mlb member is described by its own meta (labels and conditions it
 * publishes; for a member no longer live, the last it published) plus the kubelet's labels (hostname, os) a
 * cluster's Node would carry; anyone else by the configuration's v1 Node document (which has them too), or as a
 * node with only those labels. Documented nodes that are not live stay listed, so explain says "notLiveMember" for
 * them. A member that dies keeps its description, as a Kubernetes Node object outlives its speaker: only the live
 * set changes, which the incremental election applies without electing every service again. `fromApi`: the Node
 * documents are the cluster's own (Kubernetes mode) and win over meta.
 */
export function electionNodes(snapshot: Snapshot, facts: MemberFacts, known: readonly LiveMember[] = [], fromApi = false): Node[] {
  const documented = new Map(snapshot.nodes.map((n) => [n.meta.name, n]));
  const lastMeta = new Map(known.map((m) => [m.name, m.meta]));
  // Known members before live ones: gossip keeps its members in one order whoever is live, so a death leaves the
  // list (and with it the election's context) as it was.
  const names = [...new Set([...snapshot.nodes.map((n) => n.meta.name), ...known.map((m) => m.name), ...facts.live])];
  return names.map((name) => {
    const meta = facts.facts.get(name) ?? decodeNodeMeta(lastMeta.get(name));
    const doc = documented.get(name);
    // From the Kubernetes API every speaker reads every Node object itself, as MetalLB's speakers do: those win
    // over gossip meta (which then carries no labels: a real Node's labels rarely fit memberlist's 512 bytes).
    if (!meta || (fromApi && doc)) return doc ?? nodeKnownByName(name);
    return {
      kind: 'Node',
      meta: { name, namespace: '', labels: withKubeletLabels(name, meta.labels), annotations: doc?.meta.annotations ?? {} },
      conditions: meta.conditions.map((c) => ({ type: c.type, status: c.status })),
      addresses: doc?.addresses ?? [],
      subnets: doc?.subnets ?? [],
    };
  });
}

function nodeStates(facts: ReadonlyMap<string, NodeMeta>): MlbNodeStates {
  const draining = new Set<string>();
  const warmingUp = new Set<string>();
  for (const [name, meta] of facts) {
    if (meta.draining) draining.add(name);
    if (meta.warmingUp) warmingUp.add(name);
  }
  return { draining, warmingUp };
}

/**
 * Endpoints on a plain host: a health-checked service is served by the live nodes whose check passes; any
 * other by every live node (nothing else decides, docs/architecture.md "Health checks"). With a plain MetalLB
 * speaker present health is not an input, so every live node serves. Nodes whose configuration lacks the
 * service are left out the same way, and only while every live member is mlb: a MetalLB speaker would still
 * elect them.
 */
function serviceInputs(inputs: ClusterInputs, facts: MemberFacts, healthAllowed: boolean): ServiceElectionInput[] {
  const everyone = new Set(facts.live);
  const poolsByName = new Map(inputs.snapshot.pools.map((p) => [p.meta.name, p]));
  const out: ServiceElectionInput[] = [];
  for (const service of inputs.snapshot.services) {
    const key = serviceKey(service);
    const addresses = inputs.addresses.get(key);
    if (!addresses || addresses.ips.length === 0) continue;
    const passing = healthAllowed ? inputs.passing.get(key) : undefined;
    const pool = addresses.pool === undefined ? undefined : poolsByName.get(addresses.pool);
    const lacking = healthAllowed ? (inputs.notConfiguredOn?.(key) ?? []) : [];
    const notConfigured = lacking.length > 0 ? { notConfiguredOn: new Set(lacking) } : {};
    const known = inputs.endpoints?.get(key) ?? (inputs.endpoints ? NO_ENDPOINTS : undefined);
    out.push({
      service,
      ips: addresses.ips,
      endpoints: known
        ? known
        : passing
          ? { servingNodes: new Set([...passing].filter((n) => everyone.has(n))), healthChecked: true, ...notConfigured }
          : { servingNodes: everyone, ...notConfigured },
      ...(pool ? { pool } : {}),
    });
  }
  return out;
}

function ownedL2(
  outcomes: readonly ElectionOutcome[],
  services: readonly ServiceElectionInput[],
  inputs: ClusterInputs,
  self: Node,
): OwnedL2[] {
  const byKey = new Map(services.map((s) => [serviceKey(s.service), s]));
  const owned: OwnedL2[] = [];
  for (const outcome of outcomes) {
    if (outcome.protocol !== 'layer2' || outcome.winner !== inputs.self) continue;
    const input = byKey.get(outcome.service);
    if (!input) continue;
    const interfaces = advertisedInterfaces(inputs.snapshot, input, self);
    for (const ip of input.ips ?? input.service.ingressIPs) owned.push({ service: outcome.service, ip, interfaces });
  }
  return owned;
}

/**
 * MetalLB's layer2 announcer restricts the interfaces only when every advertisement selecting the node names
 * some: one advertisement without a list means "all eligible interfaces".
 */
function advertisedInterfaces(snapshot: Snapshot, input: ServiceElectionInput, self: Node): string[] {
  const ips = input.ips ?? input.service.ingressIPs;
  const pool: IPAddressPool | undefined = input.pool ?? poolForIPs(snapshot.pools, ips);
  if (!pool) return [];
  const ads = l2AdsForService(
    snapshot.l2Advertisements.filter((ad) => advertisementCoversPool(ad, pool)),
    pool,
    input.service as Service,
  ).filter((ad) => advertisementSelectsNode(ad, self));
  if (ads.length === 0 || ads.some((ad) => ad.interfaces.length === 0)) return [];
  return [...new Set(ads.flatMap((ad) => ad.interfaces))].sort();
}

/**
 * This node's BGP routes: the explanations of the BGP units it announces carry them (election/explain.ts), and
 * the explanations are only built when there is such a unit.
 */
function ownedBGP(
  outcomes: readonly ElectionOutcome[],
  services: readonly ServiceElectionInput[],
  self: string,
  explain: () => Explanation[],
): { announcements: BGPAnnouncement[]; ips: IP[] } {
  const mine = outcomes.filter((o) => o.protocol === 'bgp' && o.announcing.includes(self));
  if (mine.length === 0) return { announcements: [], ips: [] };
  const announcements = explain()
    .filter((e) => e.protocol === 'bgp')
    .flatMap((e) => (e.announcements ?? []).filter((a) => a.node === self));
  const keys = new Set(mine.map((o) => o.service));
  const ips = services.filter((s) => keys.has(serviceKey(s.service))).flatMap((s) => [...(s.ips ?? s.service.ingressIPs)]);
  return { announcements, ips };
}
