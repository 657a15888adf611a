/**
 * One reconcile of every Service, pure: the configuration, the Services as the API returns them and what this
 * controller decided last in; per service the status and annotation it should have, whether that needs a
 * write, and the events to emit out. The allocation is the file mode's (allocateServices over the same model
 * Services), so a Service gets the address `mlb validate`/`mlb explain` give the same objects in a file.
 *
 * Every pass allocates the whole set again from what each service holds, which gives MetalLB's convergence
 * without its event-order dependence:
 * - holders first (allocateServices' phases): after a restart the status of each Service is what it holds, so
 *   a pending Service can never take an address a holder has not been seen with yet (MetalLB's reprocessAll
 *   ordering, internal/k8s/controllers/service_controller_reload.go);
 * - a deleted Service simply stops holding: its addresses go to a pending one in the same pass, a shared
 *   address stays while another sharer holds it; a Service this controller never handled leaves no trace;
 * - events are emitted when a service's outcome changes; a failure's Warning events again on every pass while
 *   it lasts, as MetalLB records them on every failing reconcile (the writer's correlator counts the repeats on
 *   one Event and its spam filter bounds them).
 */
import { type AllocationResult, type PoolUsage, allocateServices } from '../allocator';
import { type IP, formatIP } from '../ip';
import type { IPAddressPool, Labels, Service } from '../model';
import { type ApiService, apiServiceKey } from './api-objects';
import { type ControllerEvent, deprecatedAnnotationEvent } from './controller-events';
import { type Precheck, type PrecheckReason, precheckService } from './service-prechecks';
import { type DesiredAddresses, serviceDifferences, serviceWithAddresses } from './service-status';
import { modelService } from './service-view';
import { LEGACY_ANNOTATION_PREFIX } from '../model';

export interface ControllerOptions {
  /** --lb-class: handle only Services of this class; undefined or "": only Services without one. */
  readonly lbClass?: string;
}

/** What the controller decided for one service last time, to hold its addresses and spot transitions. */
export interface RememberedService {
  readonly uid: string;
  readonly ips: readonly IP[];
  readonly outcome: string;
}

export interface ControllerMemory {
  readonly services: ReadonlyMap<string, RememberedService>;
}

export const EMPTY_MEMORY: ControllerMemory = { services: new Map() };

export interface ReconcileInput {
  /** The configuration's pools; undefined while no configuration was ever loaded (then nothing is decided). */
  readonly pools: readonly IPAddressPool[] | undefined;
  /** namespace -> labels, for serviceAllocation.namespaceSelectors. */
  readonly namespaceLabels?: ReadonlyMap<string, Labels>;
  readonly services: readonly ApiService[];
  readonly options: ControllerOptions;
  readonly memory: ControllerMemory;
}

export type DecisionReason = PrecheckReason | 'allocated' | 'allocationFailed';

export interface ServiceDecision {
  readonly service: string;
  readonly reason: DecisionReason;
  /** Why, in words (MetalLB's texts where it has one). */
  readonly message: string;
  /** undefined: leave the Service as it is. */
  readonly desired?: DesiredAddresses;
  /** The whole Service to PUT on /status; undefined when nothing differs. */
  readonly write?: ApiService;
  /** What the write changes ("status.loadBalancer", "metadata.annotations"). */
  readonly differences: readonly string[];
  /** To emit now, in MetalLB's order; when the outcome did not change, only a failure's warnings (repeats). */
  readonly events: readonly ControllerEvent[];
  readonly result?: AllocationResult;
}

export interface ReleasedService {
  readonly service: string;
  readonly ips: readonly IP[];
  readonly message: string;
}

export interface ReconcileOutput {
  /** undefined while there is no configuration: nothing was decided (MetalLB waits for its first config). */
  readonly waiting?: string;
  /** Handled services, in key order; Services of another loadBalancerClass are not listed. */
  readonly decisions: readonly ServiceDecision[];
  /** Services this controller had given addresses that are gone from the API. */
  readonly released: readonly ReleasedService[];
  readonly usage: readonly PoolUsage[];
  readonly memory: ControllerMemory;
}

/** filterByLoadBalancerClass (MetalLB internal/k8s/controllers/service_controller.go). */
function handlesClass(service: ApiService, options: ControllerOptions): boolean {
  return (service.spec?.loadBalancerClass ?? '') === (options.lbClass ?? '');
}

export function reconcileServices(input: ReconcileInput): ReconcileOutput {
  if (input.pools === undefined) {
    return { waiting: 'no configuration loaded yet', decisions: [], released: [], usage: [], memory: input.memory };
  }
  const handled = input.services.filter((s) => handlesClass(s, input.options));
  const remembered = (s: ApiService): RememberedService | undefined => {
    const r = input.memory.services.get(apiServiceKey(s));
    return r !== undefined && r.uid === (s.metadata.uid ?? '') ? r : undefined;
  };

  const prechecks = new Map<string, Precheck>();
  const models: Service[] = [];
  for (const api of handled) {
    const key = apiServiceKey(api);
    if (input.pools.length === 0) {
      // No pools: every service goes to the allocator, which fails them all with noPools (MetalLB's noConfig).
      models.push(modelService(api, [], []));
      continue;
    }
    const check = precheckService(api, remembered(api)?.ips);
    prechecks.set(key, check);
    if (check.kind === 'allocate') models.push(modelService(api, check.families, check.held));
  }
  const run = allocateServices({
    pools: input.pools,
    services: models,
    ...(input.namespaceLabels && { namespaceLabels: input.namespaceLabels }),
    ...(input.options.lbClass && { lbClass: input.options.lbClass }),
  });

  const decisions: ServiceDecision[] = [];
  const memory = new Map<string, RememberedService>();
  for (const api of [...handled].sort((a, b) => compareKeys(apiServiceKey(a), apiServiceKey(b)))) {
    const key = apiServiceKey(api);
    const check = prechecks.get(key);
    const result = run.results.get(key);
    const base = check?.kind === 'decided' ? fromPrecheck(check) : fromResult(result as AllocationResult, check?.events ?? []);
    const decision = finishDecision(api, key, base, remembered(api)?.outcome);
    decisions.push(decision);
    const ips = decision.desired?.kind === 'assigned' ? decision.desired.ips : [];
    memory.set(key, { uid: api.metadata.uid ?? '', ips, outcome: base.outcome });
  }

  const released: ReleasedService[] = [];
  for (const [key, before] of input.memory.services) {
    if (memory.has(key) || before.ips.length === 0) continue;
    const ips = before.ips.map(formatIP).join(', ');
    released.push({ service: key, ips: before.ips, message: `service ${key} deleted: released ${ips}` });
  }
  return { decisions, released, usage: run.usage, memory: { services: memory } };
}

interface BaseDecision {
  readonly reason: DecisionReason;
  readonly message: string;
  readonly desired?: DesiredAddresses;
  readonly events: readonly ControllerEvent[];
  readonly result?: AllocationResult;
  /** Compared with the last pass's to tell a transition from a repeat. */
  readonly outcome: string;
}

function fromPrecheck(check: Extract<Precheck, { kind: 'decided' }>): BaseDecision {
  return {
    reason: check.reason,
    message: check.message,
    ...(check.outcome === 'cleared' && { desired: { kind: 'cleared' } as const }),
    events: check.events,
    outcome: `${check.reason}|${check.message}`,
  };
}

function fromResult(result: AllocationResult, before: readonly ControllerEvent[]): BaseDecision {
  if (result.status === 'assigned') {
    const ips = result.ips.map(formatIP).join(',');
    return {
      reason: 'allocated',
      message: `${result.reason}: ${ips} from pool ${result.pool}`,
      desired: { kind: 'assigned', ips: result.ips, pool: result.pool },
      events: [...before, ...result.events],
      result,
      outcome: `assigned|${ips}|${result.pool}`,
    };
  }
  if (result.status === 'failed') {
    // No pools at all: MetalLB clears every service and logs "noConfig", it emits no event.
    const events = result.code === 'noPools' ? [] : [...before, ...result.events];
    return {
      reason: 'allocationFailed',
      message: result.event,
      desired: { kind: 'cleared' },
      events,
      result,
      outcome: `failed|${result.error}`,
    };
  }
  // Skipped by the allocator cannot happen for a handled LoadBalancer; treat it as MetalLB's notLoadBalancer.
  return {
    reason: 'notLoadBalancer',
    message: result.message,
    desired: { kind: 'cleared' },
    events: [],
    result,
    outcome: `skipped|${result.reason}`,
  };
}

/** Decisions that are failures: MetalLB's convergeBalancer reports them (Errorf) on every pass, not only the first. */
const FAILING_REASONS: ReadonlySet<DecisionReason> = new Set<DecisionReason>([
  'allocationFailed',
  'notEnoughClusterIPs',
  'clusterFamilyUnknown',
  'clusterFamilyFailed',
]);

function finishDecision(api: ApiService, key: string, base: BaseDecision, lastOutcome: string | undefined): ServiceDecision {
  const next = base.desired === undefined ? undefined : serviceWithAddresses(api, base.desired);
  const differences = next === undefined ? [] : serviceDifferences(api, next);
  const transition = lastOutcome !== base.outcome;
  const deprecated = differences.length > 0 ? deprecatedAnnotations(api).map(deprecatedAnnotationEvent) : [];
  return {
    service: key,
    reason: base.reason,
    message: base.message,
    ...(base.desired && { desired: base.desired }),
    ...(next && differences.length > 0 && { write: next }),
    differences,
    events: transition ? [...base.events, ...deprecated] : repeatedEvents(base),
    ...(base.result && { result: base.result }),
  };
}

/** What a pass that changes nothing for the service emits: a failure's warnings again, nothing otherwise. */
function repeatedEvents(base: BaseDecision): readonly ControllerEvent[] {
  return FAILING_REASONS.has(base.reason) ? base.events.filter((e) => e.type === 'Warning') : [];
}

/** metallb.universe.tf/ annotations present on the Service, sorted (Go iterates its map in random order). */
function deprecatedAnnotations(api: ApiService): string[] {
  return Object.keys(api.metadata.annotations ?? {})
    .filter((k) => k.startsWith(LEGACY_ANNOTATION_PREFIX))
    .sort();
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
