/**
 * The lab's BGP side (`mlb lab up|demo --bgp`) as data: the router's AS and the nodes', the routed service
 * addresses, the BFD profile, and the FRR configuration of the router, as a typical MetalLB tutorial's router is
 * configured: a passive peer group for the nodes, RFC 8212 policies, a prefix list admitting only /32s, a BFD
 * profile on every neighbor. Pure.
 */
import type { FrrOptions } from './frr-config';
import type { LabPlan, LabRouterPlan } from './lab-plan';
import { LabError } from './lab-errors';

/** Private ASNs (RFC 6996), as in MetalLB's examples: the nodes share one, the router has its own (eBGP). */
export const LAB_NODE_ASN = 64512;
export const LAB_ROUTER_ASN = 64513;
/**
 * Routed service addresses: outside the lab's segment (172.31.213.0/24), so the client reaches them only through
 * the router, which learnt them from the nodes, as on a real network. Private (RFC 1918), inside the lab only.
 */
export const LAB_BGP_SUBNET_V4 = '172.31.214.0/24';
export const LAB_BGP_POOL_V4 = '172.31.214.10-172.31.214.19';
/** The pool's name; autoAssign off, so the L2 services never get a routed address by chance. */
export const LAB_BGP_POOL = 'lab-bgp';
/** The BGPPeer's name: what mlb status and the daemon's logs call the router. */
export const LAB_BGP_PEER = 'router';
/**
 * 300 ms x 3: a dead node leaves the router within about a second (detection time 900 ms), where BGP alone waits
 * for the hold time (90 s, MetalLB's default, which the lab keeps).
 */
export const LAB_BFD_PROFILE = { name: 'lab-fast', receiveMs: 300, transmitMs: 300, multiplier: 3 } as const;

/** The lab's router plan, or a LabError saying the lab was built without --bgp. */
export function routerOf(plan: LabPlan): LabRouterPlan {
  if (!plan.router) throw new LabError(`lab ${plan.name} has no router: build it with --bgp`, 'noRouter');
  return plan.router;
}

/** The router's FRR configuration: one passive neighbor per node, BFD on each. */
export function labFrrOptions(plan: LabPlan): Omit<FrrOptions, 'logFile'> {
  const router = routerOf(plan);
  return {
    asn: LAB_ROUTER_ASN,
    routerId: router.ipv4,
    hostname: router.netns,
    neighbors: plan.nodes.map((n) => ({ address: n.ipv4, asn: LAB_NODE_ASN, passive: true, bfdProfile: LAB_BFD_PROFILE.name })),
    prefixList32Only: true,
    bfd: {
      profile: LAB_BFD_PROFILE.name,
      receiveMs: LAB_BFD_PROFILE.receiveMs,
      transmitMs: LAB_BFD_PROFILE.transmitMs,
      multiplier: LAB_BFD_PROFILE.multiplier,
    },
  };
}

/** The detection time of the BFD profile: how long a silent peer lasts (RFC 5880 section 6.8.4). */
export function bfdDetectionMs(profile: { readonly receiveMs: number; readonly multiplier: number } = LAB_BFD_PROFILE): number {
  return profile.receiveMs * profile.multiplier;
}
