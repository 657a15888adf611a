/**
 * A node whose file loses services that other live members still define keeps them, from the definition it
 * last ran, until no live member's file defines them any more. Pure.
 *
 * Why: the file on one host can be half-written or edited by mistake while the rest of the cluster still
 * serves the service. Withdrawing at once would darken the IP whenever this node is its owner (the others still
 * elect it); retaining keeps announcing, the warning names what is kept and who still defines it, and the
 * moment every live member agrees (the service is gone everywhere) the retained copy goes too and the allocator
 * releases the address. Retention never starts from nothing: a node that never ran the service has no
 * definition to announce from, and the others leave it out of that service's election instead
 * (config-agreement.ts lacking(), cluster-decision.ts).
 *
 * A retained service keeps the pools and advertisements of its last definition that the new file no longer
 * names (an emptied file names none), so it is announced exactly as before; objects the new file does name win.
 */
import { compareStrings } from '../../allocator';
import { serviceKey, type Snapshot } from '../../model';
import { hashServiceKey } from './config-digest';
import type { ConfigAgreement } from './config-agreement';
import { MAX_PUBLISHED_SERVICE_KEYS } from './config-facts-codec';

/** At most this many services are retained: their hashes must fit one facts record. */
const MAX_RETAINED_SERVICES = MAX_PUBLISHED_SERVICE_KEYS;

export interface RetainedService {
  readonly service: string;
  /** Live peers whose file still defines it. */
  readonly definedBy: readonly string[];
}

export interface Retention {
  /** The file's snapshot plus every retained service and what it needs: what this node elects on. */
  readonly snapshot: Snapshot;
  /** Sorted by service key. */
  readonly retained: readonly RetainedService[];
  /** Services dropped by the file that no live peer defines: let go (the allocator may release them). */
  readonly released: readonly string[];
}

export function retainServices(file: Snapshot, previous: Snapshot | undefined, agreement: ConfigAgreement): Retention {
  if (!previous) return { snapshot: file, retained: [], released: [] };
  const inFile = new Set(file.services.map(serviceKey));
  const retained: RetainedService[] = [];
  const kept: Snapshot['services'][number][] = [];
  const released: string[] = [];
  for (const service of previous.services) {
    const key = serviceKey(service);
    if (inFile.has(key)) continue;
    const definedBy = agreement.definers(hashServiceKey(key));
    if (definedBy.length === 0 || retained.length >= MAX_RETAINED_SERVICES) {
      released.push(key);
      continue;
    }
    retained.push({ service: key, definedBy });
    kept.push(service);
  }
  if (kept.length === 0) return { snapshot: file, retained, released };
  const snapshot: Snapshot = {
    ...file,
    services: byName([...file.services, ...kept]),
    pools: withMissing(file.pools, previous.pools),
    l2Advertisements: withMissing(file.l2Advertisements, previous.l2Advertisements),
    bgpAdvertisements: withMissing(file.bgpAdvertisements, previous.bgpAdvertisements),
    communities: withMissing(file.communities, previous.communities),
  };
  return { snapshot, retained, released };
}

interface Named {
  readonly meta: { readonly name: string; readonly namespace: string };
}

function withMissing<T extends Named>(current: readonly T[], previous: readonly T[]): readonly T[] {
  const names = new Set(current.map(id));
  const missing = previous.filter((o) => !names.has(id(o)));
  return missing.length === 0 ? current : byName([...current, ...missing]);
}

const id = (o: Named): string => `${o.meta.namespace}/${o.meta.name}`;

/** Snapshot lists are sorted by namespace then name (model/snapshot.ts). */
function byName<T extends Named>(objects: T[]): T[] {
  return objects.sort((a, b) => compareStrings(a.meta.namespace, b.meta.namespace) || compareStrings(a.meta.name, b.meta.name));
}

/** "keeping demo/web (still defined by node-1, node-3)" for the retention warning. */
export function retentionMessage(retained: readonly RetainedService[]): string {
  const parts = retained.map((r) => `${r.service} (still defined by ${r.definedBy.join(', ')})`);
  return `the configuration file no longer defines ${parts.join(', ')}; still announcing from the last good definition until every live member drops them`;
}

/** Adds to each retained service's explanations why this node still elects it (`mlb explain` prints notes). */
export function explainRetention<E extends { readonly service: string; readonly notes?: readonly string[] }>(
  explanations: readonly E[],
  retained: readonly RetainedService[],
): E[] {
  if (retained.length === 0) return [...explanations];
  const byService = new Map(retained.map((r) => [r.service, r]));
  return explanations.map((e) => {
    const r = byService.get(e.service);
    if (!r) return e;
    const note = `retained: this node's configuration file no longer defines ${r.service}; elected from its last good definition while ${r.definedBy.join(', ')} still define it`;
    return { ...e, notes: [...(e.notes ?? []), note] };
  });
}
