/**
 * IPAddressPool (metallb.io/v1beta1, api/v1beta1/ipaddresspool_types.go). Addresses are read as MetalLB's
 * ParseCIDR does (internal/config/config.go): an entry containing "-" is a range split at the first dash with
 * spaces trimmed, anything else is a CIDR; errors keep MetalLB's wording, which the webhook shows users.
 */
import { AddressSet, type CIDR, formatIP, parseCIDR, parseIP, rangeToCIDRs } from '../../ip';
import type { IPAddressPool, ObjectMeta, ServiceAllocation } from '../types';
import { DiagnosticCode, type DiagnosticCodeName } from './diagnostic-codes';
import type { ListItem, MapReader } from './field-reader';
import { readSelectorList } from './selectors';

/** Defaults from api/v1beta1/ipaddresspool_types.go. */
const POOL_DEFAULTS = {
  /** Hand out addresses to services that did not ask for one. */
  autoAssign: true,
  /** Do not skip .0/.255 unless asked: most networks route them fine. */
  avoidBuggyIPs: false,
  /** 0 sorts after every positive priority (MetalLB's pool ordering). */
  priority: 0,
} as const;

export type AddressEntryResult =
  | { readonly ok: true; readonly cidrs: readonly CIDR[] }
  | { readonly ok: false; readonly code: DiagnosticCodeName; readonly message: string };

/** One spec.addresses entry, with MetalLB's error text for the pool it belongs to. */
export function parsePoolAddress(text: string, pool: string): AddressEntryResult {
  const fail = (code: DiagnosticCodeName, detail: string): AddressEntryResult => ({
    ok: false,
    code,
    message: `invalid CIDR "${text}" in pool "${pool}": ${detail}`,
  });
  const dash = text.indexOf('-');
  if (dash === -1) {
    const cidr = parseCIDR(text);
    return cidr ? { ok: true, cidrs: [cidr] } : fail(DiagnosticCode.invalidCIDR, `invalid CIDR "${text}"`);
  }
  const startText = text.slice(0, dash);
  const endText = text.slice(dash + 1);
  const range = `invalid IP range "${text}"`;
  const start = parseIP(startText.trim());
  if (!start) return fail(DiagnosticCode.invalidCIDR, `${range}: invalid start IP "${startText}"`);
  const end = parseIP(endText.trim());
  if (!end) return fail(DiagnosticCode.invalidCIDR, `${range}: invalid end IP "${endText}"`);
  if (start.family !== end.family) {
    // MetalLB compares the 16-byte forms and then summarizes nothing: the pool silently loses the entry.
    return fail(
      DiagnosticCode.mixedFamilyRange,
      `${range}: start IP "${formatIP(start)}" and end IP "${formatIP(end)}" are not of the same IP family`,
    );
  }
  if (start.value > end.value) {
    return fail(DiagnosticCode.reversedRange, `${range}: start IP "${formatIP(start)}" is after the end IP "${formatIP(end)}"`);
  }
  return { ok: true, cidrs: rangeToCIDRs(start, end) };
}

export function readIPAddressPool(top: MapReader, meta: ObjectMeta): IPAddressPool {
  const spec = top.map('spec');
  const addresses = spec?.stringList('addresses') ?? [];
  if (addresses.length === 0) {
    // MetalLB's addressPoolFromCR wording; pointed at the (empty) list, or spec, or the object.
    const where = spec ?? top;
    where.error(
      DiagnosticCode.emptyPool,
      `parsing address pool ${meta.name}: pool has no prefixes defined`,
      spec?.has('addresses') ? 'addresses' : undefined,
    );
  }
  const cidrs: CIDR[] = [];
  for (const item of addresses) {
    const result = parsePoolAddress(item.value, meta.name);
    if (result.ok) cidrs.push(...result.cidrs);
    else top.scope.error(result.code, result.message, item.position);
  }
  const autoAssign = spec?.boolean('autoAssign') ?? POOL_DEFAULTS.autoAssign;
  const avoidBuggyIPs = spec?.boolean('avoidBuggyIPs') ?? POOL_DEFAULTS.avoidBuggyIPs;
  const allocation = spec?.map('serviceAllocation');
  const serviceAllocation = allocation ? readServiceAllocation(allocation) : undefined;
  return {
    kind: 'IPAddressPool',
    meta,
    addresses: addresses.map((a) => a.value),
    cidrs,
    addressSet: AddressSet.fromCIDRs(cidrs),
    autoAssign,
    avoidBuggyIPs,
    ...(serviceAllocation && { serviceAllocation }),
  };
}

/** Priority is an int in the CRD (int32 in Go's JSON decoding). */
const PRIORITY_MIN = -(2 ** 31);
const PRIORITY_MAX = 2 ** 31 - 1;

function readServiceAllocation(r: MapReader): ServiceAllocation {
  const priority = r.integerInRange('priority', PRIORITY_MIN, PRIORITY_MAX) ?? POOL_DEFAULTS.priority;
  const namespaces = r.stringList('namespaces');
  reportDuplicateNamespaces(r, namespaces);
  return {
    priority,
    namespaces: namespaces.map((n) => n.value),
    namespaceSelectors: readSelectorList(r, 'namespaceSelectors'),
    serviceSelectors: readSelectorList(r, 'serviceSelectors'),
  };
}

/**
 * config.go addressPoolServiceAllocationsFromCR words this one differently from its other duplicate lists
 * ("duplicate definition in namespaces field"); its text comes first, the namespace after it.
 */
function reportDuplicateNamespaces(r: MapReader, namespaces: readonly ListItem<string>[]): void {
  const seen = new Set<string>();
  for (const item of namespaces) {
    if (seen.has(item.value)) {
      r.scope.error(DiagnosticCode.duplicateEntry, `duplicate definition in namespaces field: "${item.value}"`, item.position);
    }
    seen.add(item.value);
  }
}
