/**
 * SIGTERM of a node holding many VIPs, beside a second node: the leaving node hands every one of them over (it
 * waits until the other node has announced each, then withdraws) and exits 0, leaving nothing bound on mlb0.
 * Both daemons run from the built bundle in network namespaces of the test's own.
 * It needs the successor to bind and announce its share within HANDOVER_TIMEOUT_MS: batched binding
 * (vip-batch.ts) is what makes that hold on a busy host.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { daemonArpConfig } from '../../bench/arp/daemon-arp';
import { readHolding } from '../../bench/scale/shares-reader';
import { canUseNetns, NetnsLab, type LabHost } from '../support/netns-lab';
import { until } from '../support/until';
import { startDaemon, type RunningDaemon } from './run-daemon';

/** Enough VIPs that per-VIP work in the stop shows, few enough to start quickly on a shared machine. */
const VIPS = 300;
const START_MS = 120_000;
const dir = mkdtempSync(join(tmpdir(), 'mlb-stop-many-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sameSet(x: readonly string[], y: readonly string[]): boolean {
  const xs = new Set(x);
  return xs.size === y.length && y.every((ip) => xs.has(ip));
}

const netns = canUseNetns();
const skip = netns.ok ? undefined : netns.why;
describe.skipIf(skip !== undefined)(`a graceful stop with ${VIPS} VIPs${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('hands every VIP to the other node before withdrawing, and exits 0 with nothing left bound', { timeout: 300_000 }, async () => {
    const lab = new NetnsLab();
    const daemons: RunningDaemon[] = [];
    try {
      const hosts = [lab.addHost('node-a'), lab.addHost('node-b')];
      const config = join(dir, 'mlb.yaml');
      writeFileSync(config, daemonArpConfig(VIPS));
      // node-a logs at debug: past the first 20, a leaving node logs its successors' announcements (handoverClaimed) there.
      const start = (host: LabHost, other: LabHost, logLevel = 'info'): RunningDaemon => {
        lab.execIn(host, 'ip', ['addr', 'add', '10.214.255.254/16', 'dev', 'eth0']);
        const daemon = startDaemon(
          [
            ...['--config', config, '--node-name', host.name, '--gossip-bind', `${host.ipv4}:7946`, '--join', `${other.ipv4}:7946`],
            ...['--state-dir', join(dir, host.name), '--control-socket', join(dir, `${host.name}.sock`), '--gossip-profile', 'fast'],
            ...['--log-level', logLevel],
          ],
          host.netns,
        );
        daemons.push(daemon);
        return daemon;
      };
      const [a, b] = [start(hosts[0]!, hosts[1]!, 'debug'), start(hosts[1]!, hosts[0]!)];
      const sockets = [join(dir, 'node-a.sock'), join(dir, 'node-b.sock')] as const;
      // Both members, and every VIP bound on one node or the other.
      // What each node holds: the VIPs whose last binding event is vipBound (one unbound and bound again is held).
      const heldBy = (d: RunningDaemon) => {
        const last = new Map<string, unknown>();
        for (const l of d.lines) if (l.event === 'vipBound' || l.event === 'vipUnbound') last.set(String(l.ip), l.event);
        return [...last].filter(([, event]) => event === 'vipBound').map(([ip]) => ip);
      };
      await Promise.all([a, b].map((d) => d.waitFor((l) => l.event === 'memberJoined', START_MS)));
      // Settled: each node holds its share (node-a alone holds all of them until it has heard of node-b), and what
      // each binds is what its own plan announces. The bound sets alone can add up to all of them in the middle of
      // the move to node-b (node-a unbinding some, node-b not yet binding them), with node-a still holding IPs its
      // plan already gave away: those are not handed over at the stop, and would be counted as if they were.
      const holding = () => Promise.all([readHolding('node-a', sockets[0]), readHolding('node-b', sockets[1])]);
      const settled = await until(
        'every VIP bound once, some on each node, each node binding what it announces',
        async () => {
          const both = await holding();
          const ownPlan = both.every((h) => sameSet(h.announced, h.bound) && sameSet(h.bound, heldBy(h.node === 'node-a' ? a : b)));
          const shares = both.map((h) => h.bound.length);
          return ownPlan && shares[0]! + shares[1]! === VIPS && shares.every((n) => n > 0) ? both : undefined;
        },
        START_MS,
      );
      const leaving = settled[0].bound;

      a.child.kill('SIGTERM');
      expect(await a.exited()).toBe(0);
      const done = a.lines.find((l) => l.event === 'handoverDone');
      expect({ ...done, waiting: (done?.waiting as unknown[] | undefined)?.length }, JSON.stringify(done).slice(0, 300)).toMatchObject({
        reason: 'allClaimed',
        claimed: leaving.length,
        waiting: 0,
        orphaned: [],
      });
      // Every IP node-a let go was claimed by node-b's announcement before node-a withdrew it.
      const claimed = new Set(a.lines.filter((l) => l.event === 'handoverClaimed').map((l) => String(l.ip)));
      expect(leaving.filter((ip) => !claimed.has(ip))).toEqual([]);
      expect(lab.execIn(hosts[0]!, 'ip', ['-o', 'addr', 'show', 'dev', 'mlb0']).trim()).toBe('');
      // node-b ends up holding all of them.
      await until('node-b holding every VIP', () => heldBy(b).length === VIPS, START_MS);
    } finally {
      for (const d of daemons) d.child.kill('SIGKILL');
      lab.destroy();
    }
  });
});
