/**
 * Warnings: configurations MetalLB accepts without a word and that announce nothing (a
 * typo in a pool name or a node selector silently announces nothing). The configuration still runs; `mlb validate` and the daemon
 * show these so the silence has a reason.
 */
import { type CIDR, cidrContains, formatCIDR } from '../../ip';
import { anySelectorMatches, selectorMatches } from '../label-selector';
import type { BGPAdvertisement, IPAddressPool, L2Advertisement, LabelSelector, Node } from '../types';
import { EXCLUDE_LB_LABEL } from '../well-known';
import { coveredPools } from './coverage';
import { DiagnosticCode } from './diagnostic-codes';
import { didYouMean } from './did-you-mean';
import { warnServiceLocalPrefConflicts } from './local-pref-conflicts';
import { type Parsed, type ParsedObjects, mayBeBroken, reportAt } from './parsed-objects';
import { parsePoolAddress } from './pool';

/** Messages list at most this many node names or subnets; the rest are counted. */
const MAX_LISTED = 5;

export function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

type AnyAdvertisement = Parsed<L2Advertisement> | Parsed<BGPAdvertisement>;

export function collectWarnings(parsed: ParsedObjects, knownSubnets: readonly CIDR[]): void {
  const pools = parsed.pools.map((p) => p.object);
  const nodes = parsed.nodes.map((n) => n.object);
  const ads: AnyAdvertisement[] = [...parsed.l2Advertisements, ...parsed.bgpAdvertisements];
  for (const ad of ads) {
    warnMissingPools(ad, pools, parsed);
    warnExcludedNodesOnly(ad, nodes);
    warnSelectorsMatchingNoNode(ad, nodes);
  }
  for (const ad of parsed.bgpAdvertisements) warnMissingPeers(ad, parsed);
  warnOutsideSubnets(parsed, uniqueSubnets([...knownSubnets, ...nodes.flatMap((n) => n.subnets)]));
  warnUnadvertisedPools(parsed, ads);
  warnServiceLocalPrefConflicts(parsed);
}

/**
 * A reference to an object whose own document has an error is not reported: that error already says why the
 * object is missing, and the file is refused until it is fixed (when the reference is checked again).
 */
function warnMissingPools(ad: AnyAdvertisement, pools: readonly IPAddressPool[], parsed: ParsedObjects): void {
  const names = pools.map((p) => p.meta.name);
  const { kind, meta } = ad.object;
  ad.object.ipAddressPools.forEach((name, index) => {
    if (names.includes(name) || mayBeBroken(parsed, ['IPAddressPool'], name)) return;
    reportAt(
      ad,
      'warning',
      DiagnosticCode.poolNotFound,
      `${kind} "${meta.name}" names pool "${name}", which does not exist; MetalLB ignores the name silently${didYouMean(name, names)}`,
      `spec.ipAddressPools[${index}]`,
    );
  });
  ad.object.ipAddressPoolSelectors.forEach((selector, index) => {
    if (pools.some((p) => selectorMatches(selector, p.meta.labels)) || mayBeBroken(parsed, ['IPAddressPool'])) return;
    reportAt(
      ad,
      'warning',
      DiagnosticCode.poolSelectorMatchesNothing,
      `${kind} "${meta.name}": ipAddressPoolSelectors[${index}] selects no pool`,
      `spec.ipAddressPoolSelectors[${index}]`,
    );
  });
}

function warnMissingPeers(ad: Parsed<BGPAdvertisement>, parsed: ParsedObjects): void {
  const names = parsed.bgpPeers.map((p) => p.object.meta.name);
  ad.object.peers.forEach((name, index) => {
    if (names.includes(name) || mayBeBroken(parsed, ['BGPPeer'], name)) return;
    reportAt(
      ad,
      'warning',
      DiagnosticCode.peerNotFound,
      `BGPAdvertisement "${ad.object.meta.name}" names peer "${name}", which does not exist; nothing is announced to it${didYouMean(name, names)}`,
      `spec.peers[${index}]`,
    );
  });
}

/**
 * A trap seen on a MetalLB v0.16 cluster: speakers drop nodes carrying the exclude label (key presence, any
 * value) after the nodeSelectors matched them (speaker/layer2_controller.go, bgp_controller.go), so an
 * advertisement selecting only such nodes announces from nowhere, leaving one debug log line behind.
 */
function warnExcludedNodesOnly(ad: AnyAdvertisement, nodes: readonly Node[]): void {
  const selected = nodes.filter((n) => anySelectorMatches(ad.object.nodeSelectors, n.meta.labels));
  if (selected.length === 0) return;
  const excluded = selected.filter((n) => Object.prototype.hasOwnProperty.call(n.meta.labels, EXCLUDE_LB_LABEL));
  if (excluded.length !== selected.length) return;
  const which = ad.object.nodeSelectors.length === 0 ? 'every node (no nodeSelectors)' : 'only nodes';
  reportAt(
    ad,
    'warning',
    DiagnosticCode.excludedNodesOnly,
    `${ad.object.kind} "${ad.object.meta.name}" selects ${which} labelled ${EXCLUDE_LB_LABEL} (${listed(selected.map((n) => n.meta.name))}); labelled nodes never announce, so nobody will (MetalLB's speaker flag --ignore-exclude-lb changes this)`,
    ad.object.nodeSelectors.length === 0 ? 'metadata.name' : 'spec.nodeSelectors',
  );
}

/**
 * A nodeSelectors entry that matches none of the file's Nodes (their labels include the kubelet's, so
 * `kubernetes.io/hostname: node-1` matches node-1): MetalLB says nothing and the advertisement never announces
 * from the nodes meant. Only a file that lists Nodes is judged; labels a daemon adds with --node-labels are
 * not in the file, hence the word "unless".
 */
function warnSelectorsMatchingNoNode(ad: AnyAdvertisement, nodes: readonly Node[]): void {
  if (nodes.length === 0) return;
  ad.object.nodeSelectors.forEach((selector, index) => {
    if (nodes.some((n) => selectorMatches(selector, n.meta.labels))) return;
    reportAt(
      ad,
      'warning',
      DiagnosticCode.nodeSelectorMatchesNoNode,
      `${ad.object.kind} "${ad.object.meta.name}": nodeSelectors[${index}] matches none of the file's Nodes (${listed(nodes.map((n) => n.meta.name))}), so it selects no host unless --node-labels labels one${labelHint(selector, nodes)}`,
      `spec.nodeSelectors[${index}]`,
    );
  });
}

/** "did you mean" for the first matchLabels key no node has, or the first value no node has for its key. */
function labelHint(selector: LabelSelector, nodes: readonly Node[]): string {
  const keys = [...new Set(nodes.flatMap((n) => Object.keys(n.meta.labels)))];
  for (const [key, value] of Object.entries(selector.matchLabels)) {
    if (!keys.includes(key)) return didYouMean(key, keys);
    const values = [...new Set(nodes.map((n) => n.meta.labels[key]).filter((v): v is string => v !== undefined))];
    if (!values.includes(value)) return didYouMean(value, values);
  }
  return '';
}

/** mlb's own: a host answers ARP/NDP only for addresses of a subnet it is attached to (metallb#737). */
function warnOutsideSubnets(parsed: ParsedObjects, subnets: readonly CIDR[]): void {
  if (subnets.length === 0) return;
  const pools = parsed.pools.map((p) => p.object);
  const l2Covered = new Set<IPAddressPool>();
  for (const ad of parsed.l2Advertisements) for (const pool of coveredPools(ad.object, pools)) l2Covered.add(pool);
  for (const p of parsed.pools) {
    if (!l2Covered.has(p.object)) continue;
    p.object.addresses.forEach((text, index) => {
      const entry = parsePoolAddress(text, p.object.meta.name);
      if (!entry.ok || entry.cidrs.length === 0) return;
      const family = (entry.cidrs[0] as CIDR).ip.family;
      const sameFamily = subnets.filter((s) => s.ip.family === family);
      if (sameFamily.length === 0) return;
      const inside = entry.cidrs.every((c) => sameFamily.some((s) => s.prefix <= c.prefix && cidrContains(s, c.ip)));
      if (inside) return;
      reportAt(
        p,
        'warning',
        DiagnosticCode.addressOutsideSubnets,
        `address "${text}" of pool "${p.object.meta.name}" is announced in L2 mode but lies outside every known node subnet (${listed(sameFamily.map(formatCIDR))}); hosts on those segments will not ARP for it`,
        `spec.addresses[${index}]`,
      );
    });
  }
}

/** Every node of a segment annotates the same subnet, and the host's own are among them: each is named once. */
function uniqueSubnets(subnets: readonly CIDR[]): CIDR[] {
  const seen = new Map<string, CIDR>();
  for (const s of subnets) if (!seen.has(formatCIDR(s))) seen.set(formatCIDR(s), s);
  return [...seen.values()];
}

function warnUnadvertisedPools(parsed: ParsedObjects, ads: readonly AnyAdvertisement[]): void {
  if (mayBeBroken(parsed, ['L2Advertisement', 'BGPAdvertisement'])) return; // the missing cover may be that one
  const pools = parsed.pools.map((p) => p.object);
  const covered = new Set<IPAddressPool>();
  for (const ad of ads) for (const pool of coveredPools(ad.object, pools)) covered.add(pool);
  for (const p of parsed.pools) {
    if (covered.has(p.object)) continue;
    reportAt(
      p,
      'warning',
      DiagnosticCode.poolNotAdvertised,
      `pool "${p.object.meta.name}" is not covered by any L2Advertisement or BGPAdvertisement: services get its addresses but nobody announces them`,
      'metadata.name',
    );
  }
}
