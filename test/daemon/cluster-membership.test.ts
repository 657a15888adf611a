/**
 * ClusterMembership (src/daemon/cluster-membership.ts) with real GossipNodes on a VirtualNetwork and its known
 * peers in a simulated host's memory: a node whose process came back (after its old self was declared dead and
 * forgotten by gossip) is joined again at the next rejoin tick, REJOIN_INTERVAL_MS after the last one, not before;
 * and a node restarted without --join finds the cluster through the peers it remembered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterMembership, REJOIN_INTERVAL_MS } from '../../src/daemon/cluster-membership';
import { createLogger } from '../../src/daemon/logger';
import { GossipNode } from '../../src/gossip/gossip-node';
import { FAST_CONFIG } from '../../src/gossip/swim';
import { MemoryStateFiles, VirtualNetwork } from '../../src/runtime';

const [A, B, C] = ['198.51.100.1', '198.51.100.2', '198.51.100.3'] as const;
const PORT = 7946;
/** FAST_CONFIG gossips to a dead member for 15 s: past that only a rejoin can reach its new process. */
const FORGOTTEN_MS = 20_000;

const closing: { close(): unknown }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c.close();
});

async function gossipNode(net: VirtualNetwork, name: string, ip: string): Promise<GossipNode> {
  const node = await GossipNode.create({ name, bind: { host: ip, port: PORT }, config: FAST_CONFIG, seed: 7, runtime: net.host(ip) });
  closing.push(node);
  return node;
}

/** node-a's ClusterMembership, remembering every member that becomes alive, as the speaker wires it. */
function membership(
  net: VirtualNetwork,
  gossip: GossipNode,
  files: MemoryStateFiles,
  seeds: string[],
  lines: Record<string, unknown>[] = [],
): ClusterMembership {
  const write = (chunk: string) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    return true;
  };
  const m = new ClusterMembership({
    gossip,
    self: 'node-a',
    seeds: seeds.map((host) => ({ host, port: PORT })),
    stateFiles: files,
    logger: createLogger({ destination: { write } as unknown as NodeJS.WritableStream, pretty: false }),
    runtime: net.host(A),
  });
  gossip.on('join', (member) => m.memberAlive(member));
  closing.push({ close: () => m.stop() });
  return m;
}

const sees = (node: GossipNode, name: string): boolean => node.liveMembers().some((m) => m.name === name);

/** Runs the network until `promise` settles; returns its value. */
async function settle<T>(net: VirtualNetwork, promise: Promise<T>): Promise<T> {
  let done = false;
  void promise.finally(() => (done = true));
  expect(await net.runUntil(() => done, { timeoutMs: 10_000 })).toBe(true);
  return promise;
}

describe('ClusterMembership on virtual time', () => {
  it("says the join is over when every peer reached this node first (as a Kubernetes speaker's peers do)", async () => {
    const net = new VirtualNetwork({ seed: 3 });
    const [a, b] = [await gossipNode(net, 'node-a', A), await gossipNode(net, 'node-b', B)];
    await settle(net, b.join([a.localAddress]));
    expect(await net.runUntil(() => sees(a, 'node-b'), { timeoutMs: 5_000 })).toBe(true);
    const lines: Record<string, unknown>[] = [];
    await settle(net, membership(net, a, new MemoryStateFiles('node-a'), [B], lines).start());
    expect(lines.filter((l) => l.event === 'gossipJoin').map((l) => [l.level, l.msg])).toEqual([
      ['info', 'the peer joined this node first'],
    ]);
  });

  it('joins a node whose process came back at the next rejoin tick, and only then', async () => {
    const net = new VirtualNetwork({ seed: 3 });
    const files = new MemoryStateFiles('node-a');
    const [a, b, c] = [await gossipNode(net, 'node-a', A), await gossipNode(net, 'node-b', B), await gossipNode(net, 'node-c', C)];
    await settle(net, c.join([b.localAddress]));
    const m = membership(net, a, files, [B]);
    await settle(net, m.start());
    const armedAt = net.now();
    expect(await net.runUntil(() => sees(a, 'node-c'), { timeoutMs: 5_000 })).toBe(true);
    await settle(net, m.flush());
    expect(
      JSON.parse(files.peek('known-peers.json')!)
        .peers.map((p: { name: string }) => p.name)
        .sort(),
    ).toEqual(['node-b', 'node-c']);

    net.crash(C);
    await net.advance(FORGOTTEN_MS);
    expect(sees(a, 'node-c')).toBe(false);
    const restarted = await gossipNode(net, 'node-c', C);
    const nextTick = armedAt + Math.ceil((net.now() + 1 - armedAt) / REJOIN_INTERVAL_MS) * REJOIN_INTERVAL_MS;
    await net.advance(nextTick - 1 - net.now());
    expect(sees(restarted, 'node-a')).toBe(false);
    expect(await net.runUntil(() => sees(restarted, 'node-a') && sees(a, 'node-c'), { timeoutMs: 1_000 })).toBe(true);
    expect(net.now()).toBeGreaterThanOrEqual(nextTick);
  });

  it('a node restarted without --join finds the cluster through the peers it remembered', async () => {
    const net = new VirtualNetwork({ seed: 4 });
    const files = new MemoryStateFiles('node-a');
    const [a, b] = [await gossipNode(net, 'node-a', A), await gossipNode(net, 'node-b', B)];
    const first = membership(net, a, files, [B]);
    await settle(net, first.start());
    await net.runUntil(() => sees(a, 'node-b'), { timeoutMs: 5_000 });
    await settle(net, first.flush());
    first.stop();
    net.crash(A);
    files.crash();
    await net.advance(FORGOTTEN_MS);

    const again = await gossipNode(net, 'node-a', A);
    await settle(net, membership(net, again, files, []).start());
    expect(sees(again, 'node-b')).toBe(true);
    expect(await net.runUntil(() => sees(b, 'node-a'), { timeoutMs: 1_000 })).toBe(true);
  });
});
