/**
 * The split-brain self-check on a real segment: host A's SelfChecker owns 10.213.0.100 and
 * fd00:213::100 on its lab interface and probes them with real packet sockets; host B's kernel starts answering
 * for both when B adds them to its own interface (arp_ignore=0, as the Linux default). A reports each conflict
 * naming B's MAC within a few seconds, keeps seeing it while it lasts, sees nothing new once B removes the
 * addresses, and then forgets it.
 *
 * The runner shortens the schedule (2 s period, 1 s recheck, 4 s forget) so the test sees the regular period and
 * the forgetting in seconds; the defaults are 30 s, 5 s and 60 s. Without root, namespaces or the native addon
 * this skips, saying why; in CI (CI set) a missing addon fails. Time: about 15 s.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDON_MISSING_MESSAGE, nativeAddonStatus } from '../../../src/native';
import type { Conflict } from '../../../src/daemon/self-check/conflict-registry';
import type { SelfCheckStats } from '../../../src/daemon/self-check/self-checker';
import { canUseNetns, NetnsLab, type LabHost } from '../../support/netns-lab';
import { until } from '../../support/until';
import { SelfCheckPeer } from './self-check-peer';

const addon = nativeAddonStatus();
if (!addon.loaded && process.env.CI) throw new Error(`${ADDON_MISSING_MESSAGE}: ${addon.why} (CI is set, so this is a failure)`);
const netns = canUseNetns();
const skipLab = !netns.ok ? netns.why : !addon.loaded ? `the native addon is not loaded (${addon.why})` : undefined;
if (skipLab) console.warn(`skipping the self-check lab test: ${skipLab}`);

const VIP4 = '10.213.0.100';
const VIP6 = 'fd00:213::100';
const TIMING = { intervalMs: 2000, recheckMs: 1000, forgetMs: 4000 };
/** A probe waits 500 ms for answers; a sighting can be stamped that long after the last frame went out. */
const PROBE_WINDOW_SLACK_MS = 1000;

function onB(b: LabHost, args: string[]): void {
  execFileSync('ip', ['-n', b.netns, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
}

describe.skipIf(skipLab !== undefined)('split-brain self-check in a lab (a = .1 owns the VIPs, b = .2 also holds them)', () => {
  let lab: NetnsLab;
  let a: LabHost;
  let b: LabHost;
  let checker: SelfCheckPeer;

  beforeAll(async () => {
    lab = new NetnsLab();
    a = lab.addHost('a');
    b = lab.addHost('b');
    for (const scope of ['all', 'default', 'eth0']) lab.execIn(b, 'sysctl', ['-qw', `net.ipv4.conf.${scope}.arp_ignore=0`]);
    checker = await SelfCheckPeer.start(lab, a, TIMING);
  });
  afterAll(() => {
    checker?.stop();
    lab?.destroy();
  });

  const state = async (): Promise<{ conflicts: Conflict[]; stats: SelfCheckStats }> => {
    const reply = await checker.ok({ op: 'conflicts' });
    return { conflicts: reply.conflicts as Conflict[], stats: reply.stats as SelfCheckStats };
  };

  it('reports B as a second owner, follows it, and forgets it after B lets go', async () => {
    await checker.ok({
      op: 'setOwned',
      owned: [
        { ip: VIP4, interface: 'eth0' },
        { ip: VIP6, interface: 'eth0' },
      ],
    });

    // Nobody else answers yet: probes go out (one each after 1 s, again 2 s later) and silence is no conflict.
    // A probe is counted once its answer window closed, so four counted probes have each heard nothing foreign.
    const quiet = await until('four probes answered only by silence', async () => {
      const s = await state();
      return s.stats.probesSent >= 4 ? s : undefined;
    });
    expect(quiet.stats.probesFailed).toBe(0);
    expect(quiet.conflicts).toEqual([]);

    const added = Date.now();
    onB(b, ['addr', 'add', `${VIP4}/32`, 'dev', 'eth0']);
    onB(b, ['addr', 'add', `${VIP6}/128`, 'dev', 'eth0', 'nodad']);
    const seen4 = await checker.waitFor((e) => e.ev === 'conflict' && (e.conflict as Conflict).ip === VIP4, 8000);
    const seen6 = await checker.waitFor((e) => e.ev === 'conflict' && (e.conflict as Conflict).ip === VIP6, 8000);
    for (const [seen, ip] of [
      [seen4, VIP4],
      [seen6, VIP6],
    ] as const) {
      expect(seen.conflict).toMatchObject({ ip, mac: b.mac, node: null, interface: 'eth0', evidence: 'probeReply' });
      // Within the regular period plus a probe, not at some later rescan.
      expect((seen.t as number) - added).toBeLessThan(TIMING.intervalMs * 1.1 + PROBE_WINDOW_SLACK_MS + 500);
    }
    const warned = checker.events.filter((e) => e.ev === 'log' && e.event === 'splitBrainDetected');
    expect(warned.map((e) => e.msg)).toContainEqual(expect.stringContaining(`${VIP4} on eth0 is also answered by ${b.mac}`));

    // Followed while it lasts: rechecks keep finding B.
    const ongoing = await until('a recheck finding B again for each VIP', async () => {
      const s = await state();
      return s.conflicts.length === 2 && s.conflicts.every((c) => c.sightings >= 2) ? s : undefined;
    });
    expect(ongoing.conflicts.map((c) => `${c.ip} ${c.mac}`)).toEqual([`${VIP4} ${b.mac}`, `${VIP6} ${b.mac}`]);
    for (const c of ongoing.conflicts) expect(c.sightings).toBeGreaterThanOrEqual(2);
    expect(ongoing.stats.conflictsDetected).toBe(2);

    onB(b, ['addr', 'del', `${VIP4}/32`, 'dev', 'eth0']);
    onB(b, ['addr', 'del', `${VIP6}/128`, 'dev', 'eth0']);
    const removed = Date.now();
    const cleared = await Promise.all(
      [VIP4, VIP6].map((ip) =>
        checker.waitFor((e) => e.ev === 'conflictCleared' && (e.conflict as Conflict).ip === ip, TIMING.forgetMs + 4000),
      ),
    );
    for (const c of cleared) {
      expect(c.reason).toBe('notSeen');
      // No sighting after B let go (beyond a probe already in flight then).
      expect(Date.parse((c.conflict as Conflict).lastSeen)).toBeLessThan(removed + PROBE_WINDOW_SLACK_MS);
    }
    const after = await state();
    expect(after.conflicts).toEqual([]);
    expect(after.stats.conflictsDetected).toBe(2);
    expect(after.stats.probesSent).toBeGreaterThan(ongoing.stats.probesSent);
  });
});
