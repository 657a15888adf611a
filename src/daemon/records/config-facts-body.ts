/**
 * A node's configuration facts (config-facts/config-facts-codec.ts) as a record body:
 *   [node, epoch, seq, digest, services, keysTruncated, key hashes, retained hashes, refusedReason?]
 * The digest is CONFIG_HASH_BYTES raw bytes; each hash list is one byte string of CONFIG_HASH_BYTES per hash,
 * strictly ascending (a fact set has one encoding, and a 4,096-key list costs 32 KiB, not 4,096 strings). Pure.
 */
import type { MsgpackWriter } from '../../gossip/codec/msgpack-writer';
import type { MsgValue } from '../../gossip/codec/msgpack-reader';
import { CONFIG_HASH_BYTES } from '../config-facts/config-digest';
import { MAX_PUBLISHED_SERVICE_KEYS, MAX_REFUSED_REASON_BYTES, type ConfigFacts } from '../config-facts/config-facts-codec';
import { RECORD_NODE_MAX_BYTES } from './health-report-body';
import { BadRecordField, bytesOf, cutText, RecordFields, textOf } from './record-fields';

export function writeConfigFacts(w: MsgpackWriter, facts: ConfigFacts): void {
  const reason = facts.refusedReason === undefined ? undefined : cutText(facts.refusedReason, MAX_REFUSED_REASON_BYTES);
  w.arrayHeader(reason === undefined ? 8 : 9)
    .text(facts.node)
    .uint(facts.epoch)
    .uint(facts.seq)
    .str(hashBytes([facts.digest]))
    .uint(facts.services)
    .bool(facts.keysTruncated)
    .str(hashBytes(ascending(facts.keyHashes)))
    .str(hashBytes(ascending(facts.retainedHashes)));
  if (reason !== undefined) w.text(reason);
}

export function readConfigFacts(value: MsgValue): ConfigFacts {
  const f = RecordFields.of(value, 'configuration facts', 8);
  const node = f.text(RECORD_NODE_MAX_BYTES);
  const epoch = f.count();
  const seq = f.count();
  const digest = hex(f.bytes([CONFIG_HASH_BYTES]));
  const services = f.count();
  const keysTruncated = f.bool();
  const keyHashes = hashList(f.value(), 'key hashes');
  const retainedHashes = hashList(f.value(), 'retained hashes');
  const raw = f.optional();
  const refusedReason = raw === undefined || raw === null ? undefined : textOf(raw, 'refused reason', MAX_REFUSED_REASON_BYTES, true);
  return {
    node,
    epoch,
    seq,
    digest,
    services,
    keysTruncated,
    keyHashes,
    retainedHashes,
    ...(refusedReason === undefined ? {} : { refusedReason }),
  };
}

function ascending(hashes: readonly string[]): string[] {
  return [...new Set(hashes)].sort().slice(0, MAX_PUBLISHED_SERVICE_KEYS);
}

function hashBytes(hashes: readonly string[]): Uint8Array {
  const out = new Uint8Array(hashes.length * CONFIG_HASH_BYTES);
  hashes.forEach((h, i) => {
    if (!/^[0-9a-f]+$/.test(h) || h.length !== CONFIG_HASH_BYTES * 2)
      throw new BadRecordField(`"${h}" is not a ${CONFIG_HASH_BYTES}-byte hash`);
    out.set(Buffer.from(h, 'hex'), i * CONFIG_HASH_BYTES);
  });
  return out;
}

function hashList(value: MsgValue, what: string): string[] {
  if (!(value instanceof Uint8Array) || value.length % CONFIG_HASH_BYTES !== 0) {
    throw new BadRecordField(`configuration facts ${what}: not a list of ${CONFIG_HASH_BYTES}-byte hashes`);
  }
  const count = value.length / CONFIG_HASH_BYTES;
  if (count > MAX_PUBLISHED_SERVICE_KEYS)
    throw new BadRecordField(`configuration facts ${what}: ${count}, at most ${MAX_PUBLISHED_SERVICE_KEYS}`);
  const list: string[] = [];
  for (let i = 0; i < count; i++) {
    const hash = hex(bytesOf(value.subarray(i * CONFIG_HASH_BYTES, (i + 1) * CONFIG_HASH_BYTES), what, [CONFIG_HASH_BYTES]));
    if (list.length > 0 && !((list[list.length - 1] as string) < hash))
      throw new BadRecordField(`configuration facts ${what}: not ascending`);
    list.push(hash);
  }
  return list;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
