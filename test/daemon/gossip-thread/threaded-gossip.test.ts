/**
 * The daemon's gossip on a thread of its own (src/daemon/gossip-thread/threaded-gossip.ts), run from the built
 * bundle as the daemon runs it, on loopback: the mirror of the membership, events and commands across the thread
 * boundary, and what the thread is for: a main thread held busy (a decision over 10,000 services) no longer keeps
 * acks from peers, while a node on the main thread is suspected for the same stall.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ThreadedGossip, WarmGossipThread } from '../../../src/daemon/gossip-thread/threaded-gossip';
import { GossipNode, FAST_CONFIG, type Gossip } from '../../../src/gossip';
import { MLB_BUNDLE } from '../../cli/run-cli';
import { SILENT_LOG } from '../../../src/runtime/log';
import { createSocket } from 'node:dgram';

const LOOPBACK = { host: '127.0.0.1', port: 0 };
const opened: Gossip[] = [];

function threaded(name: string): Promise<ThreadedGossip> {
  return ThreadedGossip.start({ name, bind: LOOPBACK, config: FAST_CONFIG, script: MLB_BUNDLE }).then((g) => {
    opened.push(g);
    return g;
  });
}

/** Resolves when `check` holds, looking every 20 ms (the view crosses the thread every VIEW_REFRESH_MS). */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Holds this thread (its event loop and everything on it) for `ms`, as a long synchronous decision would. */
function holdMainThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const stateOf = (g: Gossip, name: string) => g.members().find((m) => m.name === name)?.state;

afterEach(async () => {
  await Promise.all(opened.splice(0).map((g) => g.close()));
});

describe('gossip on a thread of its own', () => {
  it('sends the main thread no view while nothing changes (a lone node idles), and one when something does', async () => {
    const received = vi.spyOn(ThreadedGossip.prototype as unknown as { received(m: { kind: string }): void }, 'received');
    try {
      const a = await threaded('node-a');
      const views = () => received.mock.calls.filter(([m]) => m.kind === 'view').length;
      // The ready message carried a view; the first refresh crosses too (nothing was sent before it to compare).
      await until(() => views() >= 2, 'the first refresh');
      const before = views();
      // Ten refreshes in this second, each saying the same: none crosses. (An absence takes its time to show.)
      await new Promise((r) => setTimeout(r, 1_000));
      expect(views()).toBe(before);
      const b = await threaded('node-b');
      expect(await a.join([b.localAddress])).toEqual({ joined: 1, errors: [] });
      await until(() => views() > before, 'a view once b is heard from');
    } finally {
      received.mockRestore();
    }
  });

  it('joins, mirrors the members and carries broadcasts and events both ways', async () => {
    const a = await threaded('node-a');
    const b = await threaded('node-b');
    const joinedOnA: string[] = [];
    a.on('join', (m) => joinedOnA.push(m.name));
    const heard: string[] = [];
    b.on('userMessage', (bytes) => heard.push(Buffer.from(bytes).toString()));
    expect(await a.join([b.localAddress])).toEqual({ joined: 1, errors: [] });
    await until(() => a.liveMembers().length === 2 && b.liveMembers().length === 2, 'both see both');
    expect(joinedOnA).toContain('node-b');
    await until(() => (a.lastHeardFrom('node-b') ?? 0) > 0, 'a has heard from b');
    a.broadcast(new TextEncoder().encode('hello from a'));
    await until(() => heard.includes('hello from a'), 'the broadcast arrives on b');
    await until(() => a.counters.packetsSent > 0, "a's counters cross with the view");
    // A meta change reaches the other side as an update.
    const updated: string[] = [];
    b.on('update', (m) => updated.push(Buffer.from(m.meta ?? []).toString()));
    a.setMeta(new TextEncoder().encode('meta-2'));
    await until(() => updated.includes('meta-2'), 'the meta update arrives on b');
    // The mirror follows too (views between changes leave the members out; the change brings them again).
    const metaOnB = () => Buffer.from(b.members().find((m) => m.name === 'node-a')?.meta ?? []).toString();
    await until(() => metaOnB() === 'meta-2', "b's mirror of a carries the new meta");
    expect(await a.leave(1_000)).toBe('broadcast');
    await until(() => stateOf(b, 'node-a') === 'left', 'b sees a left');
  });

  it('a thread begun ahead of its options runs the node it is then given, with its meta and debug lines', async () => {
    const warm = WarmGossipThread.begin({ script: MLB_BUNDLE });
    // The daemon reads its configuration meanwhile; the node's meta comes from it. Whether the thread has booted by
    // the time its options are posted or not, they are the first message it takes.
    const meta = new TextEncoder().encode('from-the-config');
    const debugLines: string[] = [];
    const log = { ...SILENT_LOG, debug: (_fields: object, msg?: string) => debugLines.push(msg ?? '') };
    const debug = true;
    const a = await ThreadedGossip.start({
      name: 'node-a',
      bind: LOOPBACK,
      config: FAST_CONFIG,
      script: MLB_BUNDLE,
      warm,
      meta,
      debug,
      log,
    });
    opened.push(a);
    // The debug flag came with the options: a malformed datagram's drop is told at debug.
    const junk = createSocket('udp4');
    junk.send(Buffer.from([0xff, 0x00, 0x01]), a.localAddress.port, a.localAddress.host, () => junk.close());
    await until(() => debugLines.some((line) => line.startsWith('dropped part of a packet')), 'the drop told at debug');
    const b = await threaded('node-b');
    expect(await b.join([a.localAddress])).toEqual({ joined: 1, errors: [] });
    const metaOfA = () => Buffer.from(b.members().find((m) => m.name === 'node-a')?.meta ?? []).toString();
    await until(() => metaOfA() === 'from-the-config', 'b sees a with the meta it started with');
    // Taken once: a second start with the same warm thread starts a thread of its own.
    expect(warm.take()).toBeUndefined();
    const c = await ThreadedGossip.start({ name: 'node-c', bind: LOOPBACK, config: FAST_CONFIG, script: MLB_BUNDLE, warm });
    opened.push(c);
    expect(c.localAddress.port).not.toBe(a.localAddress.port);
  });

  it('a start that cannot bind says why, with the system error', async () => {
    const a = await threaded('node-a');
    type Failure = Error & { code?: string; cause?: { code?: string } };
    const error = await ThreadedGossip.start({ name: 'node-b', bind: a.localAddress, config: FAST_CONFIG, script: MLB_BUNDLE }).then(
      () => undefined,
      (e: unknown) => e as Failure,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error?.code).toBe('gossipStartFailed');
    expect(error?.cause?.code).toBe('EADDRINUSE');
  });

  it('answers probes while the main thread is held; a node on the main thread is suspected for the same stall', async () => {
    const a = await threaded('node-a');
    const b = await threaded('node-b');
    const c = await GossipNode.create({ name: 'node-c', bind: LOOPBACK, config: FAST_CONFIG });
    opened.push(c);
    await a.join([b.localAddress, c.localAddress]);
    await until(() => [a, b, c].every((g) => g.liveMembers().length === 3), 'all three see all three');
    const alarms: string[] = [];
    for (const [who, g] of [
      ['a', a],
      ['b', b],
    ] as const) {
      g.on('suspicion', (m, confirmed) => confirmed && alarms.push(`${who} confirms ${m.name} suspect`));
      g.on('leave', (m) => alarms.push(`${who} declares ${m.name} ${m.state}`));
    }
    // Longer than a whole probe round with its TCP fallback (2 s) and the suspicion minimum (600 ms).
    holdMainThread(5_000);
    // What the threads said meanwhile is queued for this thread: read it.
    await until(() => alarms.some((line) => line.endsWith('node-c dead')), 'a or b declares c dead', 5_000);
    expect(alarms.filter((line) => !line.includes('node-c'))).toEqual([]);
    expect(stateOf(a, 'node-b')).toBe('alive');
    expect(stateOf(b, 'node-a')).toBe('alive');
    // Neither threaded node ever had to refute a suspicion of itself.
    expect(a.members().find((m) => m.name === 'node-a')?.incarnation).toBe(1);
    expect(b.members().find((m) => m.name === 'node-b')?.incarnation).toBe(1);
  });
});
