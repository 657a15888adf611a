import type { IP } from '../ip';
import type { IPAddressPool, Labels, Service } from '../model';
import { serviceKey } from '../model';
import { AllocatorState } from './allocator-state';
import { finishFailed, finishFresh, finishKept, noPools } from './allocate-service';
import type { PoolUsage } from './pool-usage';
import { sameAddresses } from './requested-ips';
import type { AllocationResult, ClearedAssignment, ServiceEvent } from './results';
import { type ServicePlan, allocateFresh, keepHeld, planService, skipMessage, skipReason } from './service-steps';

export interface AllocateServicesInput {
  readonly pools: readonly IPAddressPool[];
  readonly services: readonly Service[];
  /**
   * The allocation as it stands (service key -> addresses), e.g. the table persisted under --state-dir or the
   * previous run's result. A service found here holds these addresses; otherwise it holds its ingressIPs.
   */
  readonly previous?: ReadonlyMap<string, readonly IP[]>;
  /** namespace -> labels, for serviceAllocation.namespaceSelectors; empty when unknown (file mode). */
  readonly namespaceLabels?: ReadonlyMap<string, Labels>;
  /** --lb-class; undefined or "": only services without spec.loadBalancerClass. */
  readonly lbClass?: string;
}

export interface AllocateServicesOutput {
  /** Every input service by "namespace/name", in key order. */
  readonly results: ReadonlyMap<string, AllocationResult>;
  /** Per-pool counters after the run, by pool name. */
  readonly usage: readonly PoolUsage[];
  /** The final state, for feeding later changes one by one (allocateService). */
  readonly state: AllocatorState;
}

/**
 * The order a batch is processed in. MetalLB's reprocessAll handles services that already have addresses
 * first (internal/k8s/controllers/service_controller_reload.go) and otherwise follows the informer's order;
 * mlb fixes the whole order so every node computes the same table, and makes explicit addresses win:
 */
export const BatchPhase = {
  /** Holds addresses and requests exactly those: explicit and established. */
  heldAsRequested: 0,
  /** Requests addresses (or writes an unreadable request): claims them before any automatic holder. */
  requesting: 1,
  /** Holds automatically chosen addresses: kept before anything new is chosen. */
  holding: 2,
  /** Needs automatic allocation. */
  fresh: 3,
} as const;
export type BatchPhase = (typeof BatchPhase)[keyof typeof BatchPhase];

export function batchPhase(plan: ServicePlan): BatchPhase {
  if (plan.request.kind === 'ips' && plan.held.length > 0 && sameAddresses(plan.held, plan.request.ips)) {
    return BatchPhase.heldAsRequested;
  }
  if (plan.request.kind !== 'none') return BatchPhase.requesting;
  if (plan.held.length > 0) return BatchPhase.holding;
  return BatchPhase.fresh;
}

function byKey(a: ServicePlan, b: ServicePlan): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * Allocates every service of a configuration at once, deterministically: the result depends on the set of
 * services, never on their order in the input.
 *
 * 1. Services holding or requesting addresses, by phase (BatchPhase) then "namespace/name": held addresses
 *    are kept while still allowed, requested ones assigned. A holder that loses its addresses waits for step 3,
 *    so it cannot take addresses from holders later in the order.
 * 2. Kept PreferDualStack single addresses are completed with the other family.
 * 3. Everything still without addresses, by "namespace/name": the annotated pool or automatic allocation.
 *
 * Running again with the output's addresses as `previous` reproduces the same addresses.
 */
export function allocateServices(input: AllocateServicesInput): AllocateServicesOutput {
  let state = AllocatorState.create(input.pools, input.namespaceLabels);
  const results = new Map<string, AllocationResult>();
  const plans: ServicePlan[] = [];
  const seen = new Set<string>();

  for (const service of input.services) {
    const key = serviceKey(service);
    if (seen.has(key)) throw new Error(`allocateServices: service ${key} is listed twice`);
    seen.add(key);
    const skip = skipReason(service, input.lbClass);
    if (skip !== undefined) {
      results.set(key, { status: 'skipped', service: key, reason: skip, message: skipMessage(skip, service, input.lbClass) });
      continue;
    }
    plans.push(planService(service, input.previous?.get(key) ?? service.ingressIPs));
  }

  if (!state.hasPools) {
    for (const plan of plans) results.set(plan.key, noPools(state, plan).result);
    return finish(results, state);
  }

  const phased = plans.map((plan) => ({ plan, phase: batchPhase(plan) })).sort((a, b) => a.phase - b.phase || byKey(a.plan, b.plan));

  const keptPools = new Map<string, string>();
  const deferred = new Map<string, { events: readonly ServiceEvent[]; cleared: ClearedAssignment | undefined }>();
  const fresh: ServicePlan[] = [];

  // Step 1: holders and requesters.
  for (const { plan, phase } of phased) {
    if (phase === BatchPhase.fresh) {
      fresh.push(plan);
      continue;
    }
    const kept = keepHeld(state, plan);
    state = kept.state;
    if (kept.kind === 'kept') {
      keptPools.set(plan.key, kept.pool);
    } else if (kept.kind === 'failed') {
      results.set(plan.key, finishFailed(state, plan.key, kept.failure, kept.events, kept.cleared).result);
    } else {
      const events = kept.kind === 'cleared' ? kept.events : [];
      const cleared = kept.kind === 'cleared' ? kept.cleared : undefined;
      if (plan.request.kind !== 'none') {
        const step = finishFresh(allocateFresh(state, plan), plan.key, events, cleared);
        state = step.state;
        results.set(plan.key, step.result);
      } else {
        deferred.set(plan.key, { events, cleared });
        fresh.push(plan);
      }
    }
  }

  // Step 2: PreferDualStack completion of kept addresses, once every holder has its addresses back.
  for (const { plan } of phased) {
    const pool = keptPools.get(plan.key);
    if (pool === undefined) continue;
    const step = finishKept(state, plan, pool);
    state = step.state;
    results.set(plan.key, step.result);
  }

  // Step 3: automatic and pool-annotated allocation.
  for (const plan of fresh.sort(byKey)) {
    const before = deferred.get(plan.key);
    const step = finishFresh(allocateFresh(state, plan), plan.key, before?.events ?? [], before?.cleared);
    state = step.state;
    results.set(plan.key, step.result);
  }

  return finish(results, state);
}

function finish(results: Map<string, AllocationResult>, state: AllocatorState): AllocateServicesOutput {
  const sorted = new Map([...results.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { results: sorted, usage: state.usage(), state };
}

/**
 * A run's outcome as the `previous` input of the next one: assigned services with their addresses, failed
 * ones with none (they hold nothing, whatever their status says); skipped services are left out.
 */
export function addressesOf(results: ReadonlyMap<string, AllocationResult>): Map<string, readonly IP[]> {
  const out = new Map<string, readonly IP[]>();
  for (const [key, r] of results) {
    if (r.status === 'assigned') out.set(key, r.ips);
    else if (r.status === 'failed') out.set(key, []);
  }
  return out;
}
