import { type IP, formatIP } from '../ip';
import type { AllocationError, AllocationErrorCode } from './allocation-errors';
import { goQuote, goQuoteIPs } from './go-format';

/**
 * What the allocator decided for one service, with its reason, and the Kubernetes events MetalLB's controller
 * would emit for it (controller/service.go convergeBalancer: c.client.Infof -> Normal, Errorf -> Warning).
 */

/** Why a service has the addresses it has. */
export type AssignReason =
  /** It held them (status or `previous`) and they are still allowed: MetalLB's idempotent Assign. */
  | 'kept'
  /** metallb.io/loadBalancerIPs or spec.loadBalancerIP, assigned exactly (autoAssign ignored). */
  | 'requested'
  /** From the pool the metallb.io/address-pool annotation names. */
  | 'poolRequested'
  /** From a pool whose serviceAllocation pins the service (best priority first). */
  | 'pinnedPool'
  /** From an autoAssign pool without serviceAllocation. */
  | 'autoAssign';

/** Why a held assignment was given up (MetalLB clearServiceState, with its log reasons). */
export type ClearReason =
  /** The held addresses' family no longer fits the service's (serviceFamilyChanged). */
  | 'familyChanged'
  /** Assign of the held addresses failed: pool gone or changed, service no longer admitted, sharing broken. */
  | 'notAllowed'
  /** The address-pool annotation names another pool than the one holding the addresses. */
  | 'differentPoolRequested'
  /** The service now requests other addresses. */
  | 'differentIPRequested';

export interface ClearedAssignment {
  readonly reason: ClearReason;
  readonly previous: readonly IP[];
  /** For notAllowed: why Assign refused. */
  readonly code?: AllocationErrorCode;
  readonly error?: string;
}

/** Why a service is not the allocator's business. */
export type SkipReason =
  /** spec.type is not LoadBalancer: nothing to allocate, any held address is released. */
  | 'notLoadBalancer'
  /** spec.loadBalancerClass is not the one this allocator handles (--lb-class; unset: only unclassed). */
  | 'loadBalancerClass';

export type EventReason = 'IPAllocated' | 'AllocationFailed' | 'ClearAssignment' | 'AdditionalAssignFailed' | 'LoadBalancerFailed';

export interface ServiceEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: EventReason;
  readonly message: string;
}

export type AllocationResult = AssignedResult | FailedResult | SkippedResult;

export interface AssignedResult {
  readonly status: 'assigned';
  readonly service: string;
  /** In MetalLB's order: as requested or held; IPv4 then IPv6 when allocated dual stack. */
  readonly ips: readonly IP[];
  readonly pool: string;
  readonly reason: AssignReason;
  /** A kept PreferDualStack address completed with the other family. */
  readonly added?: IP;
  /** The held assignment that was given up before this one was made. */
  readonly cleared?: ClearedAssignment;
  readonly events: readonly ServiceEvent[];
}

export interface FailedResult {
  readonly status: 'failed';
  readonly service: string;
  readonly code: AllocationErrorCode;
  /** MetalLB's bare error text, e.g. `unknown pool "special"`. */
  readonly error: string;
  /** The Warning event's text, e.g. `Failed to allocate IP for "demo/hello-e": unknown pool "special"`. */
  readonly event: string;
  readonly cleared?: ClearedAssignment;
  readonly events: readonly ServiceEvent[];
}

export interface SkippedResult {
  readonly status: 'skipped';
  readonly service: string;
  readonly reason: SkipReason;
  readonly message: string;
}

// ---------------------------------------------------------------------------------------------- event texts

export function assignedEvent(ips: readonly IP[]): ServiceEvent {
  return { type: 'Normal', reason: 'IPAllocated', message: `Assigned IP ${goQuoteIPs(ips)}` };
}

export function additionalAssignedEvent(ip: IP): ServiceEvent {
  return { type: 'Normal', reason: 'IPAllocated', message: `Assigned additional IP ${goQuote(formatIP(ip))}` };
}

export function additionalFailedEvent(error: AllocationError): ServiceEvent {
  return {
    type: 'Normal',
    reason: 'AdditionalAssignFailed',
    message: `cannot assign additional IP in PreferDualStack: ${error.message}`,
  };
}

export function allocationFailedEvent(service: string, error: AllocationError): ServiceEvent {
  return { type: 'Warning', reason: 'AllocationFailed', message: `Failed to allocate IP for ${goQuote(service)}: ${error.message}` };
}

export function clearAssignmentEvent(service: string, error: AllocationError): ServiceEvent {
  return {
    type: 'Normal',
    reason: 'ClearAssignment',
    message: `current IP for ${goQuote(service)} not allowed by config, will attempt for new IP assignment: ${error.message}`,
  };
}

export function invalidRequestEvent(error: AllocationError): ServiceEvent {
  return { type: 'Warning', reason: 'LoadBalancerFailed', message: `invalid requested loadbalancer IPs: ${error.message}` };
}
