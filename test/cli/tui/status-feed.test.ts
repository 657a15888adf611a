/**
 * The TUI's feed against an in-memory daemon: an event brings a fresh snapshot within the debounce, the poll
 * catches what no event announced, a lost daemon is reported and the feed reconnects, and a restarted daemon is
 * followed from its first event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StatusFeed, type FeedTiming, type FeedView } from '../../../src/cli/tui/status-feed';
import { exampleExplanations, exampleSnapshot } from '../../daemon/control/fake-daemon';
import { ManualScheduler } from '../../support/manual-scheduler';
import { FakeStatusClient, until } from './fake-status-client';

const FAST: FeedTiming = { debounceMs: 20, pollMs: 5_000, reconnectMs: 30 };

const feeds: StatusFeed[] = [];
afterEach(() => {
  for (const f of feeds.splice(0)) f.stop();
});

function startFeed(client: FakeStatusClient, timing: FeedTiming = FAST, scheduler?: ManualScheduler) {
  const views: FeedView[] = [];
  const feed = new StatusFeed(client, client.snapshot, (v) => views.push(v), timing, scheduler);
  feeds.push(feed);
  feed.start();
  return { feed, views, last: () => views.at(-1) ?? feed.current };
}

const ownerOf = (view: FeedView, service: string) => view.snapshot.services.find((s) => s.service === service)?.owner;

function moveOwner(client: FakeStatusClient, service: string, to: string): void {
  client.snapshot = {
    ...client.snapshot,
    services: client.snapshot.services.map((s) => (s.service === service ? { ...s, owner: to, announcing: [to] } : s)),
  };
}

describe('StatusFeed', () => {
  it('reads a fresh snapshot right after an event, long before the next poll', async () => {
    const client = new FakeStatusClient(exampleSnapshot());
    const { last } = startFeed(client);
    await until(() => client.following === 1);
    moveOwner(client, 'demo/web', 'node-b');
    const t0 = Date.now();
    client.record({
      type: 'ownerChanged',
      service: 'demo/web',
      protocol: 'layer2',
      ips: ['192.168.10.200'],
      from: ['node-a'],
      to: ['node-b'],
      unheldMs: 120,
    });
    await until(() => ownerOf(last(), 'demo/web') === 'node-b');
    expect(Date.now() - t0).toBeLessThan(FAST.pollMs);
    expect(last().events.map((e) => e.type)).toEqual(['ownerChanged']);
  });

  it('turns a burst of events into one snapshot read', async () => {
    const client = new FakeStatusClient(exampleSnapshot());
    const { last } = startFeed(client);
    await until(() => client.following === 1);
    const before = client.snapshotReads;
    for (const m of ['a', 'b', 'c', 'd', 'e']) client.record({ type: 'memberJoined', member: m });
    await until(() => last().events.length === 5);
    await new Promise((r) => setTimeout(r, FAST.debounceMs * 4));
    expect(client.snapshotReads - before).toBe(1);
  });

  it('polls without events, so a change nobody announced still shows', async () => {
    const client = new FakeStatusClient(exampleSnapshot());
    const { last } = startFeed(client, { ...FAST, pollMs: 50 });
    moveOwner(client, 'demo/web', 'node-c');
    await until(() => ownerOf(last(), 'demo/web') === 'node-c');
  });

  it('says the daemon is gone, keeps the last snapshot, and reconnects and catches up when it is back', async () => {
    const client = new FakeStatusClient(exampleSnapshot());
    const { last } = startFeed(client);
    await until(() => client.following === 1);
    client.record({ type: 'memberJoined', member: 'a' });
    await until(() => last().events.length === 1);
    client.crash();
    await until(() => !last().connected);
    expect(last().problem).toContain('no control socket');
    expect(ownerOf(last(), 'demo/web')).toBe('node-a');
    client.down = false;
    client.record({ type: 'memberJoined', member: 'b' });
    await until(() => last().connected && last().events.length === 2);
    // The same run: the stream resumed after the last event seen.
    expect(client.follows.at(-1)).toBe(1);
  });

  it('follows a restarted daemon from its first event (its numbering starts again)', async () => {
    const client = new FakeStatusClient(exampleSnapshot());
    const { last } = startFeed(client);
    await until(() => client.following === 1);
    for (const m of ['a', 'b', 'c']) client.record({ type: 'memberJoined', member: m });
    await until(() => last().events.length === 3);
    client.crash();
    await until(() => !last().connected);
    client.restart('2024-05-01T10:01:00.000Z');
    client.record({ type: 'configReloaded', file: '/etc/mlb/mlb.yaml' });
    await until(() => last().events.length === 4);
    expect(client.follows.at(-1)).toBe(0);
    expect(last().events.at(-1)).toMatchObject({ seq: 1, type: 'configReloaded' });
  });

  it("keeps the watched IP's explanation current and forgets it when unwatched", async () => {
    const explanations = await exampleExplanations();
    const ip = explanations[0]!.ip;
    const client = new FakeStatusClient(exampleSnapshot(), explanations);
    const { feed, last } = startFeed(client);
    feed.watchExplain(ip);
    expect(feed.current.explain).toEqual({ ip, explanations: null, problem: null });
    await until(() => last().explain?.explanations !== null);
    expect(last().explain?.explanations?.every((e) => e.ip === ip)).toBe(true);
    const asked = client.explainAsks.length;
    await until(() => client.following === 1);
    client.record({ type: 'memberFailed', member: 'node-b' });
    await until(() => client.explainAsks.length > asked);
    expect(client.explainAsks.at(-1)).toEqual([ip]);
    feed.watchExplain(null);
    await until(() => last().explain === null);
  });

  it('stops every timer and stream on stop', async () => {
    const clock = new ManualScheduler();
    const client = new FakeStatusClient(exampleSnapshot());
    const { feed, views } = startFeed(client, { ...FAST, pollMs: 20 }, clock);
    await until(() => client.following === 1);
    const polled = client.snapshotReads;
    await clock.advance(20);
    expect(client.snapshotReads).toBeGreaterThan(polled); // the poll runs on this clock
    client.record({ type: 'memberFailed', member: 'node-b' }); // arms the debounce: stop() must cancel it too
    feed.stop();
    await until(() => client.following === 0);
    expect(clock.pending).toBe(0); // no poll, debounce or reconnect pause left
    const reads = client.snapshotReads;
    const heard = views.length;
    await clock.advance(10_000);
    expect(client.snapshotReads).toBe(reads);
    expect(views.length).toBe(heard);
  });
});
