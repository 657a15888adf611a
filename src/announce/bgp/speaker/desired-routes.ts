/**
 * From this node's BGP announcements (the election's output) to the routes each peer should hold. Pure.
 *
 * MetalLB (speaker/bgp_controller.go publishAds, adsForPeer; internal/bgp/native Set): every advertisement that
 * selects the service and node yields one route per IP (the IP masked to aggregationLength / aggregationLengthV6);
 * a route goes to the advertisement's peers (all peers when it names none); the session collapses the routes of
 * one prefix into one path, uniting their communities (mergeIntents). The election has already applied the
 * advertisement's peers filter and the peers' nodeSelectors (BGPAnnouncement.peers); here a route also needs its
 * peer among `peers`, the peers with a session on this node.
 */
import { formatCIDR, parseCIDR } from '../../../ip';
import type { BGPPeer } from '../../../model';
import type { BGPAnnouncement } from '../../../election/bgp-announcement';
import { comparePrefixes, mergeIntents, splitCommunities, type PeerRoutes, type RouteIntent } from './route-intent';
import { SpeakerInputError } from './speaker-input-error';

function intentOf(announcement: BGPAnnouncement): RouteIntent {
  const prefix = parseCIDR(announcement.prefix);
  if (!prefix) throw new SpeakerInputError('badPrefixText', `announcement prefix "${announcement.prefix}" is not a CIDR`);
  return { prefix, ...splitCommunities(announcement.communities), localPref: announcement.localPref };
}

/**
 * Per peer name (every peer in `peers`, so a peer left with no routes gets an empty map and its withdrawals), the
 * routes by prefix text, in prefix order.
 */
export function desiredRoutesByPeer(
  announcements: readonly BGPAnnouncement[],
  peers: readonly BGPPeer[],
): Map<string, Map<string, RouteIntent>> {
  const byPeer = new Map<string, Map<string, RouteIntent>>();
  for (const peer of peers) byPeer.set(peer.meta.name, new Map());
  for (const announcement of announcements) {
    const intent = intentOf(announcement);
    const key = formatCIDR(intent.prefix);
    for (const peerName of announcement.peers) {
      const routes = byPeer.get(peerName);
      if (!routes) continue;
      const existing = routes.get(key);
      routes.set(key, existing ? mergeIntents(existing, intent) : intent);
    }
  }
  for (const [name, routes] of byPeer) byPeer.set(name, sortedRoutes(routes));
  return byPeer;
}

function sortedRoutes(routes: PeerRoutes): Map<string, RouteIntent> {
  return new Map([...routes].sort(([, a], [, b]) => comparePrefixes(a.prefix, b.prefix)));
}
