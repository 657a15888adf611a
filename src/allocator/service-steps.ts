import type { IP } from '../ip';
import type { Service } from '../model';
import { serviceKey } from '../model';
import type { AllocationSubject, AllocatorState } from './allocator-state';
import { type AllocationError, allocationErrors } from './allocation-errors';
import { type FamilyRequest, allocateAdditionalFamily, allocateAutomatically, allocateFromNamedPool } from './pool-allocation';
import { type RequestedIPs, requestedIPs, requestedPool, sameAddresses } from './requested-ips';
import {
  type AssignReason,
  type ClearedAssignment,
  type FailedResult,
  type ServiceEvent,
  type SkipReason,
  additionalAssignedEvent,
  additionalFailedEvent,
  allocationFailedEvent,
  assignedEvent,
  clearAssignmentEvent,
  invalidRequestEvent,
} from './results';
import { heldFamilyChanged, primaryFamily, serviceFamily } from './service-family';
import { servicePorts, sharingKeyOf } from './sharing';

/**
 * MetalLB's per-service convergence (controller/service.go convergeBalancer and allocateIPs) cut into steps,
 * so a single service can run them back to back (allocateService) and a batch can interleave them across
 * services (allocateServices) without changing what each step decides.
 */

/** The service read once: identity, sharing, family, request and what it holds. */
export interface ServicePlan {
  readonly service: Service;
  readonly key: string;
  readonly subject: AllocationSubject;
  readonly family: FamilyRequest;
  readonly request: RequestedIPs;
  readonly pool: string | undefined;
  readonly held: readonly IP[];
}

export function planService(service: Service, held: readonly IP[]): ServicePlan {
  const key = serviceKey(service);
  return {
    service,
    key,
    subject: {
      key,
      namespace: service.meta.namespace,
      labels: service.meta.labels,
      ports: servicePorts(service),
      sharingKey: sharingKeyOf(service),
    },
    family: { family: serviceFamily(service), policy: service.ipFamilyPolicy, primary: primaryFamily(service) },
    request: requestedIPs(service),
    pool: requestedPool(service),
    held,
  };
}

/**
 * Whether the allocator handles the service at all (internal/k8s/controllers filterByLoadBalancerClass, then
 * convergeBalancer's type check). lbClass undefined or "" = handle only services without a class.
 */
export function skipReason(service: Service, lbClass: string | undefined): SkipReason | undefined {
  const wanted = lbClass ?? '';
  const has = service.loadBalancerClass ?? '';
  if (has !== wanted) return 'loadBalancerClass';
  if (service.type !== 'LoadBalancer') return 'notLoadBalancer';
  return undefined;
}

export function skipMessage(reason: SkipReason, service: Service, lbClass: string | undefined): string {
  if (reason === 'notLoadBalancer') return `not a LoadBalancer service (type ${service.type})`;
  const has = service.loadBalancerClass;
  const wanted = lbClass === undefined || lbClass === '' ? 'no class' : `class "${lbClass}"`;
  return has === undefined || has === ''
    ? `service has no loadBalancerClass; this allocator handles ${wanted}`
    : `loadBalancerClass "${has}" is not handled (this allocator handles ${wanted})`;
}

export type Failure = Omit<FailedResult, 'status' | 'service' | 'cleared' | 'events'>;

export function failure(key: string, error: AllocationError, event?: ServiceEvent): { failure: Failure; event: ServiceEvent } {
  const ev = event ?? allocationFailedEvent(key, error);
  return { failure: { code: error.code, error: error.message, event: ev.message }, event: ev };
}

export type KeepOutcome =
  | { readonly kind: 'none'; readonly state: AllocatorState }
  | { readonly kind: 'kept'; readonly state: AllocatorState; readonly pool: string }
  | { readonly kind: 'cleared'; readonly state: AllocatorState; readonly cleared: ClearedAssignment; readonly events: ServiceEvent[] }
  | {
      readonly kind: 'failed';
      readonly state: AllocatorState;
      readonly failure: Failure;
      readonly cleared?: ClearedAssignment;
      readonly events: ServiceEvent[];
    };

/**
 * convergeBalancer's handling of held addresses, in MetalLB's order:
 * 1. family no longer fits -> clear (no event);
 * 2. Assign(held) fails -> ClearAssignment event with the reason, clear;
 * 3. address-pool annotation names another pool -> clear (no event);
 * 4. the request cannot be read -> LoadBalancerFailed (MetalLB then keeps the held address in its allocator
 *    until the next change; mlb releases it so the outcome is a plain failure);
 * 5. the request names other addresses -> clear (no event).
 */
export function keepHeld(state: AllocatorState, plan: ServicePlan): KeepOutcome {
  const { key, held } = plan;
  if (held.length === 0) return { kind: 'none', state: state.unassign(key) };
  const events: ServiceEvent[] = [];
  const clear = (cleared: ClearedAssignment): KeepOutcome => ({ kind: 'cleared', state: state.unassign(key), cleared, events });

  if (heldFamilyChanged(held, plan.service)) return clear({ reason: 'familyChanged', previous: held });

  const assigned = state.assign(plan.subject, held);
  let cleared: ClearedAssignment | undefined;
  if (!assigned.ok) {
    events.push(clearAssignmentEvent(key, assigned.error));
    cleared = { reason: 'notAllowed', previous: held, code: assigned.error.code, error: assigned.error.message };
  } else if (plan.pool !== undefined && assigned.pool !== plan.pool) {
    cleared = { reason: 'differentPoolRequested', previous: held };
  }

  if (plan.request.kind === 'invalid') {
    const { failure: f, event } = failure(key, plan.request.error, invalidRequestEvent(plan.request.error));
    events.push(event);
    return { kind: 'failed', state: state.unassign(key), failure: f, events, ...(cleared && { cleared }) };
  }
  if (cleared !== undefined) return clear(cleared);
  if (plan.request.kind === 'ips' && !sameAddresses(held, plan.request.ips)) {
    return clear({ reason: 'differentIPRequested', previous: held });
  }
  if (!assigned.ok) throw new Error('unreachable: a failed Assign always clears');
  return { kind: 'kept', state: assigned.state, pool: assigned.pool };
}

/**
 * convergeBalancer's PreferDualStack completion: a kept single address of a dual-stack PreferDualStack
 * service gets the other family from the same pool when it has one (Normal events either way, as MetalLB).
 * MetalLB tries this for every PreferDualStack service, even on a single-stack cluster where it can only fail;
 * mlb only when the service's families are dual, and never when the service requests its addresses: MetalLB
 * would add the other family, then find the held pair unequal to the request on the next pass, clear it and
 * fail ("does not match the ipFamily"), and oscillate. Requested addresses are assigned exactly.
 */
export function completeDualStack(
  state: AllocatorState,
  plan: ServicePlan,
  pool: string,
): { state: AllocatorState; ips: readonly IP[]; added?: IP; events: ServiceEvent[] } {
  const allocation = state.allocation(plan.key);
  const ips = allocation?.ips ?? plan.held;
  const eligible = plan.family.policy === 'PreferDualStack' && plan.family.family === 'dual' && plan.request.kind === 'none';
  if (ips.length !== 1 || !eligible) {
    return { state, ips, events: [] };
  }
  const result = allocateAdditionalFamily(state, plan.subject, ips[0] as IP, pool);
  if (!result.ok) return { state, ips, events: [additionalFailedEvent(result.error)] };
  return { state: result.state, ips: result.ips, added: result.added, events: [additionalAssignedEvent(result.added)] };
}

export type AllocateOutcome =
  | {
      readonly ok: true;
      readonly state: AllocatorState;
      readonly ips: readonly IP[];
      readonly pool: string;
      readonly reason: AssignReason;
      readonly events: ServiceEvent[];
    }
  | { readonly ok: false; readonly state: AllocatorState; readonly failure: Failure; readonly events: ServiceEvent[] };

/**
 * MetalLB allocateIPs: requested addresses exactly (their family must be the service's; an address-pool
 * annotation must name their pool), else the annotated pool, else automatic allocation.
 */
export function allocateFresh(state: AllocatorState, plan: ServicePlan): AllocateOutcome {
  const { key, subject, request } = plan;
  const fail = (error: AllocationError): AllocateOutcome => {
    const { failure: f, event } = failure(key, error);
    return { ok: false, state: state.unassign(key), failure: f, events: [event] };
  };
  const succeed = (next: AllocatorState, ips: readonly IP[], pool: string, reason: AssignReason): AllocateOutcome => ({
    ok: true,
    state: next,
    ips,
    pool,
    reason,
    events: [assignedEvent(ips)],
  });

  if (request.kind === 'invalid') return fail(request.error);
  if (request.kind === 'ips') {
    if (request.family !== plan.family.family) return fail(allocationErrors.familyMismatch(request.ips));
    const assigned = state.assign(subject, request.ips);
    if (!assigned.ok) return fail(assigned.error);
    if (plan.pool !== undefined && assigned.pool !== plan.pool) {
      return fail(allocationErrors.requestedPoolMismatch(request.ips, plan.pool));
    }
    return succeed(assigned.state, request.ips, assigned.pool, 'requested');
  }
  if (plan.pool !== undefined) {
    const r = allocateFromNamedPool(state, subject, plan.family, plan.pool);
    return r.ok ? succeed(r.state, r.ips, r.pool, 'poolRequested') : fail(r.error);
  }
  const r = allocateAutomatically(state, subject, plan.family);
  return r.ok ? succeed(r.state, r.ips, r.pool, r.group === 'pinned' ? 'pinnedPool' : 'autoAssign') : fail(r.error);
}
