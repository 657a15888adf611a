// A node whose file loses services that others still define keeps announcing them from its last definition
// (with the pools and advertisements they need), lets go once no live member defines them, and never retains
// what it never ran.
import { describe, expect, it } from 'vitest';
import {
  configAgreement,
  explainRetention,
  hashServiceKey,
  retainServices,
  summarizeConfig,
  type ConfigFacts,
} from '../../../src/daemon/config-facts';
import { serviceKey, type Snapshot } from '../../../src/model';
import { configSnapshot } from './config-yaml';

const ALL = configSnapshot(['api', 'db', 'web']);

function factsOf(node: string, snapshot: Snapshot): ConfigFacts {
  const s = summarizeConfig(snapshot);
  return {
    node,
    epoch: 1,
    seq: 1,
    digest: s.digest,
    services: s.services,
    keyHashes: [...s.keyHashes],
    keysTruncated: false,
    retainedHashes: [],
  };
}

function agreementFor(file: Snapshot, peers: ConfigFacts[]) {
  return configAgreement({
    self: 'node-1',
    own: summarizeConfig(file),
    liveMlb: ['node-1', ...peers.map((p) => p.node)],
    facts: new Map(peers.map((p) => [p.node, p])),
    awaitingSince: new Map(),
    now: 0,
  });
}

describe('retainServices', () => {
  it('an emptied file keeps every service the others define, with its pool and advertisement', () => {
    const empty = configSnapshot([], { pool: false });
    const retention = retainServices(empty, ALL, agreementFor(empty, [factsOf('node-2', ALL), factsOf('node-3', ALL)]));
    expect(retention.retained).toEqual([
      { service: 'demo/api', definedBy: ['node-2', 'node-3'] },
      { service: 'demo/db', definedBy: ['node-2', 'node-3'] },
      { service: 'demo/web', definedBy: ['node-2', 'node-3'] },
    ]);
    expect(retention.snapshot.services.map(serviceKey)).toEqual(['demo/api', 'demo/db', 'demo/web']);
    expect(retention.snapshot.pools.map((p) => p.meta.name)).toEqual(['lan']);
    expect(retention.snapshot.l2Advertisements.map((a) => a.meta.name)).toEqual(['lan']);
  });

  it('lets go of a service no live member defines any more', () => {
    const noWeb = configSnapshot(['api', 'db']);
    const retention = retainServices(noWeb, ALL, agreementFor(noWeb, [factsOf('node-2', noWeb)]));
    expect(retention.retained).toEqual([]);
    expect(retention.released).toEqual(['demo/web']);
    expect(retention.snapshot).toBe(noWeb);
  });

  it('keeps retaining across further reloads while someone defines it', () => {
    const noWeb = configSnapshot(['api', 'db']);
    const peers = [factsOf('node-2', ALL)];
    const first = retainServices(noWeb, ALL, agreementFor(noWeb, peers));
    const onlyApi = configSnapshot(['api']);
    const second = retainServices(onlyApi, first.snapshot, agreementFor(onlyApi, peers));
    expect(second.retained.map((r) => r.service)).toEqual(['demo/db', 'demo/web']);
  });

  it('never retains from nothing: a node that never ran the service has no definition', () => {
    const noWeb = configSnapshot(['api', 'db']);
    const retention = retainServices(noWeb, undefined, agreementFor(noWeb, [factsOf('node-2', ALL)]));
    expect(retention.retained).toEqual([]);
    expect(agreementFor(noWeb, [factsOf('node-2', ALL)]).definers(hashServiceKey('demo/web'))).toEqual(['node-2']);
  });

  it('explain says why a retained service is still elected here', () => {
    const explained = explainRetention<{ service: string; notes?: readonly string[] }>(
      [{ service: 'demo/web' }, { service: 'demo/db' }],
      [{ service: 'demo/web', definedBy: ['node-2'] }],
    );
    expect(explained[0]?.notes).toEqual([
      "retained: this node's configuration file no longer defines demo/web; elected from its last good definition while node-2 still define it",
    ]);
    expect(explained[1]?.notes).toBeUndefined();
  });
});
