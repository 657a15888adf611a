/**
 * Who may keep which address when the table and the configuration are read together. Pure.
 *
 * After a partition heals, the merged table can name one address for two services that may not share it (each
 * side's allocator gave it away). allocateServices would settle that by service key; mlb settles it by age: the
 * older entry, by (version, writer), keeps the address and the younger one is allocated anew, because the
 * older allocation is the one clients have been using longer. Explicit addresses (metallb.io/loadBalancerIPs,
 * spec.loadBalancerIP) beat every table entry, as they beat every held address in allocateServices.
 *
 * The claim pass replays allocateServices's first step in that order with the allocator's own steps (keepHeld,
 * allocateFresh): requested addresses first, in allocateServices's order, then held ones oldest first. Its
 * output serves twice:
 * - the allocator feeds `previous` to allocateServices: only addresses that survived the pass, so the winners
 *   are mutually compatible and allocateServices keeps every one of them, whatever their key order;
 * - every other node reads the claims directly, and so agrees with the allocator's next table before it
 *   arrives (a loser is not announced twice in the meantime).
 */
import {
  AllocatorState,
  AllocationErrorCode,
  batchPhase,
  type ClearedAssignment,
  type SkipReason,
  allocationErrors,
  requestedIPs,
} from '../../allocator';
import { allocateFresh, keepHeld, planService, type ServicePlan, skipMessage, skipReason } from '../../allocator/service-steps';
import { type IP, parseIP } from '../../ip';
import { type IPAddressPool, type Service, serviceKey } from '../../model';
import { compareStrings } from '../../allocator';
import { type AllocationEntry, type AllocationTable, compareEntries } from './allocation-table';

/** Where a service's held addresses came from. */
export type HeldSource =
  /** A live table entry. */
  | 'table'
  /** An entry restored from allocations.json into a gap (restore-allocations.ts): kept when nothing live clashes. */
  | 'restored'
  /** The tombstone of a service that was removed and came back: its old addresses, if still free. */
  | 'released'
  /** status.loadBalancer.ingress in the file, for a service the table does not know. */
  | 'status';

export type Claim =
  | { readonly kind: 'skipped'; readonly reason: SkipReason; readonly message: string }
  /** Explicit addresses, assignable. */
  | { readonly kind: 'requested'; readonly ips: readonly IP[]; readonly pool: string }
  /** Explicit addresses that cannot be had: unreadable, outside every pool, taken by another request... */
  | { readonly kind: 'requestFailed'; readonly code: AllocationErrorCode; readonly error: string }
  | {
      readonly kind: 'held';
      readonly ips: readonly IP[];
      readonly pool: string;
      readonly source: HeldSource;
      readonly entry?: AllocationEntry;
    }
  /** Held addresses another service keeps: an explicit request, or an older entry. */
  | {
      readonly kind: 'taken';
      readonly ips: readonly IP[];
      readonly source: HeldSource;
      readonly by: readonly string[];
      readonly byRequest: boolean;
    }
  /** Held addresses this configuration does not allow the service any more (pool gone, family changed...). */
  | { readonly kind: 'refused'; readonly ips: readonly IP[]; readonly source: HeldSource; readonly cleared?: ClearedAssignment }
  /** Nothing requested, nothing held. */
  | { readonly kind: 'none' }
  | { readonly kind: 'noPools'; readonly error: string };

export interface AddressClaims {
  /** Every service of the configuration, by key. */
  readonly claims: ReadonlyMap<string, Claim>;
  /** allocateServices's `previous`: every service it will allocate, with what it may hold ([] for nothing). */
  readonly previous: ReadonlyMap<string, readonly IP[]>;
}

export interface ClaimInput {
  readonly pools: readonly IPAddressPool[];
  readonly services: readonly Service[];
}

interface Holder {
  readonly plan: ServicePlan;
  readonly source: HeldSource;
  readonly entry: AllocationEntry | undefined;
}

const SOURCE_RANK: Record<HeldSource, number> = { table: 0, restored: 1, released: 2, status: 3 };

/**
 * Live table entries oldest first, then restored ones (a file's stamps say nothing about age next to the running
 * cluster's), then returning services' old addresses, then addresses only the file records.
 */
function compareHolders(a: Holder, b: Holder): number {
  const bySource = SOURCE_RANK[a.source] - SOURCE_RANK[b.source];
  if (bySource !== 0) return bySource;
  const byAge = a.entry && b.entry ? compareEntries(a.entry, b.entry) : 0;
  return byAge || compareStrings(a.plan.key, b.plan.key);
}

/** The entry's addresses as IPs; undefined if one does not parse (a decoded table never has such an entry). */
function entryIPs(entry: AllocationEntry): IP[] | undefined {
  const ips: IP[] = [];
  for (const text of entry.ips) {
    const ip = parseIP(text);
    if (ip === undefined) return undefined;
    ips.push(ip);
  }
  return ips;
}

function heldFor(service: Service, entry: AllocationEntry | undefined, explicit: boolean): { ips: readonly IP[]; source: HeldSource } {
  const ips = entry ? entryIPs(entry) : undefined;
  if (entry && ips && !entry.released) return { ips, source: entry.restored ? 'restored' : 'table' };
  if (entry && ips && ips.length > 0 && !explicit) return { ips, source: 'released' };
  return { ips: service.ingressIPs, source: 'status' };
}

const SHARING_CODES: ReadonlySet<AllocationErrorCode> = new Set([AllocationErrorCode.sharingKeyConflict, AllocationErrorCode.portInUse]);

export function claimAddresses(input: ClaimInput, table: AllocationTable): AddressClaims {
  const claims = new Map<string, Claim>();
  const previous = new Map<string, readonly IP[]>();
  const requesters: ServicePlan[] = [];
  const holders: Holder[] = [];

  for (const service of input.services) {
    const key = serviceKey(service);
    const skip = skipReason(service, undefined);
    if (skip !== undefined) {
      claims.set(key, { kind: 'skipped', reason: skip, message: skipMessage(skip, service, undefined) });
      continue;
    }
    const entry = table.entries.get(key);
    const explicit = requestedIPs(service).kind !== 'none';
    const held = heldFor(service, entry, explicit);
    const plan = planService(service, held.ips);
    previous.set(key, held.ips);
    if (explicit) requesters.push(plan);
    else if (held.ips.length > 0) holders.push({ plan, source: held.source, entry });
    else claims.set(key, { kind: 'none' });
  }

  let state = AllocatorState.create(input.pools);
  if (!state.hasPools) {
    const error = allocationErrors.noPools().message;
    for (const [key, claim] of claims) if (claim.kind !== 'skipped') claims.set(key, { kind: 'noPools', error });
    for (const plan of [...requesters, ...holders.map((h) => h.plan)]) claims.set(plan.key, { kind: 'noPools', error });
    return { claims: sorted(claims), previous };
  }

  // Requested addresses, in allocateServices's order (phase, then key), with its steps.
  requesters.sort((a, b) => batchPhase(a) - batchPhase(b) || compareStrings(a.key, b.key));
  for (const plan of requesters) {
    const kept = keepHeld(state, plan);
    state = kept.state;
    if (kept.kind === 'kept') {
      claims.set(plan.key, { kind: 'requested', ips: plan.held, pool: kept.pool });
    } else if (kept.kind === 'failed') {
      claims.set(plan.key, { kind: 'requestFailed', code: kept.failure.code, error: kept.failure.error });
    } else {
      const fresh = allocateFresh(state, plan);
      state = fresh.state;
      claims.set(
        plan.key,
        fresh.ok
          ? { kind: 'requested', ips: fresh.ips, pool: fresh.pool }
          : { kind: 'requestFailed', code: fresh.failure.code, error: fresh.failure.error },
      );
    }
  }
  const requesting = new Set(requesters.map((p) => p.key));

  // Held addresses, oldest entry first.
  for (const holder of holders.sort(compareHolders)) {
    const { plan, source, entry } = holder;
    const kept = keepHeld(state, plan);
    state = kept.state;
    if (kept.kind === 'kept') {
      claims.set(plan.key, { kind: 'held', ips: plan.held, pool: kept.pool, source, ...(entry && { entry }) });
      continue;
    }
    const cleared = kept.kind === 'cleared' || kept.kind === 'failed' ? kept.cleared : undefined;
    if (source === 'released') {
      // A returning service gets its old addresses only when they are free and allowed; otherwise it is new.
      previous.set(plan.key, []);
      claims.set(plan.key, { kind: 'none' });
    } else if (cleared?.reason === 'notAllowed' && cleared.code !== undefined && SHARING_CODES.has(cleared.code)) {
      const by = usersOf(state, plan.held, plan.key);
      const byRequest = by.some((k) => requesting.has(k));
      // Lost to a request: allocateServices clears it with MetalLB's ClearAssignment event. Lost to an older
      // entry: it must not reach allocateServices, which would decide by key instead.
      if (!byRequest) previous.set(plan.key, []);
      claims.set(plan.key, { kind: 'taken', ips: plan.held, source, by, byRequest });
    } else {
      claims.set(plan.key, { kind: 'refused', ips: plan.held, source, ...(cleared && { cleared }) });
    }
  }
  return { claims: sorted(claims), previous };
}

function usersOf(state: AllocatorState, ips: readonly IP[], self: string): string[] {
  const users = new Set<string>();
  for (const ip of ips) for (const u of state.addressUse(ip)?.users ?? []) if (u.service !== self) users.add(u.service);
  return [...users].sort(compareStrings);
}

function sorted<V>(map: Map<string, V>): Map<string, V> {
  return new Map([...map.entries()].sort(([a], [b]) => compareStrings(a, b)));
}
