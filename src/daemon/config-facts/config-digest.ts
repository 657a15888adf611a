/**
 * What one node's configuration amounts to, in a form small enough to gossip: a digest of its objects, its
 * service count and one short hash per service key. Nodes compare these to notice that their files differ
 * (config-agreement.ts) and to learn which services another node defines without shipping the file. Pure.
 *
 * The digest is taken over the validated objects, not the file's bytes, so comments, whitespace, key order and
 * document order do not count: two files that configure the same thing have one digest.
 */
import { createHash } from 'node:crypto';
import { serviceKey, type Snapshot } from '../../model';

/**
 * Bytes of sha256 kept per service key and for the digest. 64 bits make an accidental collision between two
 * service keys of one cluster negligible (about 1 in 10^11 for 20,000 keys), where 32 bits would not be (1 in 20).
 */
export const CONFIG_HASH_BYTES = 8;

/**
 * Fields left out of the digest: where an object or a field was written (a comment moves it), what validation derives from
 * other fields (addressSet, cidrs), and secrets. A BGP password must not travel even hashed: with the rest of the
 * file known, an 8-byte hash of it is an offline guessing oracle.
 */
const OMITTED_FIELDS: ReadonlySet<string> = new Set(['position', 'fieldPositions', 'addressSet', 'cidrs', 'password', 'warnings']);

export interface ConfigSummary {
  /** Hex of the first CONFIG_HASH_BYTES of sha256 over the canonical objects. */
  readonly digest: string;
  readonly services: number;
  /** Hex hash of every service key the file defines. */
  readonly keyHashes: ReadonlySet<string>;
  /** Hash -> service key, for naming in messages what another node lacks. */
  readonly keysByHash: ReadonlyMap<string, string>;
}

/**
 * Service keys hashed so far. Every decision asks for the hash of each service (the agreement's lookups in the
 * allocation and the election): 10,000 sha256 digests, 10-25 ms of every decision at that size, for keys that
 * rarely change. Bounded: past HASHED_KEYS_MAX (ten times the largest file measured) it starts again.
 */
const HASHED_KEYS_MAX = 100_000;
const hashedKeys = new Map<string, string>();

export function hashServiceKey(key: string): string {
  let hash = hashedKeys.get(key);
  if (hash === undefined) {
    if (hashedKeys.size >= HASHED_KEYS_MAX) hashedKeys.clear();
    hash = createHash('sha256').update(key, 'utf8').digest().subarray(0, CONFIG_HASH_BYTES).toString('hex');
    hashedKeys.set(key, hash);
  }
  return hash;
}

/** The snapshot's lists in the canonical order of their names (sorted, as canonicalJSON sorts object keys). */
const DIGESTED_LISTS = [
  'bfdProfiles',
  'bgpAdvertisements',
  'bgpPeers',
  'communities',
  'l2Advertisements',
  'nodes',
  'pools',
  'services',
] as const;

/**
 * Each object's canonical text, by object: a reload keeps the objects it did not change (snapshot-interning.ts),
 * so a digest after a one-service edit canonicalises one service, not 10,000.
 */
const canonicalTexts = new WeakMap<object, string>();
const keyHashes = new WeakMap<object, string>();

function canonicalTextOf(o: object): string {
  let text = canonicalTexts.get(o);
  if (text === undefined) {
    text = canonicalJSON(o);
    canonicalTexts.set(o, text);
  }
  return text;
}

export function configDigest(snapshot: Snapshot): string {
  // Byte for byte canonicalJSON of { pools, l2Advertisements, ... } (the digest other nodes compare with), fed to
  // the hash piece by piece from each object's own canonical text: joined first, 10,000 services made a 2 MB
  // string to flatten and convert before hashing, three times the hash's own cost.
  const hash = createHash('sha256');
  DIGESTED_LISTS.forEach((name, i) => {
    hash.update(`${i === 0 ? '{' : ','}"${name}":[`, 'utf8');
    snapshot[name].forEach((o: object, j: number) => hash.update(j === 0 ? canonicalTextOf(o) : `,${canonicalTextOf(o)}`, 'utf8'));
    hash.update(']', 'utf8');
  });
  hash.update('}', 'utf8');
  return hash.digest().subarray(0, CONFIG_HASH_BYTES).toString('hex');
}

export function summarizeConfig(snapshot: Snapshot): ConfigSummary {
  const keysByHash = new Map<string, string>();
  for (const service of snapshot.services) {
    const key = serviceKey(service);
    let hash = keyHashes.get(service);
    if (hash === undefined) {
      hash = hashServiceKey(key);
      keyHashes.set(service, hash);
    }
    keysByHash.set(hash, key);
  }
  return { digest: configDigest(snapshot), services: snapshot.services.length, keyHashes: new Set(keysByHash.keys()), keysByHash };
}

/** JSON with object keys sorted and bigints as decimal text (IP values), so equal objects give equal text. */
function canonicalJSON(value: unknown): string {
  return JSON.stringify(canonical(value));
}

function canonical(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (value instanceof Map) return [...value.entries()].map(([k, v]) => [canonical(k), canonical(v)]);
  if (value instanceof Set) return [...value].map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    if (OMITTED_FIELDS.has(key)) continue;
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) out[key] = canonical(field);
  }
  return out;
}
