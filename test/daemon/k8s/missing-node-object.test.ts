// In a cluster every speaker reads the Node objects, and MetalLB counts a speaker whose Node object it cannot find
// as available (speaker/main.go: IsNetworkUnavailable(nil) is false, and no exclusion label can be read from
// nothing). A live speaker without a Node object (deleted and not yet recreated, or a cache that has not seen it)
// must be elected just the same, or mlb and MetalLB speakers would disagree on the owner of its IPs.
import { describe, expect, it } from 'vitest';
import { decideCluster, type LiveMember } from '../../../src/daemon/cluster-decision';
import { encodeNodeMeta } from '../../../src/gossip/node-meta';
import { parseIP, type IP } from '../../../src/ip';
import { rankNodes } from '../../../src/election';
import { translateCluster } from '../../../src/sources/k8s/translate-cluster';
import { basicCluster, cluster, node, slice } from '../../sources/k8s/cluster-fixtures';

const IP_TEXT = '192.0.2.1';
const SPEAKERS = ['node-a', 'node-b', 'node-c'];
const mlb = (name: string): LiveMember => ({
  name,
  meta: encodeNodeMeta({ labels: {}, conditions: [], draining: false, warmingUp: false }),
});

/** node-a's view of the election of default/web (192.0.2.1, served on every node) with these Node objects. */
function ownerWith(nodes: ReturnType<typeof node>[]): string | null | undefined {
  const objects = cluster({
    ...basicCluster(),
    nodes,
    endpointslices: [
      slice(
        'web-1',
        'web',
        SPEAKERS.map((n, i) => ({ ip: `10.0.0.${i + 1}`, node: n })),
      ),
    ],
  });
  const { result, endpoints } = translateCluster(objects, 'https://127.0.0.1:6443');
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  const decision = decideCluster({
    self: 'node-a',
    snapshot: result.snapshot,
    live: SPEAKERS.map(mlb),
    addresses: new Map([['default/web', { ips: [parseIP(IP_TEXT) as IP], pool: 'public' }]]),
    passing: new Map(),
    endpoints,
  });
  return decision.outcomes.find((o) => o.service === 'default/web')?.winner;
}

describe('a live speaker without a Node object', () => {
  it('is elected as MetalLB elects it (available), and loses the IP once its Node says NetworkUnavailable', () => {
    // The fixture means something only if node-c is MetalLB's hash winner for the IP.
    expect(rankNodes(SPEAKERS, IP_TEXT)).toEqual(['node-c', 'node-a', 'node-b']);
    expect(ownerWith([node('node-a'), node('node-b')])).toBe('node-c');
    expect(ownerWith([node('node-a'), node('node-b'), node('node-c', { networkUnavailable: true })])).toBe('node-a');
  });
});
