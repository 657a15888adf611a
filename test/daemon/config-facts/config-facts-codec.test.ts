// The configuration facts a node gossips: the digest ignores how the file is written, the record round-trips,
// anything damaged decodes to undefined, and a newer fact set replaces an older one.
import { describe, expect, it } from 'vitest';
import {
  configDigest,
  decodeConfigFacts,
  encodeConfigFacts,
  hashServiceKey,
  mergeConfigFacts,
  summarizeConfig,
  type ConfigFacts,
} from '../../../src/daemon/config-facts';
import { MAX_REFUSED_REASON_BYTES } from '../../../src/daemon/config-facts/config-facts-codec';
import { GossipRecordKind } from '../../../src/daemon/records/record-kinds';
import { decodeRecords, encodeRecords } from '../../../src/daemon/records/records-codec';
import { MLB_RECORDS_VERSION } from '../../../src/daemon/records-protocol';
import { configSnapshot } from './config-yaml';

function facts(overrides: Partial<ConfigFacts> = {}): ConfigFacts {
  const summary = summarizeConfig(configSnapshot(['web', 'db']));
  return {
    node: 'node-2',
    epoch: 1_700_000_000_000,
    seq: 3,
    digest: summary.digest,
    services: summary.services,
    keyHashes: [...summary.keyHashes],
    keysTruncated: false,
    retainedHashes: [hashServiceKey('demo/api')],
    ...overrides,
  };
}

describe('configuration digest', () => {
  it('is the same for two files that configure the same objects, whatever comments or positions', () => {
    const a = configSnapshot(['web', 'db']);
    const b = configSnapshot(['web', 'db'], { comment: 'edited on node-2, moved every line down' });
    expect(configDigest(a)).toBe(configDigest(b));
  });

  it('is the text every release computes, for objects seen before or not (mixed-version clusters compare it)', () => {
    const snapshot = configSnapshot(['web', 'db'], { comment: 'x' });
    // Computed by the release before per-object caching, from canonical JSON of the whole snapshot.
    expect(configDigest(snapshot)).toBe('7a067a3288c49e8b');
    expect(configDigest(snapshot)).toBe('7a067a3288c49e8b');
    expect(configDigest({ ...snapshot, services: [...snapshot.services] })).toBe('7a067a3288c49e8b');
  });

  it('differs when a service is missing', () => {
    expect(configDigest(configSnapshot(['web']))).not.toBe(configDigest(configSnapshot(['web', 'db'])));
  });

  it('names every service key by its hash', () => {
    const summary = summarizeConfig(configSnapshot(['web', 'db']));
    expect(summary.services).toBe(2);
    expect(summary.keysByHash.get(hashServiceKey('demo/web'))).toBe('demo/web');
  });
});

describe('configuration facts record', () => {
  it("carries a refused file's first error, cut to MAX_REFUSED_REASON_BYTES on a character boundary", () => {
    const reason = 'mlb.yaml:23:7: error: the file does not end with a newline: it looks cut off ';
    expect(decodeConfigFacts(encodeConfigFacts(facts({ refusedReason: reason })))?.refusedReason).toBe(reason);
    const long = `${'é'.repeat(150)}tail`;
    const cut = decodeConfigFacts(encodeConfigFacts(facts({ refusedReason: long })))?.refusedReason ?? '';
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_REFUSED_REASON_BYTES);
    expect(long.startsWith(cut) && cut.length > 0).toBe(true);
    expect(decodeConfigFacts(encodeConfigFacts(facts()))).not.toHaveProperty('refusedReason');
  });

  it('drops a record whose refusal reason is cut short', () => {
    const bytes = encodeConfigFacts(facts({ refusedReason: 'bad file' }));
    expect(decodeConfigFacts(bytes.subarray(0, bytes.length - 3))).toBeUndefined();
  });

  it('round-trips, with the hash lists sorted', () => {
    const original = facts();
    const decoded = decodeConfigFacts(encodeConfigFacts(original));
    expect(decoded).toEqual({ ...original, keyHashes: [...original.keyHashes].sort() });
  });

  it('travels as its own gossip record kind, in the v1 layout and in the msgpack envelope alike', () => {
    for (const version of [1, MLB_RECORDS_VERSION]) {
      const received = decodeRecords(encodeRecords([{ kind: GossipRecordKind.configFacts, value: facts() }], version));
      expect(received.ok && received.value.records).toEqual([
        { kind: GossipRecordKind.configFacts, value: { ...facts(), keyHashes: [...facts().keyHashes].sort() } },
      ]);
    }
  });

  it('decodes every truncation and a wrong magic to undefined, never throwing', () => {
    const bytes = encodeConfigFacts(facts());
    for (let n = 0; n < bytes.length; n++) expect(decodeConfigFacts(bytes.subarray(0, n))).toBeUndefined();
    const bad = bytes.slice();
    bad[0] = 0;
    expect(decodeConfigFacts(bad)).toBeUndefined();
  });

  it('stays small: 100 services take under 1 KiB', () => {
    const many = Array.from({ length: 100 }, (_, i) => hashServiceKey(`demo/s${i}`));
    expect(encodeConfigFacts(facts({ keyHashes: many, retainedHashes: [] })).length).toBeLessThan(1024);
  });

  it('keeps the newest facts per node (a restarted daemon replaces its previous life)', () => {
    const old = facts({ seq: 9 });
    const table = mergeConfigFacts(new Map(), old).table;
    expect(mergeConfigFacts(table, facts({ seq: 8 })).changed).toBe(false);
    const restarted = mergeConfigFacts(table, facts({ epoch: old.epoch + 1, seq: 1, services: 0 }));
    expect(restarted.changed).toBe(true);
    expect(restarted.table.get('node-2')?.services).toBe(0);
  });
});
