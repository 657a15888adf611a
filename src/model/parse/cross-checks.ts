/**
 * Errors that need more than one object: duplicate names, overlapping pools, aggregation lengths against pool
 * prefixes, BFD profile references and echo mode, duplicate peers, LOCAL_PREF conflicts. Rules from
 * internal/config/config.go (poolsFor, peersFor, validateBGPAdvPerPool) and validation.go (validateConfig)
 * unless marked as mlb's own.
 */
import { cidrsOverlap, type CIDR } from '../../ip';
import type { AnyObject, IPAddressPool } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import { didYouMean } from './did-you-mean';
import { coveredPools } from './coverage';
import { checkLocalPrefConflicts } from './local-pref-conflicts';
import { peerEndpoint } from './bgp-peer';
import { type Parsed, type ParsedObjects, fieldPosition, mayBeBroken, reportAt } from './parsed-objects';
import { parsePoolAddress } from './pool';
import { selectorText } from './selectors';

export function runCrossChecks(parsed: ParsedObjects): void {
  checkDuplicateNames(parsed);
  checkPoolOverlaps(parsed);
  checkAggregationLengths(parsed);
  checkPeers(parsed);
  checkBFDEchoMode(parsed);
  checkLocalPrefConflicts(parsed);
}

/**
 * Pools, peers and BFD profiles are referred to by bare name (annotations, advertisements, bfdProfile), so
 * their names must be unique across namespaces; other kinds per namespace, as the API server requires.
 */
function checkDuplicateNames(parsed: ParsedObjects): void {
  const byName = <T extends AnyObject>(list: Parsed<T>[], message: (o: T) => string, scoped: boolean): void => {
    const first = new Map<string, Parsed<T>>();
    for (const p of list) {
      const key = scoped ? `${p.object.meta.namespace}/${p.object.meta.name}` : p.object.meta.name;
      const earlier = first.get(key);
      if (earlier) {
        reportAt(
          p,
          'error',
          DiagnosticCode.duplicateName,
          `${message(p.object)}${definedAt(earlier, 'metadata.name', 'first defined at')}`,
          'metadata.name',
        );
      } else first.set(key, p);
    }
  };
  const qualified = (o: AnyObject): string => (o.meta.namespace === '' ? `"${o.meta.name}"` : `"${o.meta.namespace}/${o.meta.name}"`);
  byName(parsed.pools, (o) => `duplicate definition of pool "${o.meta.name}"`, false);
  byName(parsed.bgpPeers, (o) => `duplicate definition of BGPPeer "${o.meta.name}"`, false);
  byName(parsed.bfdProfiles, (o) => `found duplicate bfd profile name ${o.meta.name}`, false);
  byName(parsed.l2Advertisements, (o) => `duplicate definition of L2Advertisement ${qualified(o)}`, true);
  byName(parsed.bgpAdvertisements, (o) => `duplicate definition of BGPAdvertisement ${qualified(o)}`, true);
  byName(parsed.communities, (o) => `duplicate definition of Community ${qualified(o)}`, true);
  byName(parsed.services, (o) => `duplicate definition of Service ${qualified(o)}`, true);
  byName(parsed.nodes, (o) => `duplicate definition of Node ${qualified(o)}`, true);
}

/** One spec.addresses entry as written, with the pool and the position it came from. */
interface DefinedEntry {
  readonly text: string;
  readonly cidrs: readonly CIDR[];
  readonly pool: Parsed<IPAddressPool>;
  readonly index: number;
}

/**
 * Every entry against every one defined before it, in file order, as MetalLB does: one message per entry. MetalLB
 * names the CIDR blocks it cut ranges into ("192.168.10.200/29"), which appear nowhere in the file; mlb keeps its
 * sentence but names both entries as written, the earlier one's pool and where it is.
 */
function checkPoolOverlaps(parsed: ParsedObjects): void {
  const defined: DefinedEntry[] = [];
  for (const p of parsed.pools) {
    p.object.addresses.forEach((text, index) => {
      const entry = parsePoolAddress(text, p.object.meta.name);
      if (!entry.ok) return;
      const clash = defined.find((d) => d.cidrs.some((a) => entry.cidrs.some((b) => cidrsOverlap(a, b))));
      if (clash) {
        const where = definedAt(clash.pool, `spec.addresses[${clash.index}]`, 'defined at');
        reportAt(
          p,
          'error',
          DiagnosticCode.overlappingCIDR,
          `CIDR "${text}" in pool "${p.object.meta.name}" overlaps with already defined CIDR "${clash.text}" in pool "${clash.pool.object.meta.name}"${where}`,
          `spec.addresses[${index}]`,
        );
      }
      defined.push({ text, cidrs: entry.cidrs, pool: p, index });
    });
  }
}

/** " (first defined at file:line:column)": where an earlier definition is, for messages about a later one. */
function definedAt(parsed: Parsed<AnyObject>, path: string, words: string): string {
  const at = fieldPosition(parsed, path);
  // Objects read from the Kubernetes API have no lines (line 0): there the message names the objects already.
  return at && at.line > 0 ? ` (${words} ${at.file}:${at.line}:${at.column})` : '';
}

/** An aggregation length shorter than a pool entry's own prefix would announce addresses outside the pool. */
function checkAggregationLengths(parsed: ParsedObjects): void {
  const pools = parsed.pools.map((p) => p.object);
  for (const ad of parsed.bgpAdvertisements) {
    for (const pool of coveredPools(ad.object, pools)) {
      for (const text of pool.addresses) {
        const entry = parsePoolAddress(text, pool.meta.name);
        if (!entry.ok || entry.cidrs.length === 0) continue;
        const first = entry.cidrs[0] as CIDR;
        const v4 = first.ip.family === 4;
        const length = v4 ? ad.object.aggregationLength : ad.object.aggregationLengthV6;
        const lowest = Math.min(...entry.cidrs.map((c) => c.prefix));
        if (length < lowest) {
          reportAt(
            ad,
            'error',
            DiagnosticCode.invalidAggregationLength,
            `invalid aggregation length ${length}: prefix ${lowest} in this pool is more specific than the aggregation length for addresses ${text} (pool "${pool.meta.name}")`,
            v4 ? 'spec.aggregationLength' : 'spec.aggregationLengthV6',
          );
        }
      }
    }
  }
}

function checkPeers(parsed: ParsedObjects): void {
  const profiles = parsed.bfdProfiles.map((p) => p.object.meta.name);
  const seen: Parsed<(typeof parsed.bgpPeers)[number]['object']>[] = [];
  for (const p of parsed.bgpPeers) {
    const peer = p.object;
    // A profile whose own document has an error is missing for that reason, said there already.
    if (peer.bfdProfile !== undefined && !profiles.includes(peer.bfdProfile) && !mayBeBroken(parsed, ['BFDProfile'], peer.bfdProfile)) {
      reportAt(
        p,
        'error',
        DiagnosticCode.bfdProfileNotFound,
        `peer ${peer.meta.name} referencing non existing bfd profile ${peer.bfdProfile}${didYouMean(peer.bfdProfile, profiles)}`,
        'spec.bfdProfile',
      );
    }
    if (!peer.peerAddress && peer.interface === undefined) continue;
    // mlb's rule (MetalLB compares whole peers, FRR mode addresses): two sessions to one endpoint from the
    // same nodes would fight over one TCP connection.
    const nodes = peer.nodeSelectors.map(selectorText).sort().join(' | ');
    const twin = seen.find(
      (o) => peerEndpoint(o.object) === peerEndpoint(peer) && o.object.nodeSelectors.map(selectorText).sort().join(' | ') === nodes,
    );
    if (twin) {
      reportAt(
        p,
        'error',
        DiagnosticCode.duplicatePeer,
        `peer ${peer.meta.name} already exists: peer ${twin.object.meta.name} has the same address (${peerEndpoint(peer)}) and nodeSelectors`,
        peer.peerAddress ? 'spec.peerAddress' : 'spec.interface',
      );
    }
    seen.push(p);
  }
}

/**
 * mlb's BFD runs the asynchronous mode only (src/announce/bfd: it advertises Required Min Echo RX 0, RFC 5880
 * section 4.1), so a peer whose profile asks for echo mode would silently go without it. MetalLB runs echo
 * mode only with FRR: its native speaker refuses every BFD profile (validation.go DiscardFRROnly), and every mode
 * refuses echo towards an IPv6 pool (validateConfig), whose text is used where it applies.
 */
function checkBFDEchoMode(parsed: ParsedObjects): void {
  const echo = new Set(parsed.bfdProfiles.filter((p) => p.object.echoMode).map((p) => p.object.meta.name));
  for (const p of parsed.bgpPeers) {
    const profile = p.object.bfdProfile;
    if (profile === undefined || !echo.has(profile)) continue;
    const why = `mlb's BFD does not implement echo mode (MetalLB runs it only with FRR): set echoMode: false in BFDProfile ${profile}`;
    const metallb = ipv6EchoRefusal(p.object.meta.name, parsed);
    reportAt(
      p,
      'error',
      DiagnosticCode.bfdEchoModeUnsupported,
      metallb ? `${metallb}; ${why}` : `peer ${p.object.meta.name} uses bfd profile ${profile}, which enables echoMode: ${why}`,
      'spec.bfdProfile',
    );
  }
}

/** validation.go validateConfig: an IPv6 pool advertised (all peers, or by name) to the peer, in MetalLB's words. */
function ipv6EchoRefusal(peer: string, parsed: ParsedObjects): string | undefined {
  const pools = parsed.pools.map((p) => p.object);
  for (const pool of pools) {
    if (!pool.cidrs.some((c) => c.ip.family === 6)) continue;
    const ad = parsed.bgpAdvertisements.find(
      (a) => coveredPools(a.object, [pool]).length > 0 && (a.object.peers.length === 0 || a.object.peers.includes(peer)),
    );
    if (ad) {
      return `pool ${pool.meta.name} has bgpadvertisement ${ad.object.meta.name} which references peer ${peer} which has bfd echo enabled, which is not possible`;
    }
  }
  return undefined;
}
