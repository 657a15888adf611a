import type { IP } from '../ip';
import { formatIP } from '../ip';
import { goQuote, goQuoteIPs, goQuoteList } from './go-format';
import { type Port, formatPort } from './service-port';
import { CodedError } from '../errors/coded-error';

/**
 * Every way an allocation can fail, with a stable code (scripts, tests and `mlb explain` match on it) and
 * MetalLB v0.16.1's exact text (internal/allocator/allocator.go, allocation.go, controller/service.go and
 * internal/ipfamily), because users search for those texts and compare them with MetalLB's events.
 */
export const AllocationErrorCode = {
  /** Allocate(): neither the pinned pools nor the autoAssign pools had a suitable address. */
  noAvailableIPs: 'noAvailableIPs',
  /** getFreeIPsFromPool(): the pool has no free or shareable address of any family. */
  noAvailableIPsInPool: 'noAvailableIPsInPool',
  /** selectIPsForFamilyAndPolicy(): the pool has addresses, but not of the family the service needs. */
  noAvailableIPsForFamily: 'noAvailableIPsForFamily',
  /** AllocateFromPool(): the address-pool annotation names no pool. */
  unknownPool: 'unknownPool',
  /** Assign(): no single pool holds all the addresses (avoidBuggyIPs pools do not hold .0 / .255). */
  notAllowedInConfig: 'notAllowedInConfig',
  /** Assign(): the pool's serviceAllocation does not admit the service. */
  poolNotCompatible: 'poolNotCompatible',
  /** Assign(): more than two addresses. */
  tooManyAddresses: 'tooManyAddresses',
  /** Assign(): two addresses of one family. */
  sameFamily: 'sameFamily',
  /** checkSharing(): the address is used by another service with another sharing or backend key. */
  sharingKeyConflict: 'sharingKeyConflict',
  /** checkSharing(): the sharing keys agree but a (protocol, port) is taken. */
  portInUse: 'portInUse',
  /** allocateIPs(): the requested addresses' family differs from the service's. */
  familyMismatch: 'familyMismatch',
  /** allocateIPs(): the requested addresses lie in a pool other than the address-pool annotation's. */
  requestedPoolMismatch: 'requestedPoolMismatch',
  /** getDesiredLbIPs(): the loadBalancerIPs annotation or spec.loadBalancerIP cannot be read. */
  invalidRequestedIPs: 'invalidRequestedIPs',
  /** convergeBalancer(): there is no IPAddressPool at all (MetalLB logs "noConfig" and emits no event). */
  noPools: 'noPools',
} as const;
export type AllocationErrorCode = (typeof AllocationErrorCode)[keyof typeof AllocationErrorCode];

/** The IP family names MetalLB prints (internal/ipfamily: "ipv4", "ipv6", "dual"). */
export type MetalLBFamily = 'ipv4' | 'ipv6' | 'dual';

export class AllocationError extends CodedError<AllocationErrorCode> {}

export const allocationErrors = {
  noAvailableIPs: () => new AllocationError(AllocationErrorCode.noAvailableIPs, 'no available IPs'),
  noAvailableIPsInPool: (pool: string) => new AllocationError(AllocationErrorCode.noAvailableIPsInPool, `no available IPs in pool ${pool}`),
  noAvailableIPsForFamily: (pool: string, family: MetalLBFamily) =>
    new AllocationError(AllocationErrorCode.noAvailableIPsForFamily, `no available IPs in pool ${pool} for ${family} IPFamily`),
  unknownPool: (pool: string) => new AllocationError(AllocationErrorCode.unknownPool, `unknown pool ${goQuote(pool)}`),
  notAllowedInConfig: (ips: readonly IP[]) =>
    new AllocationError(AllocationErrorCode.notAllowedInConfig, `${goQuoteIPs(ips)} is not allowed in config`),
  poolNotCompatible: (pool: string) =>
    new AllocationError(AllocationErrorCode.poolNotCompatible, `pool ${pool} not compatible for ip assignment`),
  tooManyAddresses: (ips: readonly IP[]) =>
    new AllocationError(AllocationErrorCode.tooManyAddresses, `more than two addresses ${goQuoteIPs(ips)}`),
  sameFamily: (a: IP, b: IP) =>
    new AllocationError(AllocationErrorCode.sameFamily, `${goQuote(formatIP(a))} ${goQuote(formatIP(b))} has the same family`),
  sharingKeyConflict: (service: string, others: readonly string[]) =>
    new AllocationError(
      AllocationErrorCode.sharingKeyConflict,
      // MetalLB joins the other services in Go map order; mlb sorts them so the text is stable.
      `can't change sharing key for ${goQuote(service)}, address also in use by ${[...others].sort().join(',')}`,
    ),
  portInUse: (port: Port, ip: IP) =>
    new AllocationError(AllocationErrorCode.portInUse, `port ${formatPort(port)} is already in use on ${goQuote(formatIP(ip))}`),
  familyMismatch: (ips: readonly IP[]) =>
    new AllocationError(
      AllocationErrorCode.familyMismatch,
      `requested loadBalancer IP(s) ${goQuoteIPs(ips)} does not match the ipFamily of the service`,
    ),
  requestedPoolMismatch: (ips: readonly IP[], pool: string) =>
    new AllocationError(
      AllocationErrorCode.requestedPoolMismatch,
      `requested loadBalancer IP(s) ${goQuoteIPs(ips)} is not compatible with requested address pool ${pool}`,
    ),
  bothRequestFields: () =>
    new AllocationError(
      AllocationErrorCode.invalidRequestedIPs,
      'service can not have both metallb.io/loadBalancerIPs and svc.Spec.LoadBalancerIP',
    ),
  invalidAnnotationIPs: (text: string) =>
    new AllocationError(AllocationErrorCode.invalidRequestedIPs, `invalid metallb.io/loadBalancerIPs: ${goQuote(text)}`),
  invalidSpecIP: (text: string) =>
    new AllocationError(AllocationErrorCode.invalidRequestedIPs, `invalid spec.loadBalancerIP ${goQuote(text)}`),
  /** internal/ipfamily ForAddresses: two addresses of one family. */
  requestedSameFamily: (texts: readonly string[]) =>
    new AllocationError(AllocationErrorCode.invalidRequestedIPs, `IPFamilyForAddresses: same address family ${goQuoteList(texts)}`),
  /** internal/ipfamily ForAddresses: more than two addresses. */
  requestedCount: (texts: readonly string[]) =>
    new AllocationError(
      AllocationErrorCode.invalidRequestedIPs,
      `IPFamilyForAddresses: invalid ips length ${texts.length} ${goQuoteList(texts)}`,
    ),
  noPools: () => new AllocationError(AllocationErrorCode.noPools, 'no IPAddressPool is configured'),
} as const;
