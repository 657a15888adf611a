// Why a health check fails travels in gossip next to the verdict, so that every node's `mlb explain` can say
// "health check demo/web failing on node-2 since ..: connect ECONNREFUSED ..." about another node.
import { describe, expect, it } from 'vitest';
import { electAll, type ElectionConfig } from '../../../src/election';
import { withLiveFacts } from '../../../src/daemon/explain-live-facts';
import {
  decodeHealthDetails,
  encodeHealthDetails,
  HEALTH_DETAIL_GOSSIP_MAX_BYTES,
  mergeHealthDetails,
  type HealthDetails,
} from '../../../src/daemon/health/health-details';
import { HealthDetailsSharing } from '../../../src/daemon/health/health-details-sharing';
import { AWAITING_FIRST_PROBE, type HealthResult } from '../../../src/daemon/health/health-monitor';
import { l2Ad, node, pool, service } from '../../election/factories';

const details: HealthDetails = {
  node: 'node-2',
  epoch: 1_700_000_000_000,
  seq: 3,
  failing: {
    'demo/web': { since: 1_700_000_050_000, detail: 'connect ECONNREFUSED 127.0.0.1:8080' },
    'demo/api': { since: 1, detail: 'HTTP 503' },
  },
};

describe('health details codec', () => {
  it('round-trips, and a damaged or foreign record decodes to undefined', () => {
    const bytes = encodeHealthDetails(details);
    expect(decodeHealthDetails(bytes)).toEqual(details);
    expect(decodeHealthDetails(bytes.subarray(0, bytes.length - 3))).toBeUndefined();
    expect(decodeHealthDetails(Uint8Array.of(1, 2, 3, 4, 5))).toBeUndefined();
  });

  it('cuts a long detail on a character boundary, so one chatty program cannot fill a packet', () => {
    const long = `exit 1: ${'é'.repeat(200)}`;
    const decoded = decodeHealthDetails(encodeHealthDetails({ ...details, failing: { 'a/b': { since: 5, detail: long } } }));
    const detail = decoded!.failing['a/b']!.detail;
    expect(new TextEncoder().encode(detail).length).toBeLessThanOrEqual(HEALTH_DETAIL_GOSSIP_MAX_BYTES);
    expect(long.startsWith(detail)).toBe(true);
  });

  it('keeps the newest record per node, whatever order gossip delivers them in', () => {
    const older = { ...details, seq: 2, failing: {} };
    const a = mergeHealthDetails(mergeHealthDetails(new Map(), older).table, details).table;
    const b = mergeHealthDetails(mergeHealthDetails(new Map(), details).table, older).table;
    expect(a.get('node-2')).toEqual(details);
    expect(b.get('node-2')).toEqual(details);
  });
});

describe('HealthDetailsSharing', () => {
  const results = (entries: [string, HealthResult][]) => new Map(entries);

  it('publishes only when what it says changed, and says nothing before a first probe', () => {
    const sharing = new HealthDetailsSharing('node-1', 10);
    expect(sharing.publish(results([['demo/web', { state: 'failing', since: 5, detail: AWAITING_FIRST_PROBE }]]))).toBeDefined();
    expect(sharing.view().get('node-1')?.failing).toEqual({});
    const failing = results([['demo/web', { state: 'failing', since: 5, detail: 'HTTP 503' }]]);
    expect(sharing.publish(failing)).toBeDefined();
    expect(sharing.publish(failing)).toBeUndefined();
    expect(sharing.view().get('node-1')?.failing).toEqual({ 'demo/web': { since: 5, detail: 'HTTP 503' } });
  });

  it('tells in O(1) whether one probe changes what it says', () => {
    const sharing = new HealthDetailsSharing('node-1', 10);
    const failing: HealthResult = { state: 'failing', since: 5, detail: 'HTTP 503' };
    expect(sharing.changes('demo/web', failing)).toBe(true);
    sharing.publish(results([['demo/web', failing]]));
    expect(sharing.changes('demo/web', failing)).toBe(false);
    expect(sharing.changes('demo/web', { ...failing, detail: 'timed out after 1000 ms' })).toBe(true);
    expect(sharing.changes('demo/web', { state: 'passing', since: 9, detail: 'HTTP 200' })).toBe(true);
    expect(sharing.changes('demo/api', { state: 'passing', since: 9, detail: 'HTTP 200' })).toBe(false);
  });

  it("takes a peer's record and forgets it when the peer is gone", () => {
    const sharing = new HealthDetailsSharing('node-1', 10);
    expect(sharing.receive(details)).toBe(true);
    expect(sharing.receive(details)).toBe(false);
    expect(sharing.view().get('node-2')).toEqual(details);
    sharing.retain(new Set(['node-1']));
    expect(sharing.view().has('node-2')).toBe(false);
  });
});

describe('withLiveFacts', () => {
  const config: ElectionConfig = {
    nodes: [node('node-1'), node('node-2')],
    pools: [pool('default', ['10.0.0.0/24'])],
    l2Advertisements: [l2Ad('all')],
    bgpAdvertisements: [],
    bgpPeers: [],
  };
  const web = service('demo/web', ['10.0.0.10']);

  it('gives the node whose check fails its own last result, and names whose view it is', () => {
    const explained = electAll(
      config,
      [{ service: web, endpoints: { servingNodes: new Set(['node-1']), healthChecked: true } }],
      new Set(['node-1', 'node-2']),
    ).explain();
    const [e] = withLiveFacts(explained, { viewer: 'node-1', healthDetails: new Map([['node-2', details]]), warmUpLeftMs: undefined });
    expect(e!.viewer).toBe('node-1');
    expect(e!.candidates.find((c) => c.node === 'node-2')).toMatchObject({
      reason: 'healthCheckFailing',
      healthCheck: { since: 1_700_000_050_000, result: 'connect ECONNREFUSED 127.0.0.1:8080' },
    });
    expect(e!.candidates.find((c) => c.node === 'node-1')!.healthCheck).toBeUndefined();
  });
});
