/**
 * Two gossip nodes on loopback whose keys differ (or one of which has none): the join fails, and both sides warn,
 * naming the other's address and saying the keys must match; each dropped stream is counted by its reason.
 */
import type { Log } from '../../src/runtime/log';
import { afterEach, describe, expect, it } from 'vitest';
import { Keyring } from '../../src/gossip/codec';
import { GossipNode, type GossipNodeOptions } from '../../src/gossip/gossip-node';
import { FAST_CONFIG } from '../../src/gossip/swim';
import { realRuntime, type Runtime } from '../../src/runtime';

const nodes: GossipNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

interface Line {
  level: string;
  reason: string;
  message: string;
  fields?: Readonly<Record<string, unknown>>;
}

async function node(name: string, key?: number, runtime?: Runtime): Promise<{ node: GossipNode; lines: Line[] }> {
  const lines: Line[] = [];
  const options: GossipNodeOptions = {
    name,
    bind: { host: '127.0.0.1', port: 0 },
    config: FAST_CONFIG,
    seed: 1,
    ...(key === undefined ? {} : { keyring: Keyring.create(new Uint8Array(32).fill(key)) }),
    ...(runtime ? { runtime } : {}),
    log: recordLines(lines),
  };
  const n = await GossipNode.create(options);
  nodes.push(n);
  return { node: n, lines };
}

/** A Log that keeps each line as level, reason, message and the other fields. */
function recordLines(lines: Line[]): Log {
  const at = (level: string) => (fields: object, message?: string) => {
    const { event: _event, reason, ...rest } = fields as { event?: unknown; reason: string };
    lines.push({ level, reason, message: message ?? '', ...(Object.keys(rest).length > 0 ? { fields: rest } : {}) });
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const mismatches = (lines: Line[]) => lines.filter((l) => l.reason === 'keyMismatch');

describe('GossipNode with a different gossip key', () => {
  it('both sides name the other and say the keys must match: two different keys', async () => {
    const a = await node('a', 1);
    const c = await node('c', 2);
    const result = await c.node.join([a.node.localAddress]);
    expect(result.joined).toBe(0);
    const aSays = mismatches(a.lines);
    expect(aSays).toHaveLength(1);
    expect(aSays[0]?.level).toBe('warn');
    expect(aSays[0]?.message).toMatch(
      /^127\.0\.0\.1:\d+ sent gossip that this node's key cannot decrypt: the gossip key must be the same on every node/,
    );
    expect(aSays[0]?.message).toContain('memberlist secretkey');
    const cSays = mismatches(c.lines);
    expect(cSays).toHaveLength(1);
    expect(cSays[0]?.fields?.peer).toBe(`127.0.0.1:${a.node.localAddress.port}`);
    expect(cSays[0]?.message).toContain(`127.0.0.1:${a.node.localAddress.port} sent gossip that this node's key cannot decrypt`);
    expect(a.node.counters.drops.decryptFailed).toBe(1);
    expect(c.node.counters.drops.decryptFailed).toBe(1);
    expect(a.node.liveMembers().map((m) => m.name)).toEqual(['a']);
  });

  it('a plaintext node joining an encrypted one', async () => {
    const a = await node('a', 1);
    const c = await node('c');
    expect((await c.node.join([a.node.localAddress])).joined).toBe(0);
    expect(mismatches(a.lines)[0]?.message).toMatch(/^127\.0\.0\.1:\d+ sent plaintext gossip to this node, which encrypts: /);
    expect(mismatches(c.lines)[0]?.message).toMatch(
      new RegExp(`^127\\.0\\.0\\.1:${a.node.localAddress.port} sent encrypted gossip to this node, which has no --gossip-key-file: `),
    );
    expect(a.node.counters.drops.notEncrypted).toBe(1);
    expect(c.node.counters.drops.unexpectedEncryption).toBe(1);
  });

  it('an encrypted node joining a plaintext one', async () => {
    const a = await node('a');
    const c = await node('c', 2);
    expect((await c.node.join([a.node.localAddress])).joined).toBe(0);
    expect(mismatches(a.lines)[0]?.message).toMatch(
      /^127\.0\.0\.1:\d+ sent encrypted gossip to this node, which has no --gossip-key-file: /,
    );
    expect(mismatches(c.lines)[0]?.message).toMatch(
      new RegExp(`^127\\.0\\.0\\.1:${a.node.localAddress.port} sent plaintext gossip to this node, which encrypts: `),
    );
    expect(a.node.counters.drops.unexpectedEncryption).toBe(1);
    expect(c.node.counters.drops.notEncrypted).toBe(1);
  });

  it('warns once per interval for a peer that keeps trying, and counts every attempt', async () => {
    // a's clock runs a minute ahead once the first warning is out: the next one is due, with the count between.
    let skew = 0;
    const a = await node('a', 1, realRuntime({ now: () => Date.now() + skew }));
    const c = await node('c', 2);
    await c.node.join([a.node.localAddress]);
    await c.node.join([a.node.localAddress]);
    expect(a.node.counters.drops.decryptFailed).toBe(2);
    expect(mismatches(a.lines)).toHaveLength(1);
    skew += 60_000;
    await c.node.join([a.node.localAddress]);
    const again = mismatches(a.lines);
    expect(again).toHaveLength(2);
    expect(again[1]?.message).toContain('(1 more since the last warning)');
  });
});
