import { afterEach, describe, expect, it } from 'vitest';
import { GossipNode, GossipNodeError } from '../../src/gossip/gossip-node';
import { FAST_CONFIG } from '../../src/gossip/swim';

const nodes: GossipNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

async function node(name: string): Promise<GossipNode> {
  const n = await GossipNode.create({ name, bind: { host: '127.0.0.1', port: 0 }, config: FAST_CONFIG, seed: 1 });
  nodes.push(n);
  return n;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('GossipNode on loopback', () => {
  it('joins, sees the other alive, and hears a leave as left', async () => {
    const a = await node('a');
    const b = await node('b');
    const left: string[] = [];
    a.on('leave', (m) => left.push(`${m.name}:${m.state}`));
    expect(await b.join([a.localAddress])).toEqual({ joined: 1, errors: [] });
    await until(() => a.liveMembers().length === 2);
    expect(await b.leave(1000)).toBe('broadcast');
    await until(() => left.length === 1);
    expect(left).toEqual(['b:left']);
  });

  it('answers a second leave() at once and still settles the first', async () => {
    const a = await node('a');
    const b = await node('b');
    await b.join([a.localAddress]);
    const first = b.leave(1000);
    expect(await b.leave(1000)).toBe('alreadyLeft');
    expect(await first).toBe('broadcast');
  });

  it('settles a join that is under way when the node is closed, and later calls at once', async () => {
    const a = await node('a');
    // Nothing listens on this port's TCP side once closed: the join would wait for its timeout.
    const silent = await node('silent');
    const target = silent.localAddress;
    await silent.close();
    const pending = a.join([target]);
    await a.close();
    expect((await pending).joined).toBe(0);
    expect(await a.join([target])).toMatchObject({ joined: 0, errors: [{ error: 'the gossip node was closed' }] });
    expect(await a.leave(100)).toBe('alreadyLeft');
  });

  it('refuses a wildcard bind without an address to advertise', async () => {
    await expect(GossipNode.create({ name: 'w', bind: { host: '0.0.0.0', port: 0 } })).rejects.toBeInstanceOf(GossipNodeError);
  });
});
