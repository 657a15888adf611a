/**
 * The members this node last saw alive, kept under --state-dir so a restarted node can rejoin the cluster even
 * when the --join seeds are down (they may be exactly the nodes that went away).
 */
import type { HostPort } from '../gossip/transport/address';
import type { StateFiles } from '../runtime/state-files';
import { asStateFiles } from './directory-state-files';
import { readStateFileJSON } from './state-dir';

const KNOWN_PEERS_FILE = 'known-peers.json';
/** Enough addresses to find the cluster again; more only slows the join down. */
const MAX_KNOWN_PEERS = 16;

interface KnownPeersFile {
  readonly version: 1;
  readonly peers: readonly { readonly name: string; readonly host: string; readonly port: number }[];
}

function isKnownPeersFile(v: unknown): v is KnownPeersFile {
  const f = v as KnownPeersFile;
  return (
    typeof f === 'object' &&
    f !== null &&
    f.version === 1 &&
    Array.isArray(f.peers) &&
    f.peers.every((p) => typeof p.name === 'string' && typeof p.host === 'string' && Number.isInteger(p.port))
  );
}

export interface KnownPeer extends HostPort {
  readonly name: string;
}

/** `state`: the --state-dir path, or the node's StateFiles. */
export async function loadKnownPeers(state: string | StateFiles): Promise<KnownPeer[]> {
  const file = await readStateFileJSON(asStateFiles(state), KNOWN_PEERS_FILE, isKnownPeersFile);
  return (file?.peers ?? []).map((p) => ({ name: p.name, host: p.host, port: p.port }));
}

/** Keeps the first MAX_KNOWN_PEERS (callers put the freshest first), one entry per name. */
export async function saveKnownPeers(state: string | StateFiles, peers: readonly KnownPeer[]): Promise<void> {
  const byName = new Map<string, KnownPeer>();
  for (const p of peers) if (!byName.has(p.name)) byName.set(p.name, { name: p.name, host: p.host, port: p.port });
  const file: KnownPeersFile = { version: 1, peers: [...byName.values()].slice(0, MAX_KNOWN_PEERS) };
  await asStateFiles(state).writeAtomic(KNOWN_PEERS_FILE, `${JSON.stringify(file, null, 2)}\n`);
}
