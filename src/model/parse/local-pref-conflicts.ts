/**
 * MetalLB v0.16.1 internal/config/config.go validateBGPAdvPerPool, second half: a BGPAdvertisement is refused
 * when an earlier one of a common pool would send a common peer a different LOCAL_PREF for the same prefixes
 * from a common node. Accepted, the pair makes every common node say conflictingAdvertisements at election time,
 * so those nodes announce none of the pool's services (with no nodeSelectors: nobody does).
 */
import { type IP, parseIP } from '../../ip';
import { anySelectorMatches, isEmptySelector } from '../label-selector';
import { localPrefsCollide, sharedPeers, DEFAULT_LOCAL_PREF } from '../bgp-local-pref';
import type { BGPAdvertisement, IPAddressPool, Node, Service } from '../types';
import { ServiceAnnotation, serviceAnnotation } from '../well-known';
import { coveredPools } from './coverage';
import { DiagnosticCode } from './diagnostic-codes';
import { type Parsed, type ParsedObjects, reportAt } from './parsed-objects';

/** Messages list at most this many node or peer names; the rest are counted. */
const MAX_LISTED = 3;

function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

/** No nodeSelectors, or an empty one (labels.Everything()): every node, documented in the file or not. */
function selectsEveryNode(ad: BGPAdvertisement): boolean {
  return ad.nodeSelectors.length === 0 || ad.nodeSelectors.some(isEmptySelector);
}

/**
 * The nodes both advertisements select. MetalLB resolves nodeSelectors against the cluster's Node objects; a
 * plain host needs no Node document (its labels may come from --node-labels), so two advertisements that both
 * select every node always share the nodes that run, and with no Node documented at all an advertisement's
 * nodeSelectors are taken to select some running node. undefined: no common node.
 */
function commonNodes(a: BGPAdvertisement, b: BGPAdvertisement, nodes: readonly Node[]): string | undefined {
  if (selectsEveryNode(a) && selectsEveryNode(b)) return 'every node';
  if (nodes.length === 0) {
    if (selectsEveryNode(a)) return `the nodes "${b.meta.name}" selects`;
    if (selectsEveryNode(b)) return `the nodes "${a.meta.name}" selects`;
    return undefined;
  }
  const both = nodes
    .filter((n) => anySelectorMatches(a.nodeSelectors, n.meta.labels) && anySelectorMatches(b.nodeSelectors, n.meta.labels))
    .map((n) => n.meta.name);
  if (both.length === 0) return undefined;
  return `node${both.length > 1 ? 's' : ''} ${listed(both)}`;
}

function peersText(a: BGPAdvertisement, b: BGPAdvertisement): string {
  const peers = sharedPeers(a, b);
  if (peers === 'every') return 'every peer';
  return `peer${peers.length > 1 ? 's' : ''} ${listed(peers)}`;
}

/**
 * Every pair in file order, the later one reported (MetalLB attaches advertisements to pools in order and
 * refuses the one that collides with one already attached); a pair sharing several pools is reported once.
 * Advertisements with serviceSelectors are left out, as in MetalLB: which services both select is known only
 * at election time, where the speaker checks them (speaker/bgp_controller.go checkBGPAdvConflicts).
 */
export function checkLocalPrefConflicts(parsed: ParsedObjects): void {
  const pools = parsed.pools.map((p) => p.object);
  const nodes = parsed.nodes.map((n) => n.object);
  const candidates = parsed.bgpAdvertisements.filter((ad) => ad.object.serviceSelectors.length === 0);
  candidates.forEach((later, index) => {
    for (const earlier of candidates.slice(0, index)) {
      const pool = sharedCollidingPool(later.object, earlier.object, pools);
      if (!pool) continue;
      const where = commonNodes(later.object, earlier.object, nodes);
      if (where === undefined) continue;
      report(later, earlier.object, pool, where);
    }
  });
}

function sharedCollidingPool(a: BGPAdvertisement, b: BGPAdvertisement, pools: readonly IPAddressPool[]): IPAddressPool | undefined {
  const ofB = new Set(coveredPools(b, pools));
  return coveredPools(a, pools).find((pool) => ofB.has(pool) && localPrefsCollide(a, b, pool.cidrs));
}

function report(later: Parsed<BGPAdvertisement>, earlier: BGPAdvertisement, pool: IPAddressPool, where: string): void {
  const mine = later.object.localPref ?? DEFAULT_LOCAL_PREF;
  const theirs = earlier.localPref ?? DEFAULT_LOCAL_PREF;
  // MetalLB's text, its misspelling of "preference" included: users and scripts search for it.
  reportAt(
    later,
    'error',
    DiagnosticCode.conflictingLocalPref,
    `invalid local preference ${mine}: local preferernce ${theirs} was already set for the same type of BGP update. ` +
      'Check existing BGP advertisements with common pools and aggregation lengths ' +
      `(BGPAdvertisement "${later.object.meta.name}" and "${earlier.meta.name}" both advertise pool "${pool.meta.name}" ` +
      `to ${peersText(later.object, earlier)} from ${where}, which would then announce none of its services)`,
    'spec.localPref',
  );
}

/**
 * mlb's own warning for the pairs MetalLB loads (serviceSelectors): its speaker then logs "advertisements 'a' and
 * 'b' have conflicting LOCAL_PREF (100 vs 200)" and announces the service from none of the common nodes
 * (speaker/bgp_controller.go checkBGPAdvConflicts). A file lists its Services, so the ones already in such a
 * pool's addresses (status, loadBalancerIP, loadBalancerIPs) or pinned to it (address-pool) are named now.
 */
export function warnServiceLocalPrefConflicts(parsed: ParsedObjects): void {
  const pools = parsed.pools.map((p) => p.object);
  const nodes = parsed.nodes.map((n) => n.object);
  const services = parsed.services.map((s) => s.object);
  const ads = parsed.bgpAdvertisements;
  ads.forEach((later, index) => {
    for (const earlier of ads.slice(0, index)) {
      const a = later.object;
      const b = earlier.object;
      if (a.serviceSelectors.length === 0 && b.serviceSelectors.length === 0) continue;
      const where = commonNodes(a, b, nodes);
      if (where === undefined) continue;
      const ofB = new Set(coveredPools(b, pools));
      for (const pool of coveredPools(a, pools)) {
        if (!ofB.has(pool) || !localPrefsCollide(a, b, pool.cidrs)) continue;
        const hit = services.filter(
          (svc) =>
            servicePools(svc, pools).includes(pool) &&
            anySelectorMatches(a.serviceSelectors, svc.meta.labels) &&
            anySelectorMatches(b.serviceSelectors, svc.meta.labels),
        );
        if (hit.length === 0) continue;
        reportAt(
          later,
          'warning',
          DiagnosticCode.serviceLocalPrefConflict,
          `advertisements '${a.meta.name}' and '${b.meta.name}' have conflicting LOCAL_PREF (${a.localPref ?? DEFAULT_LOCAL_PREF} vs ${b.localPref ?? DEFAULT_LOCAL_PREF}) ` +
            `for ${listed(hit.map((svc) => `${svc.meta.namespace}/${svc.meta.name}`))} in pool "${pool.meta.name}": ` +
            `the speakers on ${where} will not announce ${hit.length > 1 ? 'them' : 'it'}`,
          'spec.localPref',
        );
      }
    }
  });
}

/** The pools a Service's known addresses lie in, or the one its address-pool annotation names. */
function servicePools(service: Service, pools: readonly IPAddressPool[]): IPAddressPool[] {
  const ips: IP[] = [...service.ingressIPs];
  const texts = [service.loadBalancerIP, ...(serviceAnnotation(service, ServiceAnnotation.loadBalancerIPs) ?? '').split(',')];
  for (const text of texts) {
    const ip = text ? parseIP(text.trim()) : undefined;
    if (ip) ips.push(ip);
  }
  const named = serviceAnnotation(service, ServiceAnnotation.addressPool);
  return pools.filter((p) => p.meta.name === named || ips.some((ip) => p.addressSet.has(ip)));
}
