/**
 * VIP binding at scale, in a network namespace (vip-runner.ts inside host A of a NetnsLab segment), with the
 * daemon's netlink link table feeding the binder's view of mlb0: more VIPs than one netlink batch, with bad ones
 * among them, are each bound or each reported by name with the kernel's reason; and a change made to mlb0
 * behind the binder's back (`ip addr del` of a VIP, `ip addr add` of a stranger) is noticed from the kernel's
 * notifications and repaired without anyone asking, so the kernel's view and the binder's agree again.
 *
 * Skips (saying why) without root or namespaces.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { VIP_NETLINK_BATCH } from '../../../src/announce/addr/vip-batch';
import { canUseNetns, NetnsLab, type LabHost } from '../../support/netns-lab';
import { until } from '../../support/until';
import { VipPeer } from './vip-peer';

/** Multicast addresses: the kernel refuses each as an interface address (EADDRNOTAVAIL). */
const BAD_VIPS = ['ff02::1', 'ff02::2', 'ff02::3'];
/** More VIPs than one batch: the batches' seams are crossed. Private test addresses, on no lab interface. */
const GOOD_VIPS = Array.from({ length: VIP_NETLINK_BATCH * 2 + 7 }, (_, i) => `10.214.${Math.floor(i / 250)}.${(i % 250) + 1}`);
const STRANGER = '10.215.0.9';

const netns = canUseNetns();
if (!netns.ok) console.warn(`skipping the VIP binder scale lab tests: ${netns.why}`);

let lab: NetnsLab | undefined;
afterEach(() => {
  lab?.destroy();
  lab = undefined;
});

function onMlb0(host: LabHost): string[] {
  const r = spawnSync('ip', ['-n', host.netns, '-j', 'addr', 'show', 'dev', 'mlb0'], { encoding: 'utf8' });
  const [link] = JSON.parse(r.stdout) as { addr_info: { local: string; prefixlen: number }[] }[];
  return link!.addr_info.map((a) => `${a.local}/${a.prefixlen}`).sort();
}

const sorted = (ips: readonly string[], prefix: number) => ips.map((ip) => `${ip}/${prefix}`).sort();

interface Reconciled {
  added: string[];
  failed: { code: string; errno?: string; subject?: string }[];
  bound: string[];
}

describe.skipIf(!netns.ok)('VIP binder at scale (network namespaces)', () => {
  it('binds more VIPs than one netlink batch, each bad one reported by name with its reason, and repairs mlb0 after changes made behind its back', async () => {
    lab = new NetnsLab();
    const a = lab.addHost('a');
    const runner = await VipPeer.start(lab, a);
    await runner.ok({ op: 'open', followLinks: true });

    // The bad ones interleaved with the good: each batch holds some of both.
    const desired = GOOD_VIPS.flatMap((ip, i) => (i % 60 === 0 && BAD_VIPS[i / 60] ? [ip, BAD_VIPS[i / 60]!] : [ip]));
    const result = (await runner.ok({ op: 'reconcile', desired })) as unknown as Reconciled;
    expect(result.added).toHaveLength(GOOD_VIPS.length);
    expect(result.failed.map((f) => f.subject).sort()).toEqual(sorted(BAD_VIPS, 128));
    for (const f of result.failed) expect(f).toMatchObject({ code: 'addressAddFailed', errno: 'EADDRNOTAVAIL' });
    expect(
      runner
        .logs('vipBindFailed')
        .map((l) => l.ip)
        .sort(),
    ).toEqual([...BAD_VIPS].sort());
    expect(onMlb0(a)).toEqual(sorted(GOOD_VIPS, 32));

    // Behind the binder's back: a VIP deleted, a stranger added. Nobody calls reconcile.
    const victim = GOOD_VIPS[100]!;
    spawnSync('ip', ['-n', a.netns, 'addr', 'del', `${victim}/32`, 'dev', 'mlb0']);
    spawnSync('ip', ['-n', a.netns, 'addr', 'add', `${STRANGER}/32`, 'dev', 'mlb0']);
    await until('mlb0 repaired', () => JSON.stringify(onMlb0(a)) === JSON.stringify(sorted(GOOD_VIPS, 32)));
    // Each said at warn, with what happened (the runner's log lines may trail mlb0's state on the pipe).
    await until('both changes logged', () => runner.logs('vipChangedBehindOurBack').length >= 2);
    expect(runner.logs('vipChangedBehindOurBack').map((l) => [l.ip, l.reason])).toEqual(
      expect.arrayContaining([
        [victim, 'desiredRemoved'],
        [STRANGER, 'notDesiredAdded'],
      ]),
    );
    // The binder's view agrees with the kernel's.
    const bound = (await runner.ok({ op: 'bound' })) as unknown as { bound: string[] };
    expect(sorted(bound.bound, 32)).toEqual(onMlb0(a));
  });
});
