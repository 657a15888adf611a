/**
 * The allocator's turn when a reload only added services: the cost of the services added, not of the 10,000
 * already allocated. Pure.
 *
 * allocateFromTable on a table it has already settled (its previous run changed nothing, and every service was
 * kept as held: no failure, no fresh allocation) ends in a state where each held address is kept. Running it
 * again with more services that request nothing, hold nothing (no table entry, not even a released one, no
 * status address) and are LoadBalancers does the same for the old ones, in the same order, and then allocates
 * the new ones afresh by key (allocate-services.ts, step 3) on that same state: exactly what this does, from the
 * previous run's final state. An added service that requests addresses nobody in that state uses is the same:
 * allocateServices takes it in step 1 after the services holding what they request and before the other holders,
 * and as its addresses touch nobody's, taking it after them instead changes nothing (added requesters first, by
 * key, then added fresh ones, by key, as there). Anything else (a changed or removed service, a table written
 * since, pools changed, a withheld release, an entry expiring now, a request for an address in use) answers
 * undefined and the caller runs allocateFromTable.
 * test/daemon/allocation/added-services.test.ts checks the equality on random configurations.
 */
import {
  type AllocateServicesOutput,
  type AllocationResult,
  type AllocatorState,
  batchPhase,
  planService,
  requestedIPs,
  skipReason,
} from '../../allocator';
import type { AssignedResult } from '../../allocator/results';
import { allocateFresh } from '../../allocator/service-steps';
import { finishFresh } from '../../allocator/allocate-service';
import { compareStrings } from '../../allocator';
import { formatIP } from '../../ip';
import { serviceKey, type Service, type Snapshot } from '../../model';
import type { TableAllocation } from './allocate-with-table';
import { type AllocationEntry, type AllocationTable, expireReleasedEntries, makeAllocationTable } from './allocation-table';
import type { AddressClaims, Claim } from './claim-addresses';

/** A finished allocateFromTable run, with what it was run on. */
export interface SettledRun {
  readonly snapshot: Pick<Snapshot, 'pools' | 'services'>;
  /** The table the run was given (its output too: a settled run changes nothing). */
  readonly table: AllocationTable;
  readonly self: string;
  readonly allocation: TableAllocation;
}

/**
 * The settled run a finished run leads to: the run itself when it changed nothing and allocated nothing afresh;
 * when it only gave new single-stack services their first addresses, what allocateFromTable returns next on its
 * own output (each of those kept as held from the table it wrote, nothing else different); otherwise undefined.
 */
export function settledRun(
  snapshot: Pick<Snapshot, 'pools' | 'services'>,
  given: AllocationTable,
  self: string,
  allocation: TableAllocation,
): SettledRun | undefined {
  if (allocation.withheld.length > 0) return undefined;
  const fresh = new Map<string, AssignedResult>();
  for (const result of allocation.results.results.values()) {
    if (result.status === 'failed') return undefined;
    if (result.status === 'assigned' && result.reason !== 'kept') fresh.set(result.service, result);
  }
  if (fresh.size === 0) {
    return allocation.changed || allocation.table !== given ? undefined : { snapshot, table: given, self, allocation };
  }
  const byKey = new Map(snapshot.services.map((s) => [serviceKey(s), s]));
  const firstAllocations = allocation.changes.every((c) => c.before === undefined && fresh.has(c.service) && !c.after.released);
  if (!firstAllocations || allocation.changes.length !== fresh.size) return undefined;
  const results = new Map(allocation.results.results);
  const claims = new Map(allocation.claims.claims);
  const held = new Map(allocation.claims.previous);
  for (const [key, result] of fresh) {
    const service = byKey.get(key);
    // A PreferDualStack service with one family would try the other again as a holder (allocate-services.ts,
    // step 2), and a cleared holder's events would differ: only plain first allocations settle here.
    if (!service || service.ipFamilyPolicy !== 'SingleStack' || result.cleared !== undefined || result.added !== undefined)
      return undefined;
    const entry = allocation.table.entries.get(key) as AllocationEntry;
    results.set(key, { status: 'assigned', service: key, ips: result.ips, pool: result.pool, reason: 'kept', events: [] });
    // The claim pass reads a service that requests its addresses as a requester, whatever the table holds.
    const claim: Claim =
      requestedIPs(service).kind === 'ips'
        ? { kind: 'requested', ips: result.ips, pool: result.pool }
        : { kind: 'held', ips: result.ips, pool: result.pool, source: 'table', entry };
    claims.set(key, claim);
    held.set(key, result.ips);
  }
  const settled: TableAllocation = {
    table: allocation.table,
    results: { ...allocation.results, results },
    changed: false,
    changes: [],
    claims: { claims, previous: held },
    withheld: [],
  };
  return { snapshot, table: allocation.table, self, allocation: settled };
}

/**
 * allocateFromTable(snapshot, table, self, now, holders) when `snapshot` only adds fresh services to a settled
 * run's; undefined otherwise.
 */
export function allocateAdded(
  previous: SettledRun,
  snapshot: Pick<Snapshot, 'pools' | 'services'>,
  table: AllocationTable,
  self: string,
  now: number,
): TableAllocation | undefined {
  if (snapshot.pools !== previous.snapshot.pools || table !== previous.table || self !== previous.self) return undefined;
  if (expireReleasedEntries(table, now) !== table) return undefined;
  const run = previous.allocation.results;
  const added = addedServices(previous.snapshot.services, snapshot.services, table, run.state);
  if (added === undefined) return undefined;
  if (added.length === 0) return previous.allocation;

  let state = run.state;
  const results = new Map(run.results);
  const claims = new Map(previous.allocation.claims.claims);
  const held = new Map(previous.allocation.claims.previous);
  // allocateServices's order among the added: requesters (step 1), then fresh ones (step 3), each by key.
  const plans = added
    .map((service) => planService(service, []))
    .sort((a, b) => batchPhase(a) - batchPhase(b) || compareStrings(a.key, b.key));
  for (const plan of plans) {
    const step = finishFresh(allocateFresh(state, plan), plan.key, [], undefined);
    state = step.state;
    results.set(plan.key, step.result);
    claims.set(plan.key, plan.request.kind === 'ips' ? requesterClaim(step.result) : { kind: 'none' });
    held.set(plan.key, []);
  }

  const version = table.version + 1;
  const entries = new Map(table.entries);
  const changes = [];
  for (const plan of plans) {
    const result = results.get(plan.key) as AllocationResult;
    if (result.status !== 'assigned') continue;
    const after: AllocationEntry = { ips: result.ips.map(formatIP), version, writer: self, at: now, released: false };
    entries.set(plan.key, after);
    changes.push({ service: plan.key, after });
  }
  changes.sort((a, b) => compareStrings(a.service, b.service)); // by key, as allocateFromTable lists them
  const changed = changes.length > 0;
  const output: AllocateServicesOutput = { results: sortedByKey(results), usage: state.usage(), state };
  const addressClaims: AddressClaims = { claims: sortedByKey<Claim>(claims), previous: held };
  return {
    table: changed ? makeAllocationTable(version, self, entries) : table,
    results: output,
    changed,
    changes,
    claims: addressClaims,
    withheld: [],
  };
}

/** What the claim pass says of a requester allocated afresh (claim-addresses.ts). */
function requesterClaim(result: AllocationResult): Claim {
  if (result.status === 'assigned') return { kind: 'requested', ips: result.ips, pool: result.pool };
  if (result.status === 'failed') return { kind: 'requestFailed', code: result.code, error: result.error };
  throw new Error(`allocateAdded: ${result.service} was skipped, yet addedServices admitted it`);
}

/**
 * The services of `after` that are not in `before`, when `after` holds every service of `before` (the same
 * objects) and each new one would be allocated afresh, or requests addresses no service uses in `state` (the
 * previous run's final state); undefined otherwise.
 */
function addedServices(
  before: readonly Service[],
  after: readonly Service[],
  table: AllocationTable,
  state: AllocatorState,
): Service[] | undefined {
  const old = new Set(before);
  const oldKeys = new Set(before.map(serviceKey));
  const added: Service[] = [];
  let kept = 0;
  for (const service of after) {
    if (old.has(service)) {
      kept++;
      continue;
    }
    const key = serviceKey(service);
    if (oldKeys.has(key) || table.entries.has(key)) return undefined;
    if (skipReason(service, undefined) !== undefined || service.ingressIPs.length > 0) return undefined;
    const request = requestedIPs(service);
    if (request.kind === 'invalid') return undefined;
    if (request.kind === 'ips' && request.ips.some((ip) => state.addressUse(ip) !== undefined)) return undefined;
    added.push(service);
  }
  if (kept !== before.length || new Set(added.map(serviceKey)).size !== added.length) return undefined;
  return added;
}

function sortedByKey<V>(map: ReadonlyMap<string, V>): Map<string, V> {
  return new Map([...map.entries()].sort(([a], [b]) => compareStrings(a, b)));
}
