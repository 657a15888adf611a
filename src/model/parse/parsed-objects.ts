/** The objects read from one file, each with the positions of its fields, before the cross-checks. */
import type {
  AnyObject,
  BFDProfile,
  BGPAdvertisement,
  BGPPeer,
  Community,
  IPAddressPool,
  L2Advertisement,
  Node,
  Service,
  SourcePosition,
} from '../types';
import type { CommunityAliasEntry } from './community';
import type { ObjectScope } from './field-reader';
import { closestMatch } from './did-you-mean';
import { SNAPSHOT_LISTS } from '../snapshot';
import { KIND_VERSIONS } from './kind-versions';

export interface Parsed<T extends AnyObject> {
  readonly object: T;
  readonly apiVersion: string;
  readonly scope: ObjectScope;
}

export interface ParsedCommunity extends Parsed<Community> {
  readonly entries: readonly CommunityAliasEntry[];
}

export interface ParsedObjects {
  readonly pools: Parsed<IPAddressPool>[];
  readonly l2Advertisements: Parsed<L2Advertisement>[];
  readonly bgpAdvertisements: Parsed<BGPAdvertisement>[];
  readonly bgpPeers: Parsed<BGPPeer>[];
  readonly bfdProfiles: Parsed<BFDProfile>[];
  readonly communities: ParsedCommunity[];
  readonly services: Parsed<Service>[];
  readonly nodes: Parsed<Node>[];
  /**
   * Documents that had an error, with the kind and name they seem to declare (either may be unknown): an object
   * they meant to define may be missing, so a reference to it is not reported again as "does not exist".
   */
  readonly broken: BrokenDocument[];
}

/** The lists of ParsedObjects that hold objects, one per kind: the Snapshot's, in its order. */
export const OBJECT_LISTS = SNAPSHOT_LISTS satisfies readonly (keyof ParsedObjects)[];
export type ObjectList = (typeof OBJECT_LISTS)[number];

export interface BrokenDocument {
  readonly kind?: string;
  readonly name?: string;
}

/**
 * Whether a broken document may be the `kind` object named `name` (undefined: any name). A misspelled or missing
 * kind may be any kind; a missing name any name.
 */
export function mayBeBroken(parsed: ParsedObjects, kinds: readonly string[], name?: string): boolean {
  return parsed.broken.some((b) => mayBeKind(b.kind, kinds) && (name === undefined || b.name === undefined || b.name === name));
}

/**
 * A List holds objects of any kind; an unknown kind is taken for the known one it is closest to (the one the
 * "did you mean" names), and for any kind when none is close.
 */
function mayBeKind(kind: string | undefined, kinds: readonly string[]): boolean {
  if (kind === undefined || kind === 'List') return true;
  if (Object.hasOwn(KIND_VERSIONS, kind)) return kinds.includes(kind);
  const meant = closestMatch(kind, Object.keys(KIND_VERSIONS));
  return meant === undefined || kinds.includes(meant);
}

export function emptyParsedObjects(): ParsedObjects {
  return {
    pools: [],
    l2Advertisements: [],
    bgpAdvertisements: [],
    bgpPeers: [],
    bfdProfiles: [],
    communities: [],
    services: [],
    nodes: [],
    broken: [],
  };
}

/**
 * Where a field path was written: the path itself, else its closest recorded parent ("spec.peers[2]" ->
 * "spec.peers" -> "spec"), else the object.
 */
export function fieldPosition(parsed: Parsed<AnyObject>, path: string): SourcePosition | undefined {
  let current = path;
  for (;;) {
    const found = parsed.scope.positions.get(current);
    if (found) return found;
    const cut = Math.max(current.lastIndexOf('.'), current.lastIndexOf('['));
    if (cut <= 0) return parsed.object.meta.position;
    current = current.slice(0, cut);
  }
}

/** Report a finding about an object after reading (cross-checks, warnings). */
export function reportAt(
  parsed: Parsed<AnyObject>,
  severity: 'error' | 'warning',
  code: Parameters<ObjectScope['error']>[0],
  message: string,
  path: string,
): void {
  const position = fieldPosition(parsed, path);
  if (severity === 'error') parsed.scope.error(code, message, position);
  else parsed.scope.warning(code, message, position);
}
