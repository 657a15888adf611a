/**
 * GossipNode on the runtime seam: given the virtual runtime (virtual clock and timers, a network of copied
 * bytes between made-up hosts), nodes join, probe, detect a crash and cut a silent stream with no real socket or
 * timer. The hosts' addresses are on no interface of this machine, so a node that bound a real socket would fail
 * to start; and minutes of virtual time pass in a moment, so a node on real timers would miss every deadline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodePacket, Keyring } from '../../src/gossip/codec';
import { GossipNode } from '../../src/gossip/gossip-node';
import { FAST_CONFIG } from '../../src/gossip/swim';
import { VirtualNetwork, type SentDatagram } from '../../src/runtime';

const HOSTS = ['10.77.0.1', '10.77.0.2', '10.77.0.3'] as const;
const KEY = new Uint8Array(32).fill(7);
/** Time enough for FAST_CONFIG joins to finish and a few probe rounds to run (probe interval 200 ms). */
const SETTLE_MS = 3_000;

const nodes: GossipNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

/** A virtual network whose every datagram is kept, as sent, to be decoded with the real codec. */
function world(seed = 1): { net: VirtualNetwork; datagrams: SentDatagram[] } {
  const net = new VirtualNetwork({ seed, link: { latency: 1, jitter: 0, loss: 0 } });
  const datagrams: SentDatagram[] = [];
  net.tapDatagrams((d) => datagrams.push(d));
  return { net, datagrams };
}

async function cluster(net: VirtualNetwork): Promise<GossipNode[]> {
  const created = await Promise.all(
    HOSTS.map((host, i) =>
      GossipNode.create({
        name: `node-${i}`,
        bind: { host, port: 7946 },
        config: FAST_CONFIG,
        keyring: Keyring.create(KEY),
        runtime: net.host(host),
      }),
    ),
  );
  nodes.push(...created);
  const [first, ...others] = created as [GossipNode, ...GossipNode[]];
  const joins = Promise.all(others.map((n) => n.join([first.localAddress])));
  await net.advance(SETTLE_MS);
  expect(await joins).toEqual(others.map(() => ({ joined: 1, errors: [] })));
  return created;
}

const liveNames = (n: GossipNode) =>
  n
    .liveMembers()
    .map((m) => m.name)
    .sort();

describe('GossipNode on an in-memory runtime', () => {
  it('joins and sees every node alive, over encrypted memberlist packets on the in-memory wire', async () => {
    const { net, datagrams } = world();
    const all = await cluster(net);
    for (const n of all) expect(liveNames(n)).toEqual(['node-0', 'node-1', 'node-2']);
    expect(all.map((n) => n.localAddress)).toEqual(HOSTS.map((host) => ({ host, port: 7946 })));

    // What crossed the wire is memberlist's packet format, encrypted: readable with the key, not without it.
    expect(datagrams.length).toBeGreaterThan(0);
    const decoded = datagrams.map((d) => decodePacket(d.bytes, { keyring: Keyring.create(KEY), verifyIncoming: true }));
    expect(decoded.flatMap((d) => d.drops)).toEqual([]);
    const types = new Set(decoded.flatMap((d) => d.messages.map((m) => m.type)));
    expect(types).toContain('ping');
    expect(types).toContain('ack');
    expect(decodePacket(datagrams[0]!.bytes).messages).toEqual([]);
  });

  it('draws its randomness from the runtime: the same network seed sends the same messages, another seed others', async () => {
    const run = async (seed: number) => {
      const { net, datagrams } = world(seed);
      const all = await cluster(net);
      await Promise.all(nodes.splice(0).map((n) => n.close()));
      expect(all).toHaveLength(3);
      return datagrams.map((d) => JSON.stringify(decodePacket(d.bytes, { keyring: Keyring.create(KEY), verifyIncoming: true }).messages));
    };
    const first = await run(5);
    expect(await run(5)).toEqual(first);
    expect(await run(6)).not.toEqual(first);
  });

  it("declares a crashed node dead on the runtime's clock", async () => {
    const { net } = world();
    const [a, b] = (await cluster(net)) as [GossipNode, GossipNode, GossipNode];
    const failed: string[] = [];
    a.on('leave', (m) => failed.push(`${m.name}:${m.state}`));
    net.partition([HOSTS[0], HOSTS[1]], [HOSTS[2]]);
    await net.advance(SETTLE_MS);
    expect(failed).toEqual(['node-2:dead']);
    expect(liveNames(a)).toEqual(['node-0', 'node-1']);
    expect(liveNames(b)).toEqual(['node-0', 'node-1']);
  });

  it('resolves each join called from a member event handler with its own result', async () => {
    const { net } = world();
    const [a, b, c] = (await Promise.all(
      HOSTS.map((host, i) =>
        GossipNode.create({
          name: `node-${i}`,
          bind: { host, port: 7946 },
          config: FAST_CONFIG,
          runtime: net.host(host),
        }),
      ),
    )) as [GossipNode, GossipNode, GossipNode];
    nodes.push(a, b, c);
    // b learns of a while the reducer is still stepping the push/pull that brought it; the joins it starts from
    // there are stepped after that one, in order, and each must resolve with its own outcome.
    const fromHandler: Promise<unknown>[] = [];
    b.on('join', (m) => {
      if (m.name !== 'node-0' || fromHandler.length > 0) return;
      fromHandler.push(b.join([c.localAddress]), b.join([]));
    });
    const first = b.join([a.localAddress]);
    await net.advance(SETTLE_MS);
    expect(await first).toEqual({ joined: 1, errors: [] });
    expect(fromHandler).toHaveLength(2);
    expect(await Promise.all(fromHandler)).toEqual([
      { joined: 1, errors: [] },
      { joined: 0, errors: [] },
    ]);
    for (const n of [a, b, c]) expect(liveNames(n)).toEqual(['node-0', 'node-1', 'node-2']);
  });

  it('cuts an inbound stream that sends nothing at the stream deadline, timed by the runtime', async () => {
    const { net } = world();
    const a = await GossipNode.create({
      name: 'a',
      bind: { host: HOSTS[0], port: 7946 },
      config: FAST_CONFIG,
      seed: 1,
      runtime: net.host(HOSTS[0]),
    });
    nodes.push(a);
    const dialling = net.host('10.77.0.9').net.connectTcp(a.localAddress, { timeoutMs: 1_000 });
    await net.advance(10);
    const silent = await dialling;
    let closed = false;
    silent.onClose(() => {
      closed = true;
    });
    expect(a.counters.streamsAccepted).toBe(1);
    await net.advance(FAST_CONFIG.tcpTimeout - 100);
    expect(closed).toBe(false);
    await net.advance(200);
    expect(closed).toBe(true);
    expect(a.counters.drops.streamDeadline).toBe(1);
  });
});
