/**
 * Whether the live mlb members configure the same services, from the facts each gossips about its own file
 * (config-facts-codec.ts). Pure. Three decisions read it:
 * - status, metrics and the log name every node whose configuration differs from this node's;
 * - the allocator releases a service only when no live member's file still defines it (allocate-with-table.ts);
 * - a node is elected for a service only when its file defines it or it retains it (service-retention.ts), so one
 *   node's file that lacks a service never darkens that service's IP.
 *
 * Members without mlb meta (plain MetalLB speakers) gossip no facts: they are not compared, block nothing and
 * are never excluded. An mlb member whose facts have not arrived yet is "awaiting": it blocks releases (it may
 * define the service) but is not called divergent, until CONFIG_FACTS_WAIT_MS after it was first seen; from
 * then on it is "silent" and counts like a MetalLB speaker (an mlb older than these facts).
 */
import { compareStrings } from '../../allocator';
import type { ConfigSummary } from './config-digest';
import type { ConfigFacts } from './config-facts-codec';

/**
 * How long an mlb member may stay without configuration facts before it counts as not sending any. A member's
 * facts come with its join's push/pull or its first broadcast, and at the latest with the next push/pull, which
 * every profile runs at least once a minute (memberlist's DefaultWANConfig: 60 s). Waiting no longer keeps an
 * older mlb in the cluster from blocking releases forever.
 */
export const CONFIG_FACTS_WAIT_MS = 60_000;

export type PeerConfigState =
  /** Same digest: the same objects. */
  | 'same'
  /** Another digest: the files differ. */
  | 'differs'
  /** An mlb member whose facts have not arrived yet. */
  | 'awaiting'
  /** An mlb member that sent no facts within CONFIG_FACTS_WAIT_MS: treated like a MetalLB speaker. */
  | 'silent';

export interface PeerConfig {
  readonly node: string;
  readonly state: PeerConfigState;
  readonly digest?: string;
  readonly services?: number;
  /** Service keys this node's file defines that the peer's file does not (sorted). */
  readonly lacks: readonly string[];
  /** How many services the peer's file defines that this node's file does not (only hashes travel). */
  readonly extra: number;
  /** Its key list was cut short (MAX_PUBLISHED_SERVICE_KEYS): counted as defining every service. */
  readonly keysTruncated: boolean;
  /** One sentence for logs and status. */
  readonly message: string;
  /** Its file on disk was refused (it runs its last good configuration): the first error, as it reported it. */
  readonly refused?: string;
}

export interface AgreementInputs {
  readonly self: string;
  /** This node's file. */
  readonly own: ConfigSummary;
  /** Live members that publish mlb meta, this node included or not. */
  readonly liveMlb: readonly string[];
  /** The newest facts per node (any node; only live ones are read). */
  readonly facts: ReadonlyMap<string, ConfigFacts>;
  /** When each live mlb member without facts was first seen so; absent means now. */
  readonly awaitingSince: ReadonlyMap<string, number>;
  readonly now: number;
}

export interface ConfigAgreement {
  readonly self: string;
  readonly digest: string;
  readonly services: number;
  /** Every live mlb peer, by name. */
  readonly peers: readonly PeerConfig[];
  /** The peers whose files differ from this node's. */
  readonly divergent: readonly PeerConfig[];
  /** The peers whose file on disk was refused: they run their last good configuration, which may still agree. */
  readonly refused: readonly PeerConfig[];
  /**
   * The live members whose file may define `key`, this node included: a known definition, or facts not known
   * yet. The allocator releases a service only when this is empty.
   */
  holders(keyHash: string): string[];
  /** The live peers whose file is known to define the service (retention keeps it while there are any). */
  definers(keyHash: string): string[];
  /** Live peers whose facts say they neither define nor retain the service: they cannot announce it. */
  lacking(keyHash: string): string[];
}

export function configAgreement(inputs: AgreementInputs): ConfigAgreement {
  const { own } = inputs;
  const peers = inputs.liveMlb
    .filter((n) => n !== inputs.self)
    .sort(compareStrings)
    .map((node) => peerConfig(node, inputs));
  const known = new Map<string, { keys: ReadonlySet<string>; retained: ReadonlySet<string>; all: boolean }>();
  for (const peer of peers) {
    const facts = inputs.facts.get(peer.node);
    if (!facts || (peer.state !== 'same' && peer.state !== 'differs')) continue;
    const keys = peer.state === 'same' ? own.keyHashes : new Set(facts.keyHashes);
    known.set(peer.node, { keys, retained: new Set(facts.retainedHashes), all: peer.state === 'differs' && facts.keysTruncated });
  }
  const definersOf = (keyHash: string): string[] => [...known].filter(([, k]) => k.all || k.keys.has(keyHash)).map(([node]) => node);
  const awaiting = peers.filter((p) => p.state === 'awaiting').map((p) => p.node);
  return {
    self: inputs.self,
    digest: own.digest,
    services: own.services,
    peers,
    divergent: peers.filter((p) => p.state === 'differs'),
    refused: peers.filter((p) => p.refused !== undefined),
    holders(keyHash) {
      const out = own.keyHashes.has(keyHash) ? [inputs.self] : [];
      return [...out, ...definersOf(keyHash), ...awaiting].sort(compareStrings);
    },
    definers: definersOf,
    lacking(keyHash) {
      const out: string[] = [];
      for (const [node, k] of known) if (!k.all && !k.keys.has(keyHash) && !k.retained.has(keyHash)) out.push(node);
      return out;
    },
  };
}

function peerConfig(node: string, inputs: AgreementInputs): PeerConfig {
  const facts = inputs.facts.get(node);
  if (!facts) {
    const since = inputs.awaitingSince.get(node) ?? inputs.now;
    const silent = inputs.now - since >= CONFIG_FACTS_WAIT_MS;
    return {
      node,
      state: silent ? 'silent' : 'awaiting',
      lacks: [],
      extra: 0,
      keysTruncated: false,
      message: silent
        ? `${node} publishes no configuration facts (an older mlb): not compared, and it blocks no release`
        : `${node}'s configuration facts have not arrived yet`,
    };
  }
  const base = {
    node,
    digest: facts.digest,
    services: facts.services,
    keysTruncated: facts.keysTruncated,
    ...(facts.refusedReason === undefined ? {} : { refused: facts.refusedReason }),
  };
  if (facts.digest === inputs.own.digest) {
    return { ...base, state: 'same', lacks: [], extra: 0, message: `${node}'s configuration is the same as this node's` };
  }
  const theirs = new Set(facts.keyHashes);
  const lacks = facts.keysTruncated
    ? []
    : [...inputs.own.keysByHash]
        .filter(([hash]) => !theirs.has(hash))
        .map(([, key]) => key)
        .sort(compareStrings);
  const extra = facts.keyHashes.filter((h) => !inputs.own.keyHashes.has(h)).length;
  return { ...base, state: 'differs', lacks, extra, message: divergenceMessage(node, facts.services, inputs.own.services, lacks, extra) };
}

/** "node-2's configuration differs from this node's (2 services vs 3): it lacks demo/web". */
function divergenceMessage(node: string, theirs: number, ours: number, lacks: readonly string[], extra: number): string {
  const counts = theirs === ours ? `${theirs} services each` : `${theirs} service${theirs === 1 ? '' : 's'} vs ${ours}`;
  const parts: string[] = [];
  if (lacks.length > 0) parts.push(`it lacks ${lacks.join(', ')}`);
  if (extra > 0) parts.push(`it defines ${extra} service${extra === 1 ? '' : 's'} this node does not`);
  if (parts.length === 0) parts.push('the same services, other objects differ');
  return `${node}'s configuration differs from this node's (${counts}): ${parts.join('; ')}`;
}

/** "node-2's file is refused (it runs its last good configuration): <first error>". */
export function refusalMessage(node: string, reason: string): string {
  return `${node}'s configuration file is refused, it runs its last good configuration: ${reason}`;
}
