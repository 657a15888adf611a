import type { IPAddressPool, LabelSelector, Labels } from '../model';
import { anySelectorMatches, selectorMatches } from '../model';

/**
 * Which pools may serve a service, and in which order (internal/allocator/allocator.go: pinnedPoolsForService,
 * isPoolCompatibleWithService, sortPools, Allocate; internal/config/config.go:
 * addressPoolServiceAllocationsFromCR, poolsByNamespace, poolsByServiceSelector).
 */

/** What allocation needs of a service to place it: who it is and its labels. */
export interface ServiceIdentity {
  readonly key: string;
  readonly namespace: string;
  readonly labels: Labels;
}

/**
 * A pool with its serviceAllocation resolved the way MetalLB resolves it when it reads the configuration:
 * namespaceSelectors become the set of namespaces (of those it knows) whose labels match, added to the
 * listed namespaces; a serviceAllocation with no namespaces, namespaceSelectors or serviceSelectors gets an
 * "everything" service selector (it pins every service, with its priority).
 */
export interface ResolvedPool {
  readonly name: string;
  readonly pool: IPAddressPool;
  /** Undefined when the pool has no serviceAllocation. */
  readonly allocation?: {
    readonly priority: number;
    readonly namespaces: ReadonlySet<string>;
    /** 'everything' for an empty serviceAllocation; otherwise the serviceSelectors as written (maybe none). */
    readonly serviceSelectors: readonly LabelSelector[] | 'everything';
  };
}

export function resolvePool(pool: IPAddressPool, namespaceLabels: ReadonlyMap<string, Labels>): ResolvedPool {
  const sa = pool.serviceAllocation;
  const name = pool.meta.name;
  if (sa === undefined) return { name, pool };
  if (sa.namespaces.length === 0 && sa.namespaceSelectors.length === 0 && sa.serviceSelectors.length === 0) {
    return { name, pool, allocation: { priority: sa.priority, namespaces: new Set(), serviceSelectors: 'everything' } };
  }
  const namespaces = new Set(sa.namespaces);
  if (sa.namespaceSelectors.length > 0) {
    for (const [ns, labels] of namespaceLabels) {
      if (sa.namespaceSelectors.some((s) => selectorMatches(s, labels))) namespaces.add(ns);
    }
  }
  return { name, pool, allocation: { priority: sa.priority, namespaces, serviceSelectors: sa.serviceSelectors } };
}

/**
 * MetalLB isPoolCompatibleWithService: may this pool hold the service's address at all (for requested and
 * kept addresses too)? A namespace list, when non-empty, must contain the service's namespace; service
 * selectors, when present, must match its labels.
 *
 * MetalLB quirk kept on purpose: namespaceSelectors that match no known namespace leave the namespace list
 * empty, which MetalLB reads as "no namespace restriction" - such a pool admits requested addresses from every
 * namespace but pins no service. (With namespaceLabels unknown, that is every namespaceSelectors-only pool.)
 */
export function poolAdmits(pool: ResolvedPool, service: ServiceIdentity): boolean {
  const sa = pool.allocation;
  if (sa === undefined) return true;
  if (sa.namespaces.size > 0 && !sa.namespaces.has(service.namespace)) return false;
  if (sa.serviceSelectors === 'everything') return true;
  if (sa.serviceSelectors.length > 0) return anySelectorMatches(sa.serviceSelectors, service.labels);
  return true;
}

/**
 * MetalLB pinnedPoolsForService: autoAssign pools whose serviceAllocation names the service's namespace
 * (pools.ByNamespace) or whose service selectors match it (pools.ByServiceSelector), and admit it.
 */
function pinsService(pool: ResolvedPool, service: ServiceIdentity): boolean {
  const sa = pool.allocation;
  if (sa === undefined || !pool.pool.autoAssign) return false;
  const listed = sa.namespaces.has(service.namespace);
  const selected = sa.serviceSelectors === 'everything' || sa.serviceSelectors.length > 0;
  return (listed || selected) && poolAdmits(pool, service);
}

/**
 * MetalLB sortPools: lower priority first; priority 0 (unset) after every positive one. MetalLB's sort.Slice
 * leaves equals in Go map order (random); mlb breaks ties by pool name so every run and node agrees.
 */
function comparePinnedPools(a: ResolvedPool, b: ResolvedPool): number {
  const pa = a.allocation?.priority ?? 0;
  const pb = b.allocation?.priority ?? 0;
  const ra = pa > 0 ? pa : Number.POSITIVE_INFINITY;
  const rb = pb > 0 ? pb : Number.POSITIVE_INFINITY;
  if (ra !== rb) return ra < rb ? -1 : 1;
  return compareNames(a.name, b.name);
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The pools that pin the service, best first. */
export function pinnedPools(pools: readonly ResolvedPool[], service: ServiceIdentity): ResolvedPool[] {
  return pools.filter((p) => pinsService(p, service)).sort(comparePinnedPools);
}

/**
 * MetalLB Allocate's fallback: every autoAssign pool without a serviceAllocation (a pool with one serves only
 * the services it pins). MetalLB walks them in Go map order; mlb by name.
 */
export function defaultPools(pools: readonly ResolvedPool[]): ResolvedPool[] {
  return pools.filter((p) => p.pool.autoAssign && p.allocation === undefined).sort((a, b) => compareNames(a.name, b.name));
}
