import type { IP } from '../ip';
import type { Service } from '../model';
import { serviceKey } from '../model';
import type { AllocatorState } from './allocator-state';
import { allocationErrors } from './allocation-errors';
import type { AllocationResult, ClearedAssignment, ServiceEvent } from './results';
import {
  type AllocateOutcome,
  type Failure,
  type ServicePlan,
  allocateFresh,
  completeDualStack,
  failure,
  keepHeld,
  planService,
  skipMessage,
  skipReason,
} from './service-steps';

export interface AllocateServiceOptions {
  /**
   * The addresses the service holds now. Default: what the allocator state records for it, else
   * service.ingressIPs (its status). Pass [] to treat it as holding nothing.
   */
  readonly held?: readonly IP[];
  /** --lb-class: handle only services of this class; undefined or "": only services without a class. */
  readonly lbClass?: string;
}

export interface ServiceStep {
  readonly state: AllocatorState;
  readonly result: AllocationResult;
}

/**
 * One service, the way MetalLB's controller converges it (controller/service.go convergeBalancer): keep what
 * it holds while still allowed, else allocate - requested addresses, the annotated pool, or automatically.
 * For a daemon fed one change at a time; a skipped or failed service holds nothing in the returned state.
 */
export function allocateService(state: AllocatorState, service: Service, options: AllocateServiceOptions = {}): ServiceStep {
  const key = serviceKey(service);
  const skip = skipReason(service, options.lbClass);
  if (skip !== undefined) {
    return {
      state: state.unassign(key),
      result: { status: 'skipped', service: key, reason: skip, message: skipMessage(skip, service, options.lbClass) },
    };
  }
  const held = options.held ?? state.allocation(key)?.ips ?? service.ingressIPs;
  const plan = planService(service, held);
  if (!state.hasPools) return noPools(state, plan);

  const kept = keepHeld(state, plan);
  if (kept.kind === 'kept') return finishKept(kept.state, plan, kept.pool);
  if (kept.kind === 'failed') return finishFailed(kept.state, key, kept.failure, kept.events, kept.cleared);
  const cleared = kept.kind === 'cleared' ? kept.cleared : undefined;
  const events = kept.kind === 'cleared' ? kept.events : [];
  return finishFresh(allocateFresh(kept.state, plan), key, events, cleared);
}

/** MetalLB convergeBalancer with no pools: clears the service ("noConfig"); it logs rather than emits. */
export function noPools(state: AllocatorState, plan: ServicePlan): ServiceStep {
  const { failure: f, event } = failure(plan.key, allocationErrors.noPools());
  return finishFailed(state.unassign(plan.key), plan.key, f, [event]);
}

export function finishKept(state: AllocatorState, plan: ServicePlan, pool: string): ServiceStep {
  const done = completeDualStack(state, plan, pool);
  return {
    state: done.state,
    result: {
      status: 'assigned',
      service: plan.key,
      ips: done.ips,
      pool,
      reason: 'kept',
      ...(done.added && { added: done.added }),
      events: done.events,
    },
  };
}

export function finishFailed(
  state: AllocatorState,
  key: string,
  f: Failure,
  events: readonly ServiceEvent[],
  cleared?: ClearedAssignment,
): ServiceStep {
  return { state, result: { status: 'failed', service: key, ...f, ...(cleared && { cleared }), events } };
}

export function finishFresh(
  outcome: AllocateOutcome,
  key: string,
  before: readonly ServiceEvent[],
  cleared: ClearedAssignment | undefined,
): ServiceStep {
  const events = [...before, ...outcome.events];
  if (!outcome.ok) return finishFailed(outcome.state, key, outcome.failure, events, cleared);
  return {
    state: outcome.state,
    result: {
      status: 'assigned',
      service: key,
      ips: outcome.ips,
      pool: outcome.pool,
      reason: outcome.reason,
      ...(cleared && { cleared }),
      events,
    },
  };
}
