/**
 * A rolling upgrade on plain hosts, in network namespaces: three nodes start on the previous release (built from
 * git, test/support/previous-release.ts), then each in turn is stopped with SIGTERM (a graceful handover) and
 * started on this release. Throughout, a client keeps asking the VIP over HTTP and a broadcast arping keeps
 * asking who holds it; after each step every node, old and new, names the same owner, which alone answers ARP.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { HANDOVER_TIMEOUT_MS } from '../../src/daemon/handover';
import { MLB_BUNDLE, REPO_ROOT } from '../cli/run-cli';
import { canUseNetns } from '../support/netns-lab';
import { PREVIOUS_RELEASE_COMMIT, previousReleaseBundle } from '../support/previous-release';
import { API_IP, API_SERVICE, DaemonLab, eventually, type ClientSample } from './daemon-lab';

const netns = canUseNetns();
const previous = netns.ok ? previousReleaseBundle() : { why: netns.why };
const skip = 'why' in previous ? previous.why : undefined;
const event = (name: string) => (l: Record<string, unknown>) => l.event === name;

/**
 * iputils arping probes at most once a second (-i takes whole seconds): several of them, started this far apart,
 * ask four times a second between them, each probe broadcast (-b) so every node holding the VIP answers it.
 * They share the client's MAC, so each one hears the replies to all of them: the first one's output is the whole
 * stream (the others only send).
 */
const WATCHERS = 4;
const WATCHER_STAGGER_MS = 250;
/** Replies closer than this answer one probe (a reply takes ~1 ms here; probes are 250 ms apart). */
const SAME_PROBE_MS = 80;

interface Probe {
  readonly t: number;
  macs: string[];
}

/** Broadcast arping from the client's namespace; stop() returns every probe answered, with the MACs that did. */
async function arpWatch(lab: DaemonLab, ip: string): Promise<{ stop(): Probe[] }> {
  const children: ChildProcess[] = [];
  const probes: Probe[] = [];
  for (let i = 0; i < WATCHERS; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, WATCHER_STAGGER_MS));
    const child = spawn('ip', ['netns', 'exec', lab.client.netns, 'stdbuf', '-oL', 'arping', '-b', '-i', '1', '-I', 'eth0', ip], { stdio: ['ignore', i === 0 ? 'pipe' : 'ignore', 'ignore'] });
    children.push(child);
    if (i > 0) continue;
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const mac = /reply from \S+ \[([0-9a-f:]+)\]/i.exec(line)?.[1]?.toLowerCase();
        if (!mac) continue;
        const t = Date.now();
        const last = probes.at(-1);
        if (last && t - last.t < SAME_PROBE_MS) last.macs = [...new Set([...last.macs, mac])];
        else probes.push({ t, macs: [mac] });
      }
    });
  }
  return {
    stop: () => {
      for (const child of children) child.kill('SIGKILL');
      return probes;
    },
  };
}

/** The client's outages: from a failed request to the next answer, in ms, with when they began. */
function outages(samples: readonly ClientSample[]): { at: number; ms: number }[] {
  const out: { at: number; ms: number }[] = [];
  let failedSince: number | undefined;
  for (const s of samples) {
    if (s.node === null) failedSince ??= s.t;
    else if (failedSince !== undefined) {
      out.push({ at: failedSince, ms: s.t - failedSince });
      failedSince = undefined;
    }
  }
  return out;
}

/** Mid-upgrade, the upgraded node tells which members still run the previous release (no version advertised). */
function expectMixedView(lab: DaemonLab, upgraded: string): void {
  const members = lab.statusJSON(upgraded).members;
  expect(Object.fromEntries(members.map((m) => [m.name, m.version?.records]))).toEqual(
    Object.fromEntries(lab.nodes.map((n) => [n.name, n.name === upgraded ? 1 : 0])),
  );
  expect(members.filter((m) => m.version?.release === null).map((m) => m.name).sort()).toEqual(lab.nodes.filter((n) => n.name !== upgraded).map((n) => n.name));
  const once = spawnSync(process.execPath, [MLB_BUNDLE, 'status', '--once', '--socket', lab.socket(upgraded)], { cwd: REPO_ROOT, encoding: 'utf8' });
  expect(once.stdout).toMatch(/^releases +mixed: .*older \(no version\)/m);
}

describe.skipIf(skip !== undefined)(`rolling upgrade from ${PREVIOUS_RELEASE_COMMIT}${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let lab: DaemonLab | undefined;
  afterAll(() => lab?.destroy());

  it('keeps one owner for the VIP, named alike by old and new nodes, while each node is upgraded in turn', async () => {
    const oldBundle = (previous as { bundle: string }).bundle;
    lab = new DaemonLab(3);
    const l = lab;
    for (const node of l.nodes) l.start(node.name, [], oldBundle);
    for (const node of l.nodes) await l.daemon(node.name).waitFor(event('gossipStarted'));
    await l.settled([API_SERVICE]);
    const client = l.clientLoop(API_IP);
    const arp = await arpWatch(l, API_IP);
    await eventually(() => (client.samples.some((s) => s.node !== null) ? true : undefined));

    /** Every node's owner of the VIP by `mlb explain`, once all name the same one and it alone answers ARP. */
    const agreedOwner = () => eventually(() => {
      const winners = new Set(l.nodes.map((n) => l.explain(n.name, API_SERVICE)[0]?.winner ?? null));
      const [owner] = [...winners];
      if (winners.size !== 1 || !owner) return undefined;
      const macs = l.arpingMacs(API_IP);
      return macs.length === 1 && macs[0] === l.macOf(owner) ? owner : undefined;
    }, 30_000, 200);

    const handovers: { node: string; mac: string; from: number; to: number }[] = [];
    const owners: string[] = [await agreedOwner()];
    for (const node of l.nodes) {
      const from = Date.now();
      l.daemon(node.name).child.kill('SIGTERM');
      expect(await l.daemon(node.name).exited(), `${node.name} (old release) did not stop cleanly: ${l.daemon(node.name).stderr.join('')}`).toBe(0);
      handovers.push({ node: node.name, mac: l.macOf(node.name), from, to: Date.now() });
      const upgraded = l.start(node.name);
      await upgraded.waitFor(event('gossipStarted'));
      // Alive again in every other node's view, old ones included, and it advertises this release.
      await eventually(() => l.nodes.every((n) => l.status(n.name).members.find((m) => m.name === node.name)?.state === 'alive') || undefined, 30_000, 200);
      owners.push(await agreedOwner());
      if (node === l.nodes[0]) expectMixedView(l, node.name);
    }

    // Every node now runs this release, and every node says so of every other.
    const release = JSON.parse(spawnSync(process.execPath, [MLB_BUNDLE, 'version', '--json'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout) as { version: string };
    for (const node of l.nodes) {
      const members = l.statusJSON(node.name).members;
      expect(members.map((m) => m.version?.records), `${node.name}'s view`).toEqual([1, 1, 1]);
      expect(members.every((m) => m.version?.release?.startsWith(release.version)), JSON.stringify(members.map((m) => m.version))).toBe(true);
    }

    const samples = client.stop();
    const answered = arp.stop();
    // No split brain: outside a graceful handover (SIGTERM to exit, when the leaving node keeps answering until
    // it hears its successor), each probe is answered by one MAC.
    const inHandover = (p: Probe) => handovers.some((h) => p.t >= h.from && p.t <= h.to && p.macs.includes(h.mac));
    const split = answered.filter((p) => p.macs.length > 1 && !inHandover(p));
    expect(split.map((p) => `${new Date(p.t).toISOString()}: ${p.macs.map((m) => l.nameOfMac(m)).join(' and ')}`), `owners: ${owners.join(' -> ')}`).toEqual([]);
    expect(answered.length).toBeGreaterThan(0);
    // No client outage longer than a graceful handover may take.
    expect(outages(samples).filter((o) => o.ms > HANDOVER_TIMEOUT_MS)).toEqual([]);
    expect(samples.filter((s) => s.node !== null).length).toBeGreaterThan(0);
  }, 150_000);
});
