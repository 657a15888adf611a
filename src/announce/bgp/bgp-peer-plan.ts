/**
 * Which BGP sessions this node keeps: the BGPPeers the election put on it, each with its BFDProfile. Pure, so the
 * speaker's plan (src/daemon/speaker-plan.ts) can compute it without loading the announcer's sockets.
 */
import type { BFDProfile, BGPPeer } from '../../model';

export interface BgpPeerPlan {
  readonly peer: BGPPeer;
  /** The peer's BFDProfile, when it names one that exists. */
  readonly bfdProfile?: BFDProfile;
}

/** The BGPPeers with a session on this node (by name, from the election), each with its BFDProfile when it exists. */
export function bgpPeerPlans(peers: readonly BGPPeer[], profiles: readonly BFDProfile[], onThisNode: readonly string[]): BgpPeerPlan[] {
  const names = new Set(onThisNode);
  return peers
    .filter((p) => names.has(p.meta.name))
    .map((peer) => {
      const profile = peer.bfdProfile ? profiles.find((b) => b.meta.name === peer.bfdProfile) : undefined;
      return profile ? { peer, bfdProfile: profile } : { peer };
    });
}
