// The daemon's election leaves out a node whose configuration lacks a service, and only while every live
// member is mlb: with a plain MetalLB speaker live, mlb elects exactly as MetalLB would.
import { describe, expect, it } from 'vitest';
import { decideCluster, type LiveMember } from '../../src/daemon/cluster-decision';
import { IncrementalElection } from '../../src/election';
import { encodeNodeMeta } from '../../src/gossip/node-meta';
import { parseIP, type IP } from '../../src/ip';
import { configSnapshot } from './config-facts/config-yaml';

const snapshot = configSnapshot(['web']);
const mlb = (name: string): LiveMember => ({
  name,
  meta: encodeNodeMeta({ labels: {}, conditions: [], draining: false, warmingUp: false }),
});
const addresses = new Map([['demo/web', { ips: [parseIP('192.0.2.10') as IP], pool: 'lan' }]]);

function decide(live: LiveMember[], lacking: string[]) {
  return decideCluster({
    self: 'node-1',
    snapshot,
    live,
    addresses,
    passing: new Map(),
    notConfiguredOn: (key) => (key === 'demo/web' ? lacking : []),
  });
}

describe('decideCluster with a node whose configuration lacks the service', () => {
  const nodes = ['node-1', 'node-2', 'node-3'];
  const owner = decide(nodes.map(mlb), []).outcomes[0]?.winner as string;

  it('elects another node, and explain gives the left-out node serviceNotConfigured', () => {
    const decision = decide(nodes.map(mlb), [owner]);
    expect(decision.outcomes[0]?.winner).not.toBe(owner);
    expect(decision.outcomes[0]?.winner).not.toBeNull();
    expect(decision.explain()[0]?.candidates.find((c) => c.node === owner)?.reason).toBe('serviceNotConfigured');
  });

  it('ignores it while a plain MetalLB speaker is live (which would still elect that node)', () => {
    const live = [...nodes.map(mlb), { name: 'metallb-2' }];
    const plain = decide(live, []).outcomes[0]?.winner as string;
    expect(plain).toMatch(/^node-/);
    expect(decide(live, [plain]).outcomes[0]?.winner).toBe(plain);
    expect(decide(live.slice(0, 3), [plain]).outcomes[0]?.winner).not.toBe(plain);
  });
});

describe('decideCluster when a member dies', () => {
  // The advertisement selects nodes by a label only the members' own meta carries (no Node documents).
  const zoned = configSnapshot(['web'], { nodeLabels: { zone: 'z1' } });
  const inZone = (name: string): LiveMember => ({
    name,
    meta: encodeNodeMeta({ labels: { zone: 'z1' }, conditions: [], draining: false, warmingUp: false }),
  });
  const members = ['node-1', 'node-2', 'node-3'].map(inZone);
  const decide = (live: LiveMember[], elector: IncrementalElection) => {
    return decideCluster({ self: 'node-1', snapshot: zoned, live, known: members, addresses, passing: new Map() }, elector);
  };

  it('describes it as it last described itself: notLiveMember, and only the leave is applied to the election', () => {
    const elector = new IncrementalElection();
    const owner = decide(members, elector).outcomes[0]?.winner as string;
    const after = decide(
      members.filter((m) => m.name !== owner),
      elector,
    );
    expect(after.outcomes[0]?.winner).not.toBe(owner);
    expect(after.explain()[0]?.candidates.find((c) => c.node === owner)?.reason).toBe('notLiveMember');
    // Described by name only, the dead node would have lost its labels: a new context, every service elected again.
    expect(elector.stats).toMatchObject({ full: 1, incremental: 1, membershipChanges: 1 });
  });
});
