/**
 * Who allocates, and which addresses every service has on this node. Pure; the daemon calls it after every
 * change of the configuration, the live members or the table.
 *
 * - The allocator (allocator-node.ts) runs allocateFromTable and publishes the table it returns.
 * - Every other node takes a service's addresses from the table, after the same claim pass the allocator runs,
 *   so it agrees with the allocator's next table even before that arrives.
 * - Explicit addresses come from the configuration itself on every node, so they work before any table has
 *   arrived and whatever an old table says.
 * - A service the table does not know yet has no address on a non-allocator: it waits for the allocator,
 *   rather than guessing an address another node might guess differently.
 * - The allocator itself follows its table, as every other node does, while it may not write yet (it has not
 *   heard the cluster, or still holds its allocations.json aside: allocation-table-sharing.ts): a fresh allocation from a
 *   table that is not the cluster's would give running services other addresses.
 */
import type { AllocateServicesOutput, AllocationErrorCode, AllocationResult } from '../../allocator';
import { type IP, formatIP } from '../../ip';
import type { Snapshot } from '../../model';
import { type AllocationEntry, type AllocationTable, expireReleasedEntries } from './allocation-table';
import { type ServiceHolders, type TableChange, type WithheldRelease, allocateFromTable } from './allocate-with-table';
import { chooseAllocator } from './allocator-node';
import { allocateReload, settledRun, type SettledRun } from './settled-reload';
import { type Claim, claimAddresses } from './claim-addresses';

export const AllocationStatusCode = {
  /** Explicit addresses (metallb.io/loadBalancerIPs or spec.loadBalancerIP), from the configuration. */
  requested: 'requested',
  /** This node is the allocator and gave (or kept) these addresses. */
  allocated: 'allocated',
  /** The allocator's table gives these addresses. */
  fromTable: 'fromTable',
  /** No table entry yet: the allocator has not allocated it, or its table has not arrived. */
  waitingForAllocator: 'waitingForAllocator',
  /** Its table addresses are held by an explicit request or an older entry; the allocator will give others. */
  addressTaken: 'addressTaken',
  /** Its table addresses are not allowed by this node's configuration (pool gone, family changed...). */
  notAllowed: 'notAllowed',
  /** Allocation failed (the allocator's verdict, or an explicit request that cannot be had). */
  failed: 'failed',
  /** Not a LoadBalancer service, or one of another loadBalancerClass. */
  skipped: 'skipped',
} as const;
export type AllocationStatusCode = (typeof AllocationStatusCode)[keyof typeof AllocationStatusCode];

export interface ServiceAllocationStatus {
  readonly service: string;
  readonly code: AllocationStatusCode;
  /** The addresses the service uses on this node; empty unless requested, allocated or fromTable. */
  readonly ips: readonly IP[];
  readonly pool?: string;
  readonly message: string;
  /** For failed: the allocator's error code. */
  readonly errorCode?: AllocationErrorCode;
  /** For fromTable: the table entry read. */
  readonly entry?: AllocationEntry;
}

/** Shaped like cluster-decision.ts ServiceAddresses. */
export interface ServiceAddresses {
  readonly ips: readonly IP[];
  readonly pool?: string;
}

export interface EffectiveAllocation {
  /** The first live node in hash order for "mlb-allocator" (this node counts as live). */
  readonly allocator: string;
  readonly iAmAllocator: boolean;
  /** The table to use: the allocator's new one on the allocator (publish it when `changed`), the input elsewhere. */
  readonly table: AllocationTable;
  /** Only on the allocator: the table got a new version; persist and publish it. */
  readonly changed: boolean;
  readonly changes: readonly TableChange[];
  /** Services that have addresses, by key. */
  readonly ips: ReadonlyMap<string, readonly IP[]>;
  readonly addresses: ReadonlyMap<string, ServiceAddresses>;
  /** Every service of the configuration, with its reason. */
  readonly services: ReadonlyMap<string, ServiceAllocationStatus>;
  readonly reason: { readonly code: 'allocating' | 'following'; readonly message: string };
  /** On the allocator: allocateServices's output (Kubernetes-style events, pool usage). */
  readonly results?: AllocateServicesOutput;
  /** On the allocator: entries of services its file lacks, kept because other live members define them. */
  readonly withheld: readonly WithheldRelease[];
  /** What the next call may reuse of this one (pass it back as `previous`). */
  readonly reusable?: ReusableAllocation;
}

/**
 * The allocator's settled run (a reload that only adds services extends it), or a follower's whole answer with
 * what it was computed from (a recomputation on the same configuration and table gives the same answer: a
 * membership change need not replay the claim pass over every service).
 */
export type ReusableAllocation =
  | {
      readonly kind: 'settled';
      readonly run: SettledRun;
      /** The answer made of that run's allocation, when the last call returned it: given back while it stays. */
      readonly answered?: EffectiveAllocation;
    }
  | {
      readonly kind: 'following';
      readonly snapshot: Pick<Snapshot, 'pools' | 'services'>;
      readonly table: AllocationTable;
      readonly allocator: string;
      readonly answer: EffectiveAllocation;
    };

export function effectiveAllocation(
  snapshot: Pick<Snapshot, 'pools' | 'services'>,
  table: AllocationTable,
  liveNodes: readonly string[],
  self: string,
  now: number,
  holders?: ServiceHolders,
  mayWrite = true,
  previous?: ReusableAllocation,
): EffectiveAllocation {
  const allocator = chooseAllocator([...liveNodes, self]) as string;
  if (allocator === self && mayWrite) {
    // A reload that added, removed or rewrote a few services costs what it changed (settled-reload.ts); anything
    // else runs in full.
    const settledBefore = previous?.kind === 'settled' ? previous.run : undefined;
    const run =
      (settledBefore && allocateReload(settledBefore, snapshot, table, self, now, holders)) ??
      allocateFromTable(snapshot, table, self, now, holders);
    // A membership change or a health report leaves the settled run as it was: its answer (a status line per
    // service, 10,000 at scale) stays what it was too.
    if (previous?.kind === 'settled' && run === previous.run.allocation && previous.answered)
      return { ...previous.answered, reusable: previous };
    const settled = settledRun(snapshot, table, self, run);
    const services = new Map([...run.results.results].map(([key, r]) => [key, statusOfResult(r)]));
    const answer: EffectiveAllocation = {
      allocator,
      iAmAllocator: true,
      table: run.table,
      changed: run.changed,
      changes: run.changes,
      ...withAddresses(services),
      reason: {
        code: 'allocating',
        message: run.changed
          ? `this node allocates (first in hash order for "mlb-allocator"); wrote table version ${run.table.version} (${run.changes.length} changed)`
          : `this node allocates (first in hash order for "mlb-allocator"); table version ${run.table.version} unchanged`,
      },
      results: run.results,
      withheld: run.withheld,
    };
    if (!settled) return answer;
    // Only an answer made of the settled run's own allocation can be given back for it.
    const answered = settled.allocation === run ? { answered: answer } : {};
    return { ...answer, reusable: { kind: 'settled', run: settled, ...answered } };
  }
  const current = expireReleasedEntries(table, now);
  if (
    previous?.kind === 'following' &&
    previous.snapshot === snapshot &&
    previous.table === current &&
    previous.allocator === allocator &&
    (allocator === self) === previous.answer.iAmAllocator
  ) {
    return { ...previous.answer, reusable: previous };
  }
  const answer = following(snapshot, current, allocator, self);
  return { ...answer, reusable: { kind: 'following', snapshot, table: current, allocator, answer } };
}

/** A follower's answer: the table's addresses after the claim pass every node runs. */
function following(
  snapshot: Pick<Snapshot, 'pools' | 'services'>,
  current: AllocationTable,
  allocator: string,
  self: string,
): EffectiveAllocation {
  const { claims } = claimAddresses(snapshot, current);
  const services = new Map([...claims].map(([key, c]) => [key, statusOfClaim(key, c, allocator)]));
  return {
    allocator,
    iAmAllocator: allocator === self,
    table: current,
    changed: false,
    changes: [],
    withheld: [],
    ...withAddresses(services),
    reason: {
      code: 'following',
      message:
        allocator === self
          ? `this node allocates (first in hash order for "mlb-allocator") once it has heard the cluster; until then it uses table version ${current.version}`
          : `${allocator} allocates (first in hash order for "mlb-allocator"); using table version ${current.version}${current.allocator ? ` from ${current.allocator}` : ''}`,
    },
  };
}

function withAddresses(
  services: ReadonlyMap<string, ServiceAllocationStatus>,
): Pick<EffectiveAllocation, 'ips' | 'addresses' | 'services'> {
  const ips = new Map<string, readonly IP[]>();
  const addresses = new Map<string, ServiceAddresses>();
  for (const [key, s] of services) {
    if (s.ips.length === 0) continue;
    ips.set(key, s.ips);
    addresses.set(key, { ips: s.ips, ...(s.pool !== undefined && { pool: s.pool }) });
  }
  return { ips, addresses, services };
}

const texts = (ips: readonly IP[]): string => ips.map(formatIP).join(', ');

function statusOfResult(r: AllocationResult): ServiceAllocationStatus {
  const service = r.service;
  if (r.status === 'skipped') return { service, code: AllocationStatusCode.skipped, ips: [], message: r.message };
  if (r.status === 'failed') return { service, code: AllocationStatusCode.failed, ips: [], errorCode: r.code, message: r.error };
  const code = r.reason === 'requested' ? AllocationStatusCode.requested : AllocationStatusCode.allocated;
  return { service, code, ips: r.ips, pool: r.pool, message: `${texts(r.ips)} from pool ${r.pool} (${r.reason})` };
}

function statusOfClaim(service: string, c: Claim, allocator: string): ServiceAllocationStatus {
  const waiting = `waiting for the allocator ${allocator}`;
  const notInTable: ServiceAllocationStatus = {
    service,
    code: AllocationStatusCode.waitingForAllocator,
    ips: [],
    message: `not in the allocation table yet; ${waiting}`,
  };
  // Only live table entries count here: a returning service's old addresses and status.loadBalancer.ingress in
  // the file are the allocator's to confirm.
  // A restored entry counts: after a cluster-wide restart every entry is restored, and the allocator keeps them.
  if ((c.kind === 'held' || c.kind === 'taken' || c.kind === 'refused') && c.source !== 'table' && c.source !== 'restored')
    return notInTable;
  switch (c.kind) {
    case 'skipped':
      return { service, code: AllocationStatusCode.skipped, ips: [], message: c.message };
    case 'requested':
      return {
        service,
        code: AllocationStatusCode.requested,
        ips: c.ips,
        pool: c.pool,
        message: `${texts(c.ips)} requested, from pool ${c.pool}`,
      };
    case 'requestFailed':
      return { service, code: AllocationStatusCode.failed, ips: [], errorCode: c.code, message: c.error };
    case 'noPools':
      return { service, code: AllocationStatusCode.failed, ips: [], errorCode: 'noPools', message: c.error };
    case 'held':
      if (c.entry === undefined) return notInTable;
      return {
        service,
        code: AllocationStatusCode.fromTable,
        ips: c.ips,
        pool: c.pool,
        entry: c.entry,
        message: c.entry.restored
          ? `${texts(c.ips)} from the allocation table (restored from allocations.json, written by ${c.entry.writer} at version ${c.entry.version} of an earlier table)`
          : `${texts(c.ips)} from the allocation table (written by ${c.entry.writer} at version ${c.entry.version})`,
      };
    case 'taken': {
      const holder = c.byRequest ? 'an explicit request' : 'an older allocation';
      return {
        service,
        code: AllocationStatusCode.addressTaken,
        ips: [],
        message: `${texts(c.ips)} is held by ${c.by.join(', ')} (${holder}); ${waiting} to give it another`,
      };
    }
    case 'refused': {
      const why = c.cleared?.error ?? c.cleared?.reason ?? 'not allowed';
      return {
        service,
        code: AllocationStatusCode.notAllowed,
        ips: [],
        message: `table addresses ${texts(c.ips)} are not allowed by this configuration (${why}); ${waiting}`,
      };
    }
    case 'none':
      return notInTable;
  }
}
