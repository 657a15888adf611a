/**
 * L2Advertisement and BGPAdvertisement (metallb.io/v1beta1; api/v1beta1/l2advertisement_types.go,
 * bgpadvertisement_types.go). References to pools and peers are only collected here; whether they exist is
 * a cross-check (MetalLB ignores unknown names silently, mlb warns: see cross-checks).
 */
import { IPV4_BITS, IPV6_BITS } from '../../ip';
import type { BGPAdvertisement, L2Advertisement, ObjectMeta } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import type { MapReader } from './field-reader';
import { readSelectorList, reportDuplicateStrings } from './selectors';

/** Defaults and limits from api/v1beta1/bgpadvertisement_types.go and internal/config/config.go. */
const BGP_ADVERTISEMENT_LIMITS = {
  /** Default /32: one route per service IP, no aggregation. */
  aggregationLengthDefault: IPV4_BITS,
  /** The CRD's +kubebuilder:validation:Minimum=1 (a /0 would announce the whole address space). */
  aggregationLengthMin: 1,
  aggregationLengthMax: IPV4_BITS,
  aggregationLengthV6Default: IPV6_BITS,
  /** The CRD sets no minimum for IPv6; config.go only rejects > 128. */
  aggregationLengthV6Min: 0,
  aggregationLengthV6Max: IPV6_BITS,
  /** LOCAL_PREF is a 32-bit attribute (RFC 4271 section 5.1.5). */
  localPrefMax: 4294967295,
} as const;

export function readL2Advertisement(top: MapReader, meta: ObjectMeta): L2Advertisement {
  const spec = top.map('spec');
  const pools = spec?.stringList('ipAddressPools') ?? [];
  if (spec) reportDuplicateStrings(spec, pools, 'ipAddressPools');
  return {
    kind: 'L2Advertisement',
    meta,
    ipAddressPools: pools.map((p) => p.value),
    ipAddressPoolSelectors: spec ? readSelectorList(spec, 'ipAddressPoolSelectors') : [],
    nodeSelectors: spec ? readSelectorList(spec, 'nodeSelectors') : [],
    interfaces: (spec?.stringList('interfaces') ?? []).map((i) => i.value),
    serviceSelectors: spec ? readSelectorList(spec, 'serviceSelectors') : [],
  };
}

/** communityValues is filled by the cross-checks, once every Community alias is known. */
export function readBGPAdvertisement(top: MapReader, meta: ObjectMeta): BGPAdvertisement {
  const spec = top.map('spec');
  const L = BGP_ADVERTISEMENT_LIMITS;
  const aggregationLength = spec
    ? readAggregationLength(spec, 'aggregationLength', L.aggregationLengthMin, L.aggregationLengthMax, 'IPv4')
    : undefined;
  const aggregationLengthV6 = spec
    ? readAggregationLength(spec, 'aggregationLengthV6', L.aggregationLengthV6Min, L.aggregationLengthV6Max, 'IPv6')
    : undefined;
  const localPref = spec?.integerInRange('localPref', 0, L.localPrefMax);
  const communities = spec?.stringList('communities') ?? [];
  const pools = spec?.stringList('ipAddressPools') ?? [];
  const peers = spec?.stringList('peers') ?? [];
  const serviceSelectors = spec ? readSelectorList(spec, 'serviceSelectors') : [];
  if (spec) {
    reportDuplicateStrings(spec, pools, 'ipAddressPools');
    reportDuplicateStrings(spec, communities, 'community');
    reportDuplicateStrings(spec, peers, 'peers');
    // config.go bgpAdvertisementFromCR: a service-selected advertisement cannot aggregate, since the
    // aggregated prefix would also cover services the selector leaves out.
    if (serviceSelectors.length > 0) {
      if (aggregationLength !== undefined && aggregationLength !== L.aggregationLengthDefault) {
        spec.error(
          DiagnosticCode.aggregationWithServiceSelectors,
          `serviceSelectors and aggregationLength are mutually exclusive, both cannot be set in ${meta.name}`,
          'aggregationLength',
        );
      }
      if (aggregationLengthV6 !== undefined && aggregationLengthV6 !== L.aggregationLengthV6Default) {
        spec.error(
          DiagnosticCode.aggregationWithServiceSelectors,
          `serviceSelectors and aggregationLengthV6 are mutually exclusive, both cannot be set in ${meta.name}`,
          'aggregationLengthV6',
        );
      }
    }
  }
  return {
    kind: 'BGPAdvertisement',
    meta,
    aggregationLength: aggregationLength ?? L.aggregationLengthDefault,
    aggregationLengthV6: aggregationLengthV6 ?? L.aggregationLengthV6Default,
    ...(localPref !== undefined && { localPref }),
    communities: communities.map((c) => c.value),
    communityValues: [],
    ipAddressPools: pools.map((p) => p.value),
    ipAddressPoolSelectors: spec ? readSelectorList(spec, 'ipAddressPoolSelectors') : [],
    nodeSelectors: spec ? readSelectorList(spec, 'nodeSelectors') : [],
    peers: peers.map((p) => p.value),
    serviceSelectors,
  };
}

function readAggregationLength(spec: MapReader, key: string, min: number, max: number, family: string): number | undefined {
  const value = spec.integer(key);
  if (value === undefined) return undefined;
  if (value < min || value > max) {
    // config.go: "invalid aggregation length %d for IPv4"; the CRD minimum adds the lower bound.
    spec.error(
      DiagnosticCode.invalidAggregationLength,
      `invalid aggregation length ${value} for ${family}: must be between ${min} and ${max}`,
      key,
    );
    return undefined;
  }
  return value;
}
