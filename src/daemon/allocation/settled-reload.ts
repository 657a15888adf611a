/**
 * The allocator's turn after a reload that added, removed or rewrote a few services: the cost of those, not of
 * the 10,000 already allocated. Pure.
 *
 * allocateFromTable on a table it has already settled (its previous run changed nothing, and every service was
 * kept as held: no failure, no fresh allocation) ends in a state where each held address is kept. From there:
 * - an added service that requests nothing and holds nothing (no table entry, not even a released one, no status
 *   address) is allocated afresh by key (allocate-services.ts, step 3) on that same state;
 * - an added service that requests addresses nobody in that state uses is the same: allocateServices takes it in
 *   step 1, after the services holding what they request and before the other holders, and as its addresses
 *   touch nobody's, taking it after them changes nothing (added requesters first, by key, then fresh ones);
 * - a removed service that no live member's file still defines frees its addresses and its entry is released,
 *   as the full turn does; nothing else moves, since no settled service was waiting for an address (one that
 *   shared its addresses with another takes the full turn);
 * - a service rewritten in what allocation never reads (its selector, externalTrafficPolicy, where it was written)
 *   keeps its result.
 * Anything else (a service changed in what allocation reads, a table written since, pools changed, a withheld
 * release, an entry expiring now, a request for an address in use) answers undefined and the caller runs
 * allocateFromTable. test/daemon/allocation/settled-reload.test.ts checks the equality on random configurations.
 */
import { isDeepStrictEqual } from 'node:util';
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
import type { ServiceHolders, TableAllocation, TableChange } from './allocate-with-table';
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
 * allocateFromTable(snapshot, table, self, now, holders) when `snapshot` changes a settled run's services only as
 * the header says; undefined otherwise.
 */
export function allocateReload(
  previous: SettledRun,
  snapshot: Pick<Snapshot, 'pools' | 'services'>,
  table: AllocationTable,
  self: string,
  now: number,
  holders: ServiceHolders = () => [],
): TableAllocation | undefined {
  if (snapshot.pools !== previous.snapshot.pools || table !== previous.table || self !== previous.self) return undefined;
  if (expireReleasedEntries(table, now) !== table) return undefined;
  const run = previous.allocation.results;
  const delta = reloadDelta(previous.snapshot.services, snapshot.services, table, run.state, holders);
  if (delta === undefined) return undefined;
  if (delta.added.length === 0 && delta.removed.length === 0) return previous.allocation;

  let state = run.state;
  const results = new Map(run.results);
  const claims = new Map(previous.allocation.claims.claims);
  const held = new Map(previous.allocation.claims.previous);
  for (const key of delta.removed) {
    state = state.unassign(key);
    results.delete(key);
    claims.delete(key);
    held.delete(key);
  }
  // allocateServices's order among the added: requesters (step 1), then fresh ones (step 3), each by key.
  const plans = delta.added
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
  const changes: TableChange[] = [];
  for (const plan of plans) {
    const result = results.get(plan.key) as AllocationResult;
    if (result.status !== 'assigned') continue;
    const after: AllocationEntry = { ips: result.ips.map(formatIP), version, writer: self, at: now, released: false };
    entries.set(plan.key, after);
    changes.push({ service: plan.key, after });
  }
  for (const key of delta.removed) {
    const before = table.entries.get(key);
    if (before === undefined || before.released) continue;
    const after: AllocationEntry = { ips: before.ips, version, writer: self, at: now, released: true };
    entries.set(key, after);
    changes.push({ service: key, before, after });
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
  throw new Error(`allocateReload: ${result.service} was skipped, yet reloadDelta admitted it`);
}

/** What a reload changed, when allocateReload can take it from the settled run. */
interface ReloadDelta {
  /** Services to allocate, in no particular order. */
  readonly added: readonly Service[];
  /** Keys of services gone from the file. */
  readonly removed: readonly string[];
}

/**
 * How `after` differs from `before`, when every difference is one allocateReload takes (the header's list);
 * undefined otherwise. `state`: the settled run's final state.
 */
function reloadDelta(
  before: readonly Service[],
  after: readonly Service[],
  table: AllocationTable,
  state: AllocatorState,
  holders: ServiceHolders,
): ReloadDelta | undefined {
  const old = new Set(before);
  const oldByKey = new Map(before.map((s) => [serviceKey(s), s]));
  const added: Service[] = [];
  const afterKeys = new Set<string>();
  for (const service of after) {
    const key = serviceKey(service);
    if (afterKeys.has(key)) return undefined;
    afterKeys.add(key);
    if (old.has(service)) continue;
    const was = oldByKey.get(key);
    if (was !== undefined) {
      if (!sameAllocationInputs(was, service)) return undefined;
      continue;
    }
    if (table.entries.has(key)) return undefined;
    if (skipReason(service, undefined) !== undefined || service.ingressIPs.length > 0) return undefined;
    const request = requestedIPs(service);
    if (request.kind === 'invalid') return undefined;
    if (request.kind === 'ips' && request.ips.some((ip) => state.addressUse(ip) !== undefined)) return undefined;
    added.push(service);
  }
  const removed: string[] = [];
  for (const key of oldByKey.keys()) {
    if (afterKeys.has(key)) continue;
    const entry = table.entries.get(key);
    if (entry !== undefined && !entry.released && holders(key).length > 0) return undefined; // withheld, not released
    const ips = state.allocation(key)?.ips ?? [];
    if (ips.some((ip) => (state.addressUse(ip)?.users.length ?? 0) > 1)) return undefined;
    removed.push(key);
  }
  return { added, removed };
}

/**
 * The fields of a Service that allocation never reads: which pods serve it, how traffic reaches them, where it
 * was written. Everything else (type, class, ports for sharing, families, requests, labels for pool selectors,
 * annotations, status addresses) counts.
 */
function sameAllocationInputs(a: Service, b: Service): boolean {
  const { selector: _as, externalTrafficPolicy: _ae, fieldPositions: _af, meta: am, ...ar } = a;
  const { selector: _bs, externalTrafficPolicy: _be, fieldPositions: _bf, meta: bm, ...br } = b;
  const { position: _ap, ...ameta } = am;
  const { position: _bp, ...bmeta } = bm;
  return isDeepStrictEqual(ar, br) && isDeepStrictEqual(ameta, bmeta);
}

function sortedByKey<V>(map: ReadonlyMap<string, V>): Map<string, V> {
  return new Map([...map.entries()].sort(([a], [b]) => compareStrings(a, b)));
}
