// Comparing this node's file with the other live members': who differs and how (the sentence status and the log
// show), who may still define a service (releases wait for them), who lacks it (not elected for it), and what
// happens with members that send no facts (MetalLB speakers never count; an mlb member counts after a wait).
import { describe, expect, it } from 'vitest';
import { CONFIG_FACTS_WAIT_MS, configAgreement, hashServiceKey, summarizeConfig, type ConfigFacts } from '../../../src/daemon/config-facts';
import type { Snapshot } from '../../../src/model';
import { configSnapshot } from './config-yaml';

const NOW = 1_700_000_000_000;
const ALL = configSnapshot(['api', 'db', 'web']);

function factsOf(node: string, snapshot: Snapshot, retained: string[] = []): ConfigFacts {
  const s = summarizeConfig(snapshot);
  return {
    node,
    epoch: 1,
    seq: 1,
    digest: s.digest,
    services: s.services,
    keyHashes: [...s.keyHashes],
    keysTruncated: false,
    retainedHashes: retained.map(hashServiceKey),
  };
}

function agreement(facts: ConfigFacts[], options: { liveMlb?: string[]; awaitingSince?: Map<string, number>; now?: number } = {}) {
  return configAgreement({
    self: 'node-1',
    own: summarizeConfig(ALL),
    liveMlb: options.liveMlb ?? ['node-1', 'node-2', 'node-3'],
    facts: new Map(facts.map((f) => [f.node, f])),
    awaitingSince: options.awaitingSince ?? new Map(),
    now: options.now ?? NOW,
  });
}

const web = hashServiceKey('demo/web');

describe('configAgreement', () => {
  it('names a node whose file lacks a service, with the counts and the service', () => {
    const a = agreement([factsOf('node-2', configSnapshot(['api', 'db'])), factsOf('node-3', ALL)]);
    expect(a.divergent.map((p) => p.node)).toEqual(['node-2']);
    expect(a.divergent[0]?.message).toBe("node-2's configuration differs from this node's (2 services vs 3): it lacks demo/web");
    expect(a.peers.find((p) => p.node === 'node-3')?.state).toBe('same');
  });

  it('names a node whose file on disk was refused, even while its running configuration is the same', () => {
    const a = agreement([{ ...factsOf('node-2', ALL), refusedReason: 'mlb.yaml: error: the file is empty' }, factsOf('node-3', ALL)]);
    expect(a.divergent).toEqual([]);
    expect(a.refused.map((p) => [p.node, p.refused])).toEqual([['node-2', 'mlb.yaml: error: the file is empty']]);
  });

  it('says how many services the other node defines that this one does not', () => {
    const a = agreement([factsOf('node-2', configSnapshot(['api', 'db', 'web', 'extra']))]);
    expect(a.divergent[0]?.message).toBe(
      "node-2's configuration differs from this node's (4 services vs 3): it defines 1 service this node does not",
    );
  });

  it('a service stays held while any live member defines it, and is free once none does', () => {
    const noWeb = configSnapshot(['api', 'db']);
    expect(agreement([factsOf('node-2', noWeb), factsOf('node-3', ALL)]).holders(web)).toEqual(['node-1', 'node-3']);
    const own = summarizeConfig(noWeb);
    const everyoneDropped = configAgreement({
      self: 'node-1',
      own,
      liveMlb: ['node-1', 'node-2', 'node-3'],
      awaitingSince: new Map(),
      now: NOW,
      facts: new Map([
        ['node-2', factsOf('node-2', noWeb)],
        ['node-3', factsOf('node-3', noWeb)],
      ]),
    });
    expect(everyoneDropped.holders(web)).toEqual([]);
  });

  it('a retained service does not hold a release (else three nodes dropping it one by one would hold it forever)', () => {
    const noWeb = configSnapshot(['api', 'db']);
    const a = configAgreement({
      self: 'node-1',
      own: summarizeConfig(noWeb),
      liveMlb: ['node-1', 'node-2'],
      awaitingSince: new Map(),
      now: NOW,
      facts: new Map([['node-2', factsOf('node-2', noWeb, ['demo/web'])]]),
    });
    expect(a.holders(web)).toEqual([]);
    expect(a.lacking(web)).toEqual([]);
  });

  it('a member whose file lacks the service and retains nothing is not a candidate for it', () => {
    const a = agreement([factsOf('node-2', configSnapshot(['api', 'db'])), factsOf('node-3', configSnapshot(['db']), ['demo/web'])]);
    expect(a.lacking(web)).toEqual(['node-2']);
    expect(a.lacking(hashServiceKey('demo/db'))).toEqual([]);
  });

  it('an mlb member without facts holds releases while awaited, then counts like a MetalLB speaker', () => {
    const since = new Map([['node-3', NOW]]);
    const waiting = agreement([factsOf('node-2', ALL)], { awaitingSince: since, now: NOW + 1_000 });
    expect(waiting.peers.find((p) => p.node === 'node-3')?.state).toBe('awaiting');
    expect(waiting.divergent).toEqual([]);
    expect(waiting.holders(hashServiceKey('demo/gone'))).toEqual(['node-3']);
    const silent = agreement([factsOf('node-2', ALL)], { awaitingSince: since, now: NOW + CONFIG_FACTS_WAIT_MS });
    expect(silent.peers.find((p) => p.node === 'node-3')?.state).toBe('silent');
    expect(silent.holders(hashServiceKey('demo/gone'))).toEqual([]);
    expect(silent.lacking(web)).toEqual([]);
  });

  it('MetalLB speakers (no mlb meta, so not in liveMlb) are neither compared nor counted', () => {
    const a = agreement([], { liveMlb: ['node-1'] });
    expect(a.peers).toEqual([]);
    expect(a.holders(hashServiceKey('demo/gone'))).toEqual([]);
  });

  it('a node whose key list was cut short counts as defining every service', () => {
    const truncated = { ...factsOf('node-2', configSnapshot(['api'])), keyHashes: [], keysTruncated: true };
    const a = agreement([truncated], { liveMlb: ['node-1', 'node-2'] });
    expect(a.holders(hashServiceKey('demo/anything'))).toEqual(['node-2']);
    expect(a.lacking(web)).toEqual([]);
  });
});
