/**
 * MetalLB's L2 ranking (speaker/layer2_controller.go ShouldAnnounce): nodes sorted by
 * sha256(nodeName + "#" + firstIP.String()) compared bytewise ascending; the first one announces.
 *
 * MetalLB hashes inside the sort comparator (2 hashes per comparison, ~2 n log n in all). mlb hashes each
 * (node, IP) pair exactly once and sorts numeric keys, which is what makes a cold election of 10,000 services
 * over 1,000 nodes cheap (bench/election.bench.ts).
 */
import * as crypto from 'node:crypto';
import { formatIP, type IP } from '../ip';

/** The separator MetalLB puts between the node name and the IP text. */
export const HASH_SEPARATOR = '#';
export const HASH_BYTES = 32;

type OneShotHash = (algorithm: string, data: string, outputEncoding: 'buffer') => Buffer;
/**
 * crypto.hash (Node >= 20.12) is the one-shot form of createHash: same digest, half the per-call cost for
 * inputs this small. Fall back to createHash where it is missing.
 */
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/** sha256(node + "#" + ipText), the bytes MetalLB compares. ipText must already be Go's canonical text. */
export function nodeIPHash(node: string, ipText: string): Buffer {
  const data = node + HASH_SEPARATOR + ipText;
  return oneShot ? oneShot('sha256', data, 'buffer') : crypto.createHash('sha256').update(data).digest();
}

/** The text MetalLB hashes for a service: Go's net.IP.String() of the first IP (dual stack uses the first too). */
export function electionIPText(ips: readonly IP[]): string | undefined {
  const first = ips[0];
  return first ? formatIP(first) : undefined;
}

/** Node positions: 16-bit while they fit (halves the index's memory at 10,000 IPs), 32-bit beyond. */
export type NodeIndexArray = Uint16Array | Uint32Array;

export function newIndexArray(length: number): NodeIndexArray {
  return length <= 2 ** 16 ? new Uint16Array(length) : new Uint32Array(length);
}

/** Node names in MetalLB's order for one IP text (each hashed once). */
export function rankNodes(nodes: readonly string[], ipText: string): string[] {
  return Array.from(hashOrderIndices(nodes, ipText), (i) => nodes[i] as string);
}

/**
 * Bits of the node index packed under the hash prefix in one float64 key: up to 65,536 nodes take the fast path
 * (a native numeric sort of Float64Array); larger sets sort by comparator.
 */
const INDEX_BITS = 16;
const INDEX_SPAN = 2 ** INDEX_BITS;
/** float64 holds integers exactly up to 2^53, so 53 - 16 = 37 bits of the hash lead the key. */
const PREFIX_BITS = 53 - INDEX_BITS;

/** The first 37 bits of a digest as an integer: bytes 0-3 whole, then the top 5 bits of byte 4. */
function hashPrefix(d: Buffer): number {
  const top32 = ((d[0] as number) * 2 ** 24) + ((d[1] as number) << 16) + ((d[2] as number) << 8) + (d[3] as number);
  return top32 * 2 ** (PREFIX_BITS - 32) + ((d[4] as number) >>> (40 - PREFIX_BITS));
}

/**
 * Positions into `nodes`, sorted by hash ascending. Equal 37-bit prefixes (about one IP in 30 at 1,000 nodes)
 * are re-ordered by the full digest, so the result is exactly Buffer.compare order.
 */
export function hashOrderIndices(nodes: readonly string[], ipText: string): NodeIndexArray {
  const n = nodes.length;
  const digests: Buffer[] = new Array(n);
  for (let i = 0; i < n; i++) digests[i] = nodeIPHash(nodes[i] as string, ipText);
  const order = newIndexArray(n);
  if (n > INDEX_SPAN) {
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => Buffer.compare(digests[a] as Buffer, digests[b] as Buffer));
    return order;
  }
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = hashPrefix(digests[i] as Buffer) * INDEX_SPAN + i;
  keys.sort();
  for (let i = 0; i < n; i++) order[i] = (keys[i] as number) % INDEX_SPAN;
  // Ties on the prefix: sort each run of equal prefixes by the whole digest.
  for (let start = 0; start < n; ) {
    const prefix = Math.floor((keys[start] as number) / INDEX_SPAN);
    let end = start + 1;
    while (end < n && Math.floor((keys[end] as number) / INDEX_SPAN) === prefix) end++;
    if (end - start > 1) {
      order.subarray(start, end).sort((a, b) => Buffer.compare(digests[a] as Buffer, digests[b] as Buffer));
    }
    start = end;
  }
  return order;
}
