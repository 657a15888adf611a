/** The objects read from one file, each with the positions of its fields, before the cross-checks. */
import type {
  AnyObject, BFDProfile, BGPAdvertisement, BGPPeer, Community, IPAddressPool, L2Advertisement, Node, Service,
  SourcePosition,
} from '../types';
import type { CommunityAliasEntry } from './community';
import type { ObjectScope } from './field-reader';

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
}

export function emptyParsedObjects(): ParsedObjects {
  return {
    pools: [], l2Advertisements: [], bgpAdvertisements: [], bgpPeers: [], bfdProfiles: [], communities: [],
    services: [], nodes: [],
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
  parsed: Parsed<AnyObject>, severity: 'error' | 'warning',
  code: Parameters<ObjectScope['error']>[0], message: string, path: string,
): void {
  const position = fieldPosition(parsed, path);
  if (severity === 'error') parsed.scope.error(code, message, position);
  else parsed.scope.warning(code, message, position);
}
