/**
 * The configuration facts one node gossips about its own file (one record of ../records/; this is its v1 layout): the digest
 * and service count of config-digest.ts, the hash of every service key it defines and of every service it
 * retains from an earlier file (service-retention.ts). Pure.
 *
 * Records version 2 sends records/config-facts-body.ts instead of the v1 layout:
 *
 * Layout, version 1 (big-endian; strings UTF-8; hashes CONFIG_HASH_BYTES each):
 *   "mlbc" | version u8 | nodeLen u8 | node | epoch u64 | seq u64 | digest (8) | services u32 | flags u8
 *          | keyCount u16 | keyCount x hash | retainedCount u16 | retainedCount x hash
 *          [| reasonLen u8 | reason]                                       (only with flags bit 1)
 * flags bit 0: the file defines more services than MAX_PUBLISHED_SERVICE_KEYS and the key list is cut short.
 * flags bit 1: the file on disk was refused (invalid, empty, cut off, too large...): the node runs its last good
 * configuration, which the digest describes, and the reason (its first error, at most MAX_REFUSED_REASON_BYTES)
 * follows, so every node can say which host's file needs fixing.
 * Hashes are strictly ascending within each list, so a fact set has one encoding.
 */
import { CodedError } from '../../errors/coded-error';
import { CONFIG_HASH_BYTES } from './config-digest';

const CONFIG_FACTS_MAGIC = Uint8Array.of(0x6d, 0x6c, 0x62, 0x63); // "mlbc"
const CONFIG_FACTS_VERSION = 1;
/**
 * At most this many service key hashes travel per list (32 KiB of hashes). The whole gossip user state is capped
 * at 1 MiB and the allocation table may take 896 KiB of it (allocation-table-codec.ts), so a node's facts must
 * stay small. A node whose file defines more says so (keysTruncated) and the others treat it as defining every
 * service: it may block a release, never cause one.
 */
export const MAX_PUBLISHED_SERVICE_KEYS = 4096;
const FLAG_KEYS_TRUNCATED = 1;
const FLAG_FILE_REFUSED = 2;
/** A refusal's first error, cut to fit a u8 length: enough for "file:line:col: what", never a whole document. */
export const MAX_REFUSED_REASON_BYTES = 200;
/** A u8 length: Kubernetes node names are DNS subdomains of at most 253 bytes. */
const MAX_NODE_BYTES = 255;
const HEADER_BYTES = CONFIG_FACTS_MAGIC.length + 1;

export interface ConfigFacts {
  readonly node: string;
  /** The daemon's start time in ms: facts of a restarted daemon replace those of its previous life. */
  readonly epoch: number;
  /** Grows with every new fact set within one epoch. */
  readonly seq: number;
  readonly digest: string;
  /** Services the file defines (what status compares: "2 services vs 3"). */
  readonly services: number;
  /** Hashes of the service keys the file defines, ascending (hashServiceKey). */
  readonly keyHashes: readonly string[];
  readonly keysTruncated: boolean;
  /** Hashes of services the file lacks and the node still announces from its last good definition. */
  readonly retainedHashes: readonly string[];
  /** Set when the file on disk was refused (the node runs its last good configuration): its first error. */
  readonly refusedReason?: string;
}

class ConfigFactsError extends CodedError<'invalidConfigFacts'> {}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Throws ConfigFactsError for facts no peer would accept (the caller builds them, so this is a bug). */
export function encodeConfigFacts(input: ConfigFacts): Uint8Array {
  const facts = { ...input, keyHashes: [...new Set(input.keyHashes)].sort(), retainedHashes: [...new Set(input.retainedHashes)].sort() };
  const node = utf8.encode(facts.node);
  if (node.length === 0 || node.length > MAX_NODE_BYTES)
    throw new ConfigFactsError('invalidConfigFacts', `node name of ${node.length} bytes`);
  for (const list of [facts.keyHashes, facts.retainedHashes]) {
    if (list.length > MAX_PUBLISHED_SERVICE_KEYS)
      throw new ConfigFactsError('invalidConfigFacts', `${list.length} hashes, at most ${MAX_PUBLISHED_SERVICE_KEYS}`);
  }
  const hashes = facts.keyHashes.length + facts.retainedHashes.length;
  const reason = facts.refusedReason === undefined ? undefined : utf8.encode(fitReason(facts.refusedReason));
  const size =
    HEADER_BYTES + 1 + node.length + 16 + CONFIG_HASH_BYTES + 4 + 1 + 2 + 2 + hashes * CONFIG_HASH_BYTES + (reason ? 1 + reason.length : 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(CONFIG_FACTS_MAGIC, 0);
  let at = CONFIG_FACTS_MAGIC.length;
  out[at++] = CONFIG_FACTS_VERSION;
  out[at++] = node.length;
  out.set(node, at);
  at += node.length;
  view.setBigUint64(at, BigInt(facts.epoch));
  view.setBigUint64(at + 8, BigInt(facts.seq));
  at += 16;
  at = writeHash(out, at, facts.digest);
  view.setUint32(at, facts.services);
  out[at + 4] = (facts.keysTruncated ? FLAG_KEYS_TRUNCATED : 0) | (reason ? FLAG_FILE_REFUSED : 0);
  at += 5;
  for (const list of [facts.keyHashes, facts.retainedHashes]) {
    view.setUint16(at, list.length);
    at += 2;
    for (const hash of list) at = writeHash(out, at, hash);
  }
  if (reason) {
    out[at] = reason.length;
    out.set(reason, at + 1);
  }
  return out;
}

/** The reason cut, on a character boundary, to at most MAX_REFUSED_REASON_BYTES of UTF-8. */
function fitReason(text: string): string {
  let cut = text;
  while (utf8.encode(cut).length > MAX_REFUSED_REASON_BYTES)
    cut = cut.slice(0, Math.max(0, cut.length - Math.max(1, Math.ceil((utf8.encode(cut).length - MAX_REFUSED_REASON_BYTES) / 4))));
  return cut;
}

function writeHash(out: Uint8Array, at: number, hex: string): number {
  if (!/^[0-9a-f]+$/.test(hex) || hex.length !== CONFIG_HASH_BYTES * 2)
    throw new ConfigFactsError('invalidConfigFacts', `"${hex}" is not a ${CONFIG_HASH_BYTES}-byte hash`);
  out.set(Buffer.from(hex, 'hex'), at);
  return at + CONFIG_HASH_BYTES;
}

/** The facts, or undefined for anything damaged, truncated, unsorted or of another version. Never throws. */
export function decodeConfigFacts(bytes: Uint8Array): ConfigFacts | undefined {
  if (bytes.length < HEADER_BYTES || !CONFIG_FACTS_MAGIC.every((b, i) => bytes[i] === b)) return undefined;
  if (bytes[CONFIG_FACTS_MAGIC.length] !== CONFIG_FACTS_VERSION) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = HEADER_BYTES;
  const need = (n: number): boolean => at + n <= bytes.length;
  if (!need(1)) return undefined;
  const nodeLength = bytes[at++] as number;
  if (nodeLength === 0 || !need(nodeLength + 16 + CONFIG_HASH_BYTES + 5)) return undefined;
  let node: string;
  try {
    node = utf8Decoder.decode(bytes.subarray(at, at + nodeLength));
  } catch {
    return undefined;
  }
  at += nodeLength;
  const epoch = view.getBigUint64(at);
  const seq = view.getBigUint64(at + 8);
  if (epoch > BigInt(Number.MAX_SAFE_INTEGER) || seq > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  at += 16;
  const digest = hex(bytes, at);
  at += CONFIG_HASH_BYTES;
  const services = view.getUint32(at);
  const flags = bytes[at + 4] as number;
  at += 5;
  const lists: string[][] = [];
  for (let l = 0; l < 2; l++) {
    if (!need(2)) return undefined;
    const count = view.getUint16(at);
    at += 2;
    if (count > MAX_PUBLISHED_SERVICE_KEYS || !need(count * CONFIG_HASH_BYTES)) return undefined;
    const list: string[] = [];
    for (let i = 0; i < count; i++, at += CONFIG_HASH_BYTES) {
      const hash = hex(bytes, at);
      if (list.length > 0 && !((list[list.length - 1] as string) < hash)) return undefined;
      list.push(hash);
    }
    lists.push(list);
  }
  let refusedReason: string | undefined;
  if ((flags & FLAG_FILE_REFUSED) !== 0) {
    if (!need(1)) return undefined;
    const length = bytes[at] as number;
    if (!need(1 + length)) return undefined;
    try {
      refusedReason = utf8Decoder.decode(bytes.subarray(at + 1, at + 1 + length));
    } catch {
      return undefined;
    }
  }
  return {
    node,
    epoch: Number(epoch),
    seq: Number(seq),
    digest,
    services,
    keyHashes: lists[0] as string[],
    keysTruncated: (flags & FLAG_KEYS_TRUNCATED) !== 0,
    retainedHashes: lists[1] as string[],
    ...(refusedReason === undefined ? {} : { refusedReason }),
  };
}

function hex(bytes: Uint8Array, at: number): string {
  return Buffer.from(bytes.subarray(at, at + CONFIG_HASH_BYTES)).toString('hex');
}

/** Keeps the newest facts per node: higher epoch (a restarted daemon), then higher seq. */
export function mergeConfigFacts(
  table: ReadonlyMap<string, ConfigFacts>,
  incoming: ConfigFacts,
): { table: ReadonlyMap<string, ConfigFacts>; changed: boolean } {
  const current = table.get(incoming.node);
  if (current && (current.epoch > incoming.epoch || (current.epoch === incoming.epoch && current.seq >= incoming.seq))) {
    return { table, changed: false };
  }
  return { table: new Map(table).set(incoming.node, incoming), changed: true };
}
