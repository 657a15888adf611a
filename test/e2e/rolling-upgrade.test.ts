/**
 * A rolling upgrade on plain hosts, in network namespaces: three nodes start on the previous release (built from
 * git, test/support/previous-release.ts), then each in turn is stopped with SIGTERM (a graceful handover) and
 * started on this release. Throughout, a client keeps asking the VIP over HTTP and a broadcast arping keeps
 * asking who holds it; after each step every node, old and new, names the same owner, which alone answers ARP.
 * The new nodes gossip their records in the old layout while an old node is live, and switch to the current
 * records version once the last one is gone.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { HANDOVER_TIMEOUT_MS } from '../../src/daemon/handover';
import { MLB_RECORDS_VERSION } from '../../src/daemon/records-protocol';
import { MLB_BUNDLE, REPO_ROOT } from '../cli/run-cli';
import { canUseNetns } from '../support/netns-lab';
import { PREVIOUS_RELEASE_COMMIT, previousReleaseBundle } from '../support/previous-release';
import { API_IP, API_SERVICE, DaemonLab, eventually } from './daemon-lab';

const netns = canUseNetns();
const previous = netns.ok ? previousReleaseBundle() : { why: netns.why };
const skip = 'why' in previous ? previous.why : undefined;
const event = (name: string) => (l: Record<string, unknown>) => l.event === name;

/**
 * Who answers ARP for the VIP, probe by probe: iputils arping in the client's namespace sends the probes, each
 * broadcast (-b) so every node holding the VIP answers it, and tcpdump there reads the answers with the kernel's
 * timestamps (arping's own output is not used: it is buffered, so its lines arrive late and in bunches). arping
 * probes at most once a second (-i takes whole seconds): several of them, started this far apart, probe four
 * times a second between them.
 */
const PROBERS = 4;
const PROBER_STAGGER_MS = 250;
/** Answers this soon after a probe answer it (a reply takes ~1 ms here; probes are 250 ms apart). */
const ANSWER_WITHIN_MS = 80;

interface Probe {
  /** When the probe was sent (ms since the epoch, by the capture's timestamps). */
  readonly t: number;
  readonly macs: string[];
}

/** One probe per request for `ip` from the client, with the MACs of the replies sent back to the client. */
function probesIn(capture: string, ip: string, clientMac: string): Probe[] {
  const probes: { t: number; macs: string[] }[] = [];
  for (const line of capture.split('\n')) {
    const t = Number(line.split(' ')[0]) * 1000;
    if (line.includes(`Request who-has ${ip} `) && line.includes(`${clientMac} > `)) probes.push({ t, macs: [] });
    const reply = new RegExp(`^\\S+ (\\S+) > ${clientMac}, .*Reply ${ip.replaceAll('.', '\\.')} is-at`).exec(line);
    const last = probes.at(-1);
    if (reply && last && t - last.t <= ANSWER_WITHIN_MS && !last.macs.includes(reply[1]!)) last.macs.push(reply[1]!);
  }
  return probes;
}

/** Probes the VIP from the client until stop(), which returns every probe with the MACs that answered it. */
async function arpWatch(lab: DaemonLab, ip: string): Promise<{ stop(): Probe[] }> {
  const capture: string[] = [];
  const tcpdump = lab.lab.spawnIn(lab.client, 'tcpdump', ['-l', '-n', '-e', '-tt', '-i', 'eth0', 'arp'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  tcpdump.stdout!.on('data', (chunk: Buffer) => capture.push(chunk.toString('utf8')));
  const probers: ChildProcess[] = [];
  for (let i = 0; i < PROBERS; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, PROBER_STAGGER_MS));
    probers.push(lab.lab.spawnIn(lab.client, 'arping', ['-b', '-q', '-i', '1', '-I', 'eth0', ip], { stdio: 'ignore' }));
  }
  return {
    stop: () => {
      for (const child of [...probers, tcpdump]) child.kill('SIGKILL');
      return probesIn(capture.join(''), ip, lab.client.mac);
    },
  };
}

/** Outages: from a failed request (or an unanswered probe) to the next answer, in ms, with when they began. */
function outages(samples: readonly { t: number; answered: boolean }[]): { at: number; ms: number }[] {
  const out: { at: number; ms: number }[] = [];
  let failedSince: number | undefined;
  for (const s of samples) {
    if (!s.answered) failedSince ??= s.t;
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
    Object.fromEntries(lab.nodes.map((n) => [n.name, n.name === upgraded ? MLB_RECORDS_VERSION : 0])),
  );
  expect(
    members
      .filter((m) => m.version?.release === null)
      .map((m) => m.name)
      .sort(),
  ).toEqual(lab.nodes.filter((n) => n.name !== upgraded).map((n) => n.name));
  const once = spawnSync(process.execPath, [MLB_BUNDLE, 'status', '--once', '--socket', lab.socket(upgraded)], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  expect(once.stdout).toMatch(/^releases +mixed: .*older \(no version\)/m);
}

describe.skipIf(skip !== undefined)(`rolling upgrade from ${PREVIOUS_RELEASE_COMMIT}${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let lab: DaemonLab | undefined;
  afterAll(() => lab?.destroy());

  it(
    'keeps one owner for the VIP, named alike by old and new nodes, while each node is upgraded in turn',
    { timeout: 150_000 },
    async () => {
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
      const agreedOwner = () =>
        eventually(
          () => {
            const winners = new Set(l.nodes.map((n) => l.explain(n.name, API_SERVICE)[0]?.winner ?? null));
            const [owner] = [...winners];
            if (winners.size !== 1 || !owner) return undefined;
            const macs = l.arpingMacs(API_IP);
            return macs.length === 1 && macs[0] === l.macOf(owner) ? owner : undefined;
          },
          30_000,
          200,
        );

      const handovers: { node: string; mac: string; from: number; to: number }[] = [];
      /** From each upgraded node's start until every node agrees on the owner again. */
      const returns: { node: string; mac: string; from: number; to: number }[] = [];
      const owners: string[] = [await agreedOwner()];
      for (const node of l.nodes) {
        const from = Date.now();
        l.daemon(node.name).child.kill('SIGTERM');
        expect(
          await l.daemon(node.name).exited(),
          `${node.name} (old release) did not stop cleanly: ${l.daemon(node.name).stderr.join('')}`,
        ).toBe(0);
        handovers.push({ node: node.name, mac: l.macOf(node.name), from, to: Date.now() });
        const restartedAt = Date.now();
        const upgraded = l.start(node.name);
        await upgraded.waitFor(event('gossipStarted'));
        // Alive again in every node's view, the old ones' included.
        await eventually(
          () => l.nodes.every((n) => l.status(n.name).members.find((m) => m.name === node.name)?.state === 'alive') || undefined,
          30_000,
          200,
        );
        owners.push(await agreedOwner());
        returns.push({ node: node.name, mac: l.macOf(node.name), from: restartedAt, to: Date.now() });
        if (node === l.nodes[0]) expectMixedView(l, node.name);
      }

      // Every node now runs this release, and every node says so of every other.
      const release = JSON.parse(
        spawnSync(process.execPath, [MLB_BUNDLE, 'version', '--json'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout,
      ) as { version: string };
      for (const node of l.nodes) {
        const members = l.statusJSON(node.name).members;
        expect(
          members.map((m) => m.version?.records),
          `${node.name}'s view`,
        ).toEqual([MLB_RECORDS_VERSION, MLB_RECORDS_VERSION, MLB_RECORDS_VERSION]);
        // The last old member gone, every node writes the current records version (records/records-wire.ts).
        await l.daemon(node.name).waitFor((line) => line.event === 'recordsVersionInUse' && line.to === MLB_RECORDS_VERSION);
        expect(
          members.every((m) => m.version?.release?.startsWith(release.version)),
          JSON.stringify(members.map((m) => m.version)),
        ).toBe(true);
      }

      const samples = client.stop();
      const answered = arp.stop();
      // No split brain. Two answers to one probe are planned in two moments only, and then only from the two nodes
      // of the move: a graceful handover (SIGTERM to exit: the leaving node keeps answering until it hears its
      // successor) and a return (the upgraded node, first in the hash order again, answers as soon as it has
      // joined; the node that held the IP meanwhile withdraws when the news reaches it: make before break, as
      // test/cluster/graceful-moves.test.ts shows for an undrain). Anything else is a split brain.
      const inMove = (p: Probe, moves: readonly { mac: string; from: number; to: number }[]) =>
        p.macs.length === 2 && moves.some((m) => p.t >= m.from && p.t <= m.to && p.macs.includes(m.mac));
      const split = answered.filter((p) => p.macs.length > 1 && !inMove(p, handovers) && !inMove(p, returns));
      const upgrades = handovers.map((h) => `${h.node} stopped ${new Date(h.from).toISOString()}..${new Date(h.to).toISOString()}`);
      expect(
        split.map((p) => `${new Date(p.t).toISOString()}: ${p.macs.map((m) => l.nameOfMac(m)).join(' and ')}`),
        `owners: ${owners.join(' -> ')}; ${upgrades.join('; ')}; logs in ${split.length > 0 ? l.writeLogs() : '-'}`,
      ).toEqual([]);
      expect(answered.length).toBeGreaterThan(0);
      // No outage longer than a graceful handover may take, for the client's requests or for ARP.
      expect(outages(samples.map((s) => ({ t: s.t, answered: s.node !== null }))).filter((o) => o.ms > HANDOVER_TIMEOUT_MS)).toEqual([]);
      expect(outages(answered.map((p) => ({ t: p.t, answered: p.macs.length > 0 }))).filter((o) => o.ms > HANDOVER_TIMEOUT_MS)).toEqual([]);
      expect(samples.filter((s) => s.node !== null).length).toBeGreaterThan(0);
    },
  );
});
