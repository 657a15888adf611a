/**
 * What an announcing BGP node sends for one service IP (speaker/bgp_controller.go SetBalancer): one route per
 * matching advertisement, the IP masked to the aggregation length, LOCAL_PREF, the communities sorted, and the
 * peers it goes to (the advertisement's peers, or every peer; only peers whose nodeSelectors select the node
 * have a session on it: syncPeers).
 */
import type { BGPAdvertisement, BGPPeer, CommunityValue, Node } from '../model';
import { anySelectorMatches } from '../model';
import { formatCIDR, makeCIDR, type IP } from '../ip';

export interface BGPAnnouncement {
  readonly node: string;
  /** The BGPAdvertisement's name. */
  readonly advertisement: string;
  /** The route, e.g. "10.0.0.0/24" (the IP masked to aggregationLength / aggregationLengthV6). */
  readonly prefix: string;
  /** BGPPeer names that receive the route from this node, sorted. */
  readonly peers: readonly string[];
  /** Distinct community values as text, in MetalLB's order (compareCommunities). */
  readonly communities: readonly string[];
  /** null when the advertisement sets none (MetalLB then sends 0 to iBGP peers). */
  readonly localPref: number | null;
}

/** The peers that run a session on a node: BGPPeer.nodeSelectors, empty = every node (config.go peerFromCR). */
export function peersOnNode(peers: readonly BGPPeer[], node: Node): string[] {
  return peers
    .filter((p) => anySelectorMatches(p.nodeSelectors, node.meta.labels))
    .map((p) => p.meta.name)
    .sort();
}

/** The aggregated prefix of an IP under an advertisement. */
function advertisedPrefix(ad: BGPAdvertisement, ip: IP): string {
  return formatCIDR(makeCIDR(ip, ip.family === 4 ? ad.aggregationLength : ad.aggregationLengthV6));
}

/**
 * internal/bgp/community LessThan: a legacy community compares as a large one whose global field is its 32-bit
 * value and whose local fields are 0, so legacy and large communities interleave by their first field.
 */
function communityKey(c: CommunityValue): [number, number, number] {
  return c.kind === 'standard' ? [c.value, 0, 0] : [c.global, c.local1, c.local2];
}

function compareCommunities(a: CommunityValue, b: CommunityValue): number {
  const ka = communityKey(a);
  const kb = communityKey(b);
  for (let i = 0; i < ka.length; i++) {
    const d = (ka[i] as number) - (kb[i] as number);
    if (d !== 0) return d;
  }
  return a.kind === b.kind ? 0 : a.kind === 'standard' ? -1 : 1;
}

/** Distinct community texts (MetalLB keeps them in a set), sorted. */
function communityTexts(values: readonly CommunityValue[]): string[] {
  const seen = new Set<string>();
  const out: CommunityValue[] = [];
  for (const v of [...values].sort(compareCommunities)) {
    const key = `${v.kind}:${v.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out.map((v) => v.text);
}

/** The routes one announcing node sends for one IP: one per advertisement that selects the node and service. */
export function bgpAnnouncementsFor(
  node: Node,
  nodeAds: readonly BGPAdvertisement[],
  ip: IP,
  nodePeers: readonly string[],
): BGPAnnouncement[] {
  return nodeAds.map((ad) => ({
    node: node.meta.name,
    advertisement: ad.meta.name,
    prefix: advertisedPrefix(ad, ip),
    peers: ad.peers.length === 0 ? [...nodePeers] : nodePeers.filter((p) => ad.peers.includes(p)),
    communities: communityTexts(ad.communityValues),
    localPref: ad.localPref ?? null,
  }));
}
