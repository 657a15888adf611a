// What one recomputation of the speaker decides, without a socket: what this node answers for and when, what it
// tells its BGP peers, and how it reports an owner change. These are the decisions an operator sees in the
// ARP caches, the router's table and the ownerChanged lines.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LiveMember } from '../../src/daemon/cluster-decision';
import type { AnnouncedIP } from '../../src/daemon/local-announcements';
import type { GoneHolders, OwnerHistory } from '../../src/daemon/owner-history';
import { planSpeaker, withdrawReason, type SpeakerPlanInputs } from '../../src/daemon/speaker-plan';
import { encodeNodeMeta } from '../../src/gossip/node-meta';
import { formatIP, parseIP, type IP } from '../../src/ip';
import { parseConfig, type Snapshot } from '../../src/model';
import { configSnapshot } from './config-facts/config-yaml';

const WEB_IP = '192.0.2.10';
const web = configSnapshot(['web']);
const webAddresses = new Map([['demo/web', { ips: [parseIP(WEB_IP) as IP], pool: 'lan' }]]);

function member(name: string, facts: { draining?: boolean; macs?: string[] } = {}): LiveMember {
  return {
    name,
    meta: encodeNodeMeta({
      labels: {},
      conditions: [],
      draining: facts.draining ?? false,
      warmingUp: false,
      ...(facts.macs ? { macs: facts.macs } : {}),
    }),
  };
}

function inputs(
  self: string,
  live: LiveMember[],
  more: Partial<SpeakerPlanInputs> & { snapshot?: Snapshot; addresses?: typeof webAddresses } = {},
): SpeakerPlanInputs {
  const { snapshot = web, addresses = webAddresses, ...rest } = more;
  return {
    election: { self, snapshot, live, known: live, addresses, passing: new Map() },
    joined: true,
    handingOver: undefined,
    announced: [],
    owners: new Map(),
    gone: () => undefined,
    members: live,
    previousMlbInputs: undefined,
    now: 10_000,
    ...rest,
  };
}

/** The node the election gives the web IP among `names`. */
function ownerAmong(names: string[]): string {
  const winner = planSpeaker(
    inputs(
      names[0] as string,
      names.map((n) => member(n)),
    ),
  ).decision.outcomes[0]?.winner;
  if (!winner) throw new Error('nobody elected');
  return winner;
}

const announcedWeb = (interfaces: string[]): AnnouncedIP => ({
  service: 'demo/web',
  ip: WEB_IP,
  address: parseIP(WEB_IP) as IP,
  interfaces,
  since: 1_000,
});

describe('planSpeaker: what this node answers for at layer 2', () => {
  it('announces the IP it is elected for once it has joined, and nothing before (it would pull every VIP to itself)', () => {
    const self = ownerAmong(['node-1', 'node-2']);
    const live = ['node-1', 'node-2'].map((n) => member(n));
    expect(planSpeaker(inputs(self, live)).layer2.map((o) => o.service)).toEqual(['demo/web']);
    const before = planSpeaker(inputs(self, live, { joined: false }));
    expect(before.decision.outcomes[0]?.winner).toBe(self);
    expect(before.layer2).toEqual([]);
    expect(before.bgp).toBeUndefined();
  });

  it('a leaving node keeps announcing what it held, on the same interfaces, while the election gives it to its successor', () => {
    const self = ownerAmong(['node-1', 'node-2']);
    const successor = self === 'node-1' ? 'node-2' : 'node-1';
    // Leaving: this node drains, so the election moves the IP to the other node.
    const live = [member(self, { draining: true }), member(successor)];
    const leaving = inputs(self, live, { announced: [announcedWeb(['eth1'])] });
    const notHandingOver = planSpeaker(leaving);
    expect(notHandingOver.decision.outcomes[0]?.winner).toBe(successor);
    expect(notHandingOver.layer2).toEqual([]);
    const handingOver = planSpeaker({ ...leaving, handingOver: [WEB_IP] });
    expect(handingOver.layer2).toEqual([{ service: 'demo/web', ip: parseIP(WEB_IP), interfaces: ['eth1'] }]);
    // Once the handover is over (handingOver cleared by the stop), the IP is withdrawn, and the log says why.
    expect(withdrawReason(notHandingOver.decision, self, 'demo/web', WEB_IP)).toBe('nodeDraining');
  });

  it('a withdrawn service is logged as deleted', () => {
    const plan = planSpeaker(inputs('node-1', [member('node-1')]));
    expect(withdrawReason(plan.decision, 'node-1', 'demo/gone', WEB_IP)).toBe('serviceDeleted');
  });
});

describe('planSpeaker: owner changes', () => {
  it('reports a takeover from a crashed owner with how long nobody answered, measured from its last packet', () => {
    const crashed = ownerAmong(['node-1', 'node-2']);
    const self = crashed === 'node-1' ? 'node-2' : 'node-1';
    const both = ['node-1', 'node-2'].map((n) => member(n));
    const first = planSpeaker(inputs(self, both, { now: 1_000 }));
    expect(first.ownerChanges.map((r) => r.change.unheldReason)).toEqual(['firstHolder']);
    // The crashed owner was last heard at 5 000 and declared dead at 5 700; this node took over at 5 900.
    const gone: GoneHolders = (node) => (node === crashed ? { lastHeardAt: 5_000, goneAt: 5_700 } : undefined);
    const second = planSpeaker(inputs(self, [member(self)], { owners: first.owners as OwnerHistory, gone, now: 5_900 }));
    expect(second.ownerChanges).toHaveLength(1);
    const [{ change, message }] = second.ownerChanges as [(typeof second.ownerChanges)[number]];
    expect(change).toMatchObject({ from: [crashed], to: [self], unheldMs: 900, unheldReason: 'holderGone', detectionMs: 700 });
    expect(message).toBe(
      `demo/web ${WEB_IP}: ${crashed} -> ${self} (unheld 900 ms: ${crashed} declared gone 700 ms after its last packet)`,
    );
    // Nothing changes next time: no report again.
    expect(planSpeaker(inputs(self, [member(self)], { owners: second.owners, gone, now: 7_000 })).ownerChanges).toEqual([]);
  });

  it('a handover between two live nodes is reported with no unheld time', () => {
    const owner = ownerAmong(['node-1', 'node-2']);
    const other = owner === 'node-1' ? 'node-2' : 'node-1';
    const first = planSpeaker(
      inputs(
        other,
        ['node-1', 'node-2'].map((n) => member(n)),
        { now: 1_000 },
      ),
    );
    const drained = planSpeaker(inputs(other, [member(owner, { draining: true }), member(other)], { owners: first.owners, now: 2_000 }));
    expect(drained.ownerChanges.map((r) => [r.change.unheldReason, r.change.unheldMs, r.message])).toEqual([
      ['handedOver', 0, `demo/web ${WEB_IP}: ${owner} -> ${other}`],
    ]);
  });

  it('says whether health, drain and warm-up take part only when that changes', () => {
    const live = [member('node-1')];
    const first = planSpeaker(inputs('node-1', live));
    expect(first.electionInputsChanged?.allowed).toBe(true);
    expect(planSpeaker(inputs('node-1', live, { previousMlbInputs: true })).electionInputsChanged).toBeUndefined();
    // A plain MetalLB speaker (no mlb meta) joins: the election falls back to MetalLB's inputs, and says so.
    const mixed = planSpeaker(inputs('node-1', [...live, { name: 'metallb-speaker' }], { previousMlbInputs: true }));
    expect(mixed.electionInputsChanged?.allowed).toBe(false);
  });
});

describe('planSpeaker: what the self-check expects', () => {
  it("maps every member's published MAC to it, so its answers are recognised", () => {
    const members = [
      member('node-1', { macs: ['02:00:00:00:00:01'] }),
      member('node-2', { macs: ['02:00:00:00:00:02', '02:00:00:00:00:03'] }),
    ];
    const plan = planSpeaker(inputs('node-1', members));
    expect([...plan.macOwners]).toEqual([
      ['02:00:00:00:00:01', 'node-1'],
      ['02:00:00:00:00:02', 'node-2'],
      ['02:00:00:00:00:03', 'node-2'],
    ]);
  });
});

describe('planSpeaker: BGP', () => {
  const parsed = parseConfig(readFileSync('examples/bgp.yaml', 'utf8'), 'bgp.yaml');
  if (!parsed.ok) throw new Error('examples/bgp.yaml does not parse');
  const snapshot = parsed.snapshot;
  const addresses = new Map([['demo/hello-lb', { ips: [parseIP('192.168.20.100') as IP], pool: 'bgp' }]]);
  const live = [member('k8s-node-1')];

  it('keeps the session with the peer (with its BFD profile) and advertises the route', () => {
    const plan = planSpeaker(inputs('k8s-node-1', live, { snapshot, addresses }));
    expect(plan.bgp?.peers.map((p) => [p.peer.meta.name, p.bfdProfile?.meta.name])).toEqual([['router', 'fast']]);
    expect(plan.bgp?.routes.map((r) => r.prefix)).toEqual(['192.168.20.100/32']);
    expect(plan.bgpBound.map(formatIP)).toEqual(['192.168.20.100']);
  });

  it('while handing over, withdraws the routes first but keeps the session', () => {
    const plan = planSpeaker(inputs('k8s-node-1', live, { snapshot, addresses, handingOver: [] }));
    expect(plan.bgp?.peers.map((p) => p.peer.meta.name)).toEqual(['router']);
    expect(plan.bgp?.routes).toEqual([]);
  });
});
