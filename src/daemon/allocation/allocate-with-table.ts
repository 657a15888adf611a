/**
 * The allocator's turn: the configuration and the current table in, the next table out. Pure.
 *
 * allocateServices does the allocating (MetalLB's semantics, explicit addresses first); the table supplies
 * what every service holds, after the claim pass settled clashes by age (claim-addresses.ts). What changes in
 * the table is exactly what changed for users:
 * - a service with new or different addresses gets a new entry stamped (table version + 1, this node, now);
 * - a service that is gone from the file is released only when no live member's file may still define it
 *   (`holders`, from the configuration facts every node gossips: config-facts/config-agreement.ts). Until then
 *   its entry stays as it is and its addresses stay reserved, so one node's file that lacks a service (a
 *   half-written file, an edit on one host) neither darkens nor moves its IP, even on the allocator;
 * - a service no longer a LoadBalancer, or failed (it holds nothing, as MetalLB's failed services hold nothing),
 *   or gone from every live member's file is released, as MetalLB releases a deleted Service's address; its
 *   tombstone remembers the addresses, so if it comes back before the tombstone expires it gets them again
 *   when nobody took them meanwhile (a file edit that drops a service by mistake and is put right);
 * - everything else keeps its entry and stamp, so running again on the output changes nothing and the version
 *   grows only when an allocation changed.
 */
import { type AllocateServicesOutput, allocateServices } from '../../allocator';
import { type IP, formatIP, parseIP } from '../../ip';
import { serviceKey, type Service, type Snapshot } from '../../model';
import { type AllocationEntry, type AllocationTable, expireReleasedEntries, makeAllocationTable, sameIPTexts } from './allocation-table';
import { type AddressClaims, claimAddresses } from './claim-addresses';

/** One entry the allocator wrote, with the one it replaced. */
export interface TableChange {
  readonly service: string;
  readonly before?: AllocationEntry;
  readonly after: AllocationEntry;
}

export interface TableAllocation {
  /** The table to persist and publish: a new version only when `changed`. */
  readonly table: AllocationTable;
  readonly results: AllocateServicesOutput;
  readonly changed: boolean;
  /** By service key. */
  readonly changes: readonly TableChange[];
  readonly claims: AddressClaims;
  /** Services gone from this node's file whose entries were kept, each with the members that still define it. */
  readonly withheld: readonly WithheldRelease[];
}

/** A release the allocator did not make, and why. */
export interface WithheldRelease {
  readonly service: string;
  readonly ips: readonly string[];
  /** Live members whose file defines the service (or whose facts have not arrived yet). */
  readonly definedBy: readonly string[];
  readonly message: string;
}

/** The live members whose configuration may still define a service key; empty: nobody's (release it). */
export type ServiceHolders = (service: string) => readonly string[];

export function allocateFromTable(
  snapshot: Pick<Snapshot, 'pools' | 'services'>,
  table: AllocationTable,
  self: string,
  now: number,
  holders: ServiceHolders = () => [],
): TableAllocation {
  const current = expireReleasedEntries(table, now);
  const withheld = withheldReleases(snapshot, current, holders);
  // Withheld entries take part as placeholders holding their addresses, so nothing new is given those addresses.
  const held = withheld.flatMap((w) => placeholderService(w) ?? []);
  const input = { pools: snapshot.pools, services: [...snapshot.services, ...held] };
  const claims = claimAddresses(input, current);
  const run = allocateServices({ pools: input.pools, services: input.services, previous: claims.previous });
  const withheldKeys = new Set(withheld.map((w) => w.service));
  const results = { ...run, results: new Map([...run.results].filter(([key]) => !withheldKeys.has(key))) };

  const version = current.version + 1;
  const write = (ips: readonly string[], released: boolean): AllocationEntry => ({ ips, version, writer: self, at: now, released });
  const entries = new Map(current.entries);
  const changes: TableChange[] = [];
  const record = (service: string, after: AllocationEntry): void => {
    const before = entries.get(service);
    entries.set(service, after);
    changes.push({ service, ...(before && { before }), after });
  };

  for (const [key, result] of results.results) {
    const before = current.entries.get(key);
    if (result.status === 'assigned') {
      const ips = result.ips.map(formatIP);
      if (before === undefined || before.released || !sameIPTexts(before.ips, ips)) record(key, write(ips, false));
    } else if (before !== undefined && !before.released) {
      record(key, write(before.ips, true));
    }
  }
  for (const [key, before] of current.entries) {
    if (!before.released && !results.results.has(key) && !withheldKeys.has(key)) record(key, write(before.ips, true));
  }

  const changed = changes.length > 0;
  const next = changed ? makeAllocationTable(version, self, entries) : current;
  changes.sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
  return { table: next, results, changed, changes, claims, withheld };
}

/** Live entries of services this node's file lacks that some live member may still define. */
function withheldReleases(snapshot: Pick<Snapshot, 'services'>, table: AllocationTable, holders: ServiceHolders): WithheldRelease[] {
  const inFile = new Set(snapshot.services.map(serviceKey));
  const out: WithheldRelease[] = [];
  for (const [service, entry] of table.entries) {
    if (entry.released || inFile.has(service)) continue;
    const definedBy = [...holders(service)];
    if (definedBy.length === 0) continue;
    out.push({
      service,
      ips: entry.ips,
      definedBy,
      message: `${service} (${entry.ips.join(', ')}) is not in this node's configuration but ${definedBy.join(', ')} still define${definedBy.length === 1 ? 's' : ''} it: keeping its allocation`,
    });
  }
  return out;
}

/**
 * A stand-in for a withheld service in the claim pass: a LoadBalancer of that name holding the entry's
 * addresses. Its annotations are unknown here, so an address it shares (metallb.io/allow-shared-ip) with a
 * service of this file counts as a clash, settled by age like any other.
 */
function placeholderService(w: WithheldRelease): Service | undefined {
  const ips = w.ips.map(parseIP);
  if (ips.length === 0 || ips.some((ip) => ip === undefined)) return undefined;
  const families = [...new Set((ips as IP[]).map((ip) => (ip.family === 4 ? 'IPv4' : 'IPv6') as 'IPv4' | 'IPv6'))];
  const [namespace, name] = splitKey(w.service);
  return {
    kind: 'Service',
    meta: { name, namespace, labels: {}, annotations: {} },
    type: 'LoadBalancer',
    ports: [],
    selector: {},
    externalTrafficPolicy: 'Cluster',
    ipFamilyPolicy: families.length > 1 ? 'RequireDualStack' : 'SingleStack',
    ipFamilies: families,
    ingressIPs: ips as IP[],
  };
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}
