/**
 * MetalLB's L2 ranking (speaker/layer2_controller.go ShouldAnnounce): nodes sorted by
 * sha256(nodeName + "#" + firstIP.String()) compared bytewise ascending; the first one announces.
 *
 * MetalLB hashes inside the sort comparator (2 hashes per comparison, ~2 n log n in all). mlb hashes each
 * (node, IP) pair exactly once and sorts numeric keys, which is what makes a cold election of 10,000 services
 * over 1,000 nodes cheap (bench/election.bench.ts).
 *
 * Digests are kept as 32-character latin1 strings, one character per byte (code units 0-255): comparing two such
 * strings with < is exactly Buffer.compare of the bytes, and crypto.hash(..., 'latin1') avoids allocating a
 * Buffer per hash, which is most of the cost for inputs this small (about 0.3 us instead of 1.2 us on Node 20).
 */
import * as crypto from 'node:crypto';
import { formatIP, type IP } from '../ip';

/** The separator MetalLB puts between the node name and the IP text. */
const HASH_SEPARATOR = '#';

type OneShotHash = (algorithm: string, data: string, outputEncoding: 'latin1') => string;
/** crypto.hash (Node >= 20.12) is the one-shot form of createHash; fall back to createHash where it is missing. */
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/** sha256(node + "#" + ipText) as a latin1 string (one char per byte). ipText must be Go's canonical text. */
export function nodeIPDigest(node: string, ipText: string): string {
  const data = node + HASH_SEPARATOR + ipText; // hashed as UTF-8, like Go's []byte(string)
  return oneShot ? oneShot('sha256', data, 'latin1') : crypto.createHash('sha256').update(data).digest().toString('latin1');
}

/** sha256(node + "#" + ipText), the bytes MetalLB compares. */
export function nodeIPHash(node: string, ipText: string): Buffer {
  return Buffer.from(nodeIPDigest(node, ipText), 'latin1');
}

/** Bytewise order of two latin1 digests (equal to Buffer.compare of their bytes). */
export function compareDigests(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The text MetalLB hashes for a service: Go's net.IP.String() of the first IP (dual stack uses the first too). */
export function electionIPText(ips: readonly IP[]): string | undefined {
  const first = ips[0];
  return first ? formatIP(first) : undefined;
}

/** Node positions: 16-bit while they fit (halves the index's memory at 10,000 IPs), 32-bit beyond. */
export type NodeIndexArray = Uint16Array | Uint32Array;

const UINT16_LIMIT = 2 ** 16;

export function newIndexArray(length: number): NodeIndexArray {
  return length <= UINT16_LIMIT ? new Uint16Array(length) : new Uint32Array(length);
}

/** Node names in MetalLB's order for one IP text (each hashed once). */
export function rankNodes(nodes: readonly string[], ipText: string): string[] {
  return Array.from(hashOrderIndices(nodes, ipText), (i) => nodes[i] as string);
}

/**
 * Bits of the node index packed under the hash prefix in one float64 key: up to 65,536 nodes take the fast path
 * (a native numeric sort of a Float64Array); larger sets sort by comparator.
 */
const INDEX_BITS = 16;
const INDEX_SPAN = 2 ** INDEX_BITS;
/** float64 holds integers exactly up to 2^53, so 53 - 16 = 37 bits of the hash lead the key. */
const PREFIX_BITS = 53 - INDEX_BITS;

/** The first 37 bits of a digest as an integer: bytes 0-3 whole, then the top 5 bits of byte 4. */
function digestPrefix(d: string): number {
  const top32 = d.charCodeAt(0) * 2 ** 24 + (d.charCodeAt(1) << 16) + (d.charCodeAt(2) << 8) + d.charCodeAt(3);
  return top32 * 2 ** (PREFIX_BITS - 32) + (d.charCodeAt(4) >>> (40 - PREFIX_BITS));
}

/**
 * Positions into `nodes`, sorted by hash ascending. Equal 37-bit prefixes (about one IP in 30 at 1,000 nodes)
 * are re-ordered by the full digest, so the result is exactly the bytewise order MetalLB computes.
 */
export function hashOrderIndices(nodes: readonly string[], ipText: string): NodeIndexArray {
  const n = nodes.length;
  const digests: string[] = new Array(n);
  for (let i = 0; i < n; i++) digests[i] = nodeIPDigest(nodes[i] as string, ipText);
  const order = newIndexArray(n);
  if (n > INDEX_SPAN) {
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => compareDigests(digests[a] as string, digests[b] as string));
    return order;
  }
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = digestPrefix(digests[i] as string) * INDEX_SPAN + i;
  keys.sort();
  for (let i = 0; i < n; i++) order[i] = (keys[i] as number) % INDEX_SPAN;
  // Ties on the prefix: sort each run of equal prefixes by the whole digest.
  for (let start = 0; start < n;) {
    const prefix = Math.floor((keys[start] as number) / INDEX_SPAN);
    let end = start + 1;
    while (end < n && Math.floor((keys[end] as number) / INDEX_SPAN) === prefix) end++;
    if (end - start > 1) {
      order.subarray(start, end).sort((a, b) => compareDigests(digests[a] as string, digests[b] as string));
    }
    start = end;
  }
  return order;
}
