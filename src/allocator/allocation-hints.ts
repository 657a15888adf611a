/**
 * What to change when a service gets no address: one short hint per allocator error, beside MetalLB's own text
 * (which says what failed, never what to do). mlb's addition; pure.
 */
import { type IP, formatIP, ipEquals } from '../ip';
import { type IPAddressPool, type IPFamilyName, type Service, closestMatch, serviceKey } from '../model';
import { type AllocationErrorCode, AllocationErrorCode as Code } from './allocation-errors';
import type { AllocateServicesOutput } from './allocate-services';
import { isBuggyIP } from './pool-membership';
import { requestedIPs, requestedPool } from './requested-ips';
import type { FailedResult } from './results';
import { serviceFamily } from './service-family';
import { sharingKeyOf } from './sharing';

/** Hints name at most this many pools or addresses; more would hide the hint. */
const MAX_NAMED = 3;

export interface HintContext {
  readonly pools: readonly IPAddressPool[];
  readonly services: readonly Service[];
  readonly allocation: AllocateServicesOutput;
}

const FAMILY_NAME: Readonly<Record<4 | 6, IPFamilyName>> = { 4: 'IPv4', 6: 'IPv6' };

/** The hint for a failed allocation, or undefined when there is nothing better to say than MetalLB's text. */
export function allocationHint(service: Service, result: FailedResult, context: HintContext): string | undefined {
  const hint = HINTS[result.code];
  return hint ? hint(service, context) : undefined;
}

type Hint = (service: Service, context: HintContext) => string | undefined;

const SHARED_IP = 'metallb.io/allow-shared-ip';
const REQUEST_RULE = 'request at most one IPv4 and one IPv6 address, in metallb.io/loadBalancerIPs or spec.loadBalancerIP, not both';

const HINTS: Readonly<Record<AllocationErrorCode, Hint>> = {
  [Code.unknownPool]: (service, { pools }) => {
    const names = pools.map((p) => p.meta.name);
    const match = closestMatch(requestedPool(service) ?? '', names);
    if (match !== undefined) return `did you mean pool "${match}"?`;
    return names.length === 0 ? 'the file defines no IPAddressPool' : `the pools are ${named(names.map((n) => `"${n}"`))}`;
  },
  [Code.notAllowedInConfig]: (service, { pools }) => notAllowedHint(requested(service), pools),
  [Code.requestedPoolMismatch]: (service, { pools }) => {
    const holder = pools.find((p) => requested(service).every((ip) => p.addressSet.has(ip)));
    return holder ? `the address is in pool "${holder.meta.name}": name that pool, or remove metallb.io/address-pool` : undefined;
  },
  [Code.poolNotCompatible]: (service) =>
    `the pool's spec.serviceAllocation (namespaces, namespaceSelectors, serviceSelectors) does not admit ${serviceKey(service)}`,
  [Code.familyMismatch]: (service) => familyMismatchHint(service),
  [Code.noAvailableIPsForFamily]: (service, { pools }) => {
    const pool = pools.find((p) => p.meta.name === requestedPool(service));
    return pool ? familyAdvice(service, familiesOf([pool]), 'the pool has') : undefined;
  },
  [Code.noAvailableIPs]: (service, { pools }) => {
    const autoAssign = pools.filter((p) => p.autoAssign && !p.serviceAllocation);
    const advice = familyAdvice(service, familiesOf(autoAssign), 'the autoAssign pools have');
    if (advice !== undefined) return advice;
    if (autoAssign.length === 0) return 'no pool has autoAssign: name one with metallb.io/address-pool, or request an address';
    return `every address of the autoAssign pools is taken: add addresses, or share one with ${SHARED_IP}`;
  },
  [Code.noAvailableIPsInPool]: () => `every address of the pool is taken: add addresses to it, or share one with ${SHARED_IP}`,
  [Code.sharingKeyConflict]: sharingHint,
  [Code.portInUse]: () => 'services sharing an address need different ports: change the port, or request another address',
  [Code.tooManyAddresses]: () => REQUEST_RULE,
  [Code.sameFamily]: () => REQUEST_RULE,
  [Code.invalidRequestedIPs]: () => REQUEST_RULE,
  [Code.noPools]: () => 'add an IPAddressPool',
};

function requested(service: Service): readonly IP[] {
  const request = requestedIPs(service);
  return request.kind === 'ips' ? request.ips : [];
}

function familiesOf(pools: readonly IPAddressPool[]): ReadonlySet<4 | 6> {
  return new Set(pools.flatMap((p) => p.cidrs.map((c) => c.ip.family)));
}

function named(items: readonly string[]): string {
  const shown = items.slice(0, MAX_NAMED).join(', ');
  return items.length > MAX_NAMED ? `${shown}, ...` : shown;
}

/** Which requested address is outside every pool, or only in one's avoided .0/.255, or split over two pools. */
function notAllowedHint(ips: readonly IP[], pools: readonly IPAddressPool[]): string | undefined {
  for (const ip of ips) {
    const holder = pools.find((p) => p.addressSet.has(ip));
    if (!holder) {
      const ranges = pools
        .filter((p) => p.cidrs.some((c) => c.ip.family === ip.family))
        .map((p) => `"${p.meta.name}" ${p.addresses.join(' ')}`);
      return ranges.length === 0
        ? `${formatIP(ip)} is in no pool, and no pool has ${FAMILY_NAME[ip.family]} addresses`
        : `${formatIP(ip)} is in no pool; the pools: ${named(ranges)}`;
    }
    if (holder.avoidBuggyIPs && isBuggyIP(ip)) {
      return `pool "${holder.meta.name}" has avoidBuggyIPs: true, which leaves out addresses ending in .0 and .255`;
    }
  }
  return ips.length > 1 ? 'both addresses must lie in one pool' : undefined;
}

/** "add" when the Service wrote no ipFamilies (mlb chose them), "set" when it did. */
function verb(service: Service): string {
  return service.fieldPositions?.['spec.ipFamilies'] ? 'set' : 'add';
}

/** When the pools offer only the other family than the Service's, say which ipFamilies would fit. */
function familyAdvice(service: Service, available: ReadonlySet<4 | 6>, pools: string): string | undefined {
  const wanted = serviceFamily(service);
  if (available.size !== 1) return undefined;
  const [only] = [...available] as [4 | 6];
  if (wanted === 'dual') {
    return service.ipFamilyPolicy === 'RequireDualStack'
      ? `${pools} only ${FAMILY_NAME[only]} addresses: set spec.ipFamilyPolicy: PreferDualStack, or add ${FAMILY_NAME[only === 4 ? 6 : 4]} addresses`
      : undefined;
  }
  if ((wanted === 'ipv4' ? 4 : 6) === only) return undefined;
  return `${pools} only ${FAMILY_NAME[only]} addresses: ${verb(service)} spec.ipFamilies: [${FAMILY_NAME[only]}]`;
}

function familyMismatchHint(service: Service): string | undefined {
  const request = requestedIPs(service);
  if (request.kind !== 'ips') return undefined;
  if (request.family === 'dual') {
    return `${verb(service)} spec.ipFamilyPolicy: PreferDualStack and spec.ipFamilies: [${request.ips.map((ip) => FAMILY_NAME[ip.family]).join(', ')}]`;
  }
  const family = FAMILY_NAME[(request.ips[0] as IP).family];
  if (service.ipFamilyPolicy === 'RequireDualStack') {
    return `RequireDualStack needs one address of each family: request both, or set spec.ipFamilyPolicy: SingleStack and spec.ipFamilies: [${family}]`;
  }
  return `${verb(service)} spec.ipFamilies: [${family}]`;
}

/** Names the service holding the address and what differs between the two. */
function sharingHint(service: Service, { allocation, services }: HintContext): string | undefined {
  const ips = requested(service);
  const key = serviceKey(service);
  const result = [...allocation.results.values()].find(
    (r) => r.status === 'assigned' && r.service !== key && r.ips.some((ip) => ips.some((mine) => ipEquals(ip, mine))),
  );
  const holder = result && services.find((s) => serviceKey(s) === result.service);
  if (!holder) return undefined;
  const [mine, theirs] = [sharingKeyOf(service), sharingKeyOf(holder)];
  if (mine.sharing !== theirs.sharing) {
    const shown = (k: string) => (k === '' ? 'none' : `"${k}"`);
    return `${serviceKey(holder)} holds it with ${SHARED_IP} ${shown(theirs.sharing)}, this one has ${shown(mine.sharing)}: give both the same`;
  }
  return `${serviceKey(holder)} holds it: with externalTrafficPolicy: Local, services sharing an address need the same selector`;
}
