/**
 * VIP binding in network namespaces: VipBinder runs in its own process inside host A of a
 * NetnsLab segment (vip-runner.ts), host B is a neighbour on the same bridge. What B's kernel and iputils arping
 * see is the evidence: the danger of a VIP on mlb0 (A's kernel answers ARP for it, and announces it as ARP
 * source), the fix (prepareInterfaces), that it survives a crash, and that IPv6 needs no fix.
 *
 * Skips (saying why) without root or namespaces; arping and the native addon (for crafted NS frames) are
 * required in CI (CI set).
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { parseIP, type IP } from '../../../src/ip';
import { parseMAC } from '../../../src/announce/l2/mac-address';
import { encodeNdpFrame, NDP_HOP_LIMIT } from '../../../src/announce/l2/ndp-packet';
import { solicitedNodeAddress, solicitedNodeMAC } from '../../../src/announce/l2/solicited-node';
import { nativeAddonStatus } from '../../../src/native';
import { canUseNetns, NetnsLab, type LabHost } from '../../support/netns-lab';
import { VipPeer } from './vip-peer';

/** Inside the lab subnets (so B resolves them on its segment) and on no lab interface. */
const VIP4 = '10.213.0.200';
const VIP6 = 'fd00:213::200';
/** A multicast address: the kernel refuses it as an interface address (EADDRNOTAVAIL), a "bad" VIP. */
const BAD_VIP = 'ff02::1';
/** Neighbour resolution gives up after 3 probes 1 s apart; a little more on a busy machine. */
const NEIGHBOUR_TIMEOUT_MS = 4_000;
/** A kernel answers an NS within microseconds; a second is plenty on a busy machine. */
const NA_LISTEN_MS = 1_000;

function has(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}
const netns = canUseNetns();
const addon = nativeAddonStatus();
const missing = [!has('arping') && 'arping (iputils-arping)'].filter(Boolean);
if (process.env.CI && (missing.length > 0 || !addon.loaded))
  throw new Error(`CI is set and these are missing: ${[...missing, !addon.loaded && 'the native addon'].filter(Boolean).join(', ')}`);
const skip = !netns.ok ? netns.why : missing.length > 0 ? `missing: ${missing.join(', ')}` : undefined;
if (skip) console.warn(`skipping the VIP binder lab tests: ${skip}`);
if (!skip && !addon.loaded) console.warn(`skipping the crafted-NS part of the IPv6 lab test: ${addon.why}`);

let lab: NetnsLab | undefined;
afterEach(() => {
  lab?.destroy();
  lab = undefined;
});

async function setup(): Promise<{ lab: NetnsLab; a: LabHost; b: LabHost; runner: VipPeer }> {
  lab = new NetnsLab();
  const a = lab.addHost('a');
  const b = lab.addHost('b');
  const runner = await VipPeer.start(lab, a);
  return { lab, a, b, runner };
}

function run(host: LabHost, command: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('ip', ['netns', 'exec', host.netns, ...command], { encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface AddrInfo {
  readonly family: string;
  readonly local: string;
  readonly prefixlen: number;
  readonly nodad?: boolean;
}

/** `ip -j addr show mlb0` in a host: the link's flags and addresses, or undefined when there is no mlb0. */
function mlb0(host: LabHost): { flags: string[]; index: number; addresses: AddrInfo[] } | undefined {
  const r = run(host, ['ip', '-j', 'addr', 'show', 'dev', 'mlb0']);
  if (r.status !== 0) return undefined;
  const [link] = JSON.parse(r.stdout) as { ifindex: number; flags: string[]; addr_info: AddrInfo[] }[];
  return { flags: link!.flags, index: link!.ifindex, addresses: link!.addr_info };
}

const describeAddresses = (host: LabHost) => mlb0(host)?.addresses.map((a) => `${a.local}/${a.prefixlen}${a.nodad ? ' nodad' : ''}`);

/** iputils arping from a host: the MACs of the replies (upper case, as printed). */
function arping(host: LabHost, target: string, count = 2): { macs: string[]; out: string } {
  const r = run(host, ['arping', '-c', String(count), '-w', String(count + 1), '-I', 'eth0', target]);
  return { macs: [...r.stdout.matchAll(/reply from \S+ \[([0-9A-F:]{17})\]/g)].map((m) => m[1]!), out: r.stdout + r.stderr };
}

function sysctl(host: LabHost, path: string, value?: number): number {
  const file = `/proc/sys/net/ipv4/conf/${path.replaceAll('.', '/')}`;
  if (value !== undefined) run(host, ['sh', '-c', `echo ${value} > ${file}`]);
  return Number(run(host, ['cat', file]).stdout.trim());
}

/** The neighbour entry of `target` on a host's eth0: its lladdr and state, or undefined when there is none. */
function neighbour(host: LabHost, target: string): { lladdr?: string; state: string } | undefined {
  const out = run(host, ['ip', '-j', target.includes(':') ? '-6' : '-4', 'neigh', 'show', target, 'dev', 'eth0']).stdout;
  const [entry] = JSON.parse(out || '[]') as { lladdr?: string; state: string[] }[];
  return entry ? { ...(entry.lladdr ? { lladdr: entry.lladdr } : {}), state: entry.state.join(',') } : undefined;
}

/** One datagram from a host's kernel (it resolves the target first). */
function udp(host: LabHost, target: string): void {
  const family = target.includes(':') ? 'udp6' : 'udp4';
  const r = run(host, [
    process.execPath,
    '-e',
    `require('dgram').createSocket('${family}').send('mlb', 9, '${target}', (e) => process.exit(e ? 1 : 0))`,
  ]);
  if (r.status !== 0) throw new Error(`udp to ${target} failed: ${r.stderr}`);
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Reconciled {
  added: string[];
  removed: string[];
  failed: { code: string; errno?: string; subject?: string }[];
  bound: string[];
}

describe.skipIf(skip !== undefined)('VipBinder in network namespaces', () => {
  it('binds an IPv4 VIP as /32 and an IPv6 VIP as /128 nodad on a NOARP mlb0, removes a withdrawn one, and skips a bad one without stopping', async () => {
    const { a, runner } = await setup();
    expect(mlb0(a)).toBeUndefined();
    const opened = (await runner.ok({ op: 'open' })) as unknown as { kind: string; staleRemoved: string[] };
    expect(['dummy', 'ifb']).toContain(opened.kind);
    expect(opened.staleRemoved).toEqual([]);
    const link = mlb0(a)!;
    expect(link.flags).toEqual(expect.arrayContaining(['NOARP', 'UP']));
    // No link-local: addrgenmode none, so mlb0 holds VIPs only.
    expect(link.addresses).toEqual([]);

    const first = (await runner.ok({ op: 'reconcile', desired: [VIP4, BAD_VIP, VIP6] })) as unknown as Reconciled;
    expect(first.added).toEqual([VIP4, VIP6]);
    expect(first.failed).toEqual([
      expect.objectContaining({ code: 'addressAddFailed', errno: 'EADDRNOTAVAIL', subject: `${BAD_VIP}/128` }),
    ]);
    expect(runner.logs('vipBindFailed')).toEqual([expect.objectContaining({ level: 'error', ip: BAD_VIP, code: 'addressAddFailed' })]);
    expect(describeAddresses(a)).toEqual([`${VIP4}/32`, `${VIP6}/128 nodad`]);
    expect(first.bound).toEqual([VIP4, VIP6]);

    // Idempotent: the same set again changes nothing.
    const again = (await runner.ok({ op: 'reconcile', desired: [VIP4, VIP6] })) as unknown as Reconciled;
    expect({ added: again.added, removed: again.removed, failed: again.failed }).toEqual({ added: [], removed: [], failed: [] });

    // Withdrawal of the IPv4 VIP; then of everything.
    const withdrawn = (await runner.ok({ op: 'reconcile', desired: [VIP6] })) as unknown as Reconciled;
    expect(withdrawn.removed).toEqual([VIP4]);
    expect(describeAddresses(a)).toEqual([`${VIP6}/128 nodad`]);
    expect(runner.logs('vipUnbound')).toEqual([expect.objectContaining({ ip: VIP4, reason: 'notDesired' })]);
    await runner.ok({ op: 'reconcile', desired: [] });
    expect(describeAddresses(a)).toEqual([]);

    // Someone deletes mlb0 behind mlb's back: the next reconcile makes it again.
    run(a, ['ip', 'link', 'del', 'mlb0']);
    const repaired = (await runner.ok({ op: 'reconcile', desired: [VIP4] })) as unknown as Reconciled;
    expect(repaired.added).toEqual([VIP4]);
    expect(describeAddresses(a)).toEqual([`${VIP4}/32`]);
    expect(runner.logs('vipInterfaceCreated').map((l) => l.reason)).toEqual(['firstStart', 'deletedWhileRunning']);

    // Graceful stop: every VIP comes off, mlb0 stays.
    await runner.ok({ op: 'close', keep: false });
    expect(describeAddresses(a)).toEqual([]);
  });

  it('a crashed run leaves its VIPs on mlb0; the next open removes them (logged) and fixes a wrong prefix', async () => {
    const { lab, a, runner } = await setup();
    await runner.ok({ op: 'open' });
    await runner.ok({ op: 'reconcile', desired: [VIP4, VIP6] });
    await runner.crash();
    const index = mlb0(a)!.index;
    expect(describeAddresses(a)).toEqual([`${VIP4}/32`, `${VIP6}/128 nodad`]);
    // A subnet address on mlb0 (by hand, or an old version): it routes the whole /24 into mlb0.
    run(a, ['ip', 'addr', 'add', '10.213.5.1/24', 'dev', 'mlb0']);

    const next = await VipPeer.start(lab, a);
    const opened = (await next.ok({ op: 'open' })) as unknown as { staleRemoved: string[]; bound: string[] };
    expect(opened.staleRemoved.sort()).toEqual(['10.213.5.1', VIP4, VIP6].sort());
    expect(opened.bound).toEqual([]);
    expect(
      next
        .logs('staleVipRemoved')
        .map((l) => `${l.ip}/${l.prefix} ${l.level} ${l.reason}`)
        .sort(),
    ).toEqual(
      [`10.213.5.1/24 warn staleFromPreviousRun`, `${VIP4}/32 warn staleFromPreviousRun`, `${VIP6}/128 warn staleFromPreviousRun`].sort(),
    );
    expect(mlb0(a)!.index).toBe(index); // the same link, reused
    expect(describeAddresses(a)).toEqual([]);
    expect(next.logs('vipInterfaceCreated')).toEqual([]);
  });

  it('refuses an mlb0 that is not a device mlb makes, and leaves its addresses alone', async () => {
    const { a, runner } = await setup();
    run(a, ['ip', 'link', 'add', 'mlb0', 'type', 'bridge']);
    run(a, ['ip', 'addr', 'add', '10.213.9.1/24', 'dev', 'mlb0']);
    const reply = await runner.request({ op: 'open' });
    expect(reply).toMatchObject({ ok: false, code: 'notOurInterface' });
    expect(describeAddresses(a)).toEqual(['10.213.9.1/24']);
    expect(runner.logs('vipInterfaceFailed')).toEqual([expect.objectContaining({ code: 'notOurInterface', level: 'error' })]);
  });

  it("without prepareInterfaces A's kernel answers B's arping for a VIP on mlb0; with it, none, also after A's daemon crashed", async () => {
    const { a, b, runner } = await setup();
    await runner.ok({ op: 'open' });
    await runner.ok({ op: 'reconcile', desired: [VIP4] });
    // The danger: no mlb responder runs, yet the VIP is answered, by A's kernel, with A's MAC.
    const danger = arping(b, VIP4);
    expect(danger.macs, danger.out).toEqual([a.mac.toUpperCase(), a.mac.toUpperCase()]);

    const prepared = (await runner.ok({ op: 'prepare', interfaces: ['eth0'] })) as unknown as {
      applied: { scope: string; name: string; from: number; to: number }[];
    };
    expect(prepared.applied.map((c) => `${c.scope}.${c.name} ${c.from}->${c.to}`)).toEqual([
      'eth0.arp_ignore 0->1',
      'eth0.arp_announce 0->2',
    ]);
    expect(runner.logs('arpSysctlChanged').map((l) => `${l.sysctl} ${l.from}->${l.to} ${l.reason}`)).toEqual([
      'net.ipv4.conf.eth0.arp_ignore 0->1 answersForOtherInterfaces',
      'net.ipv4.conf.eth0.arp_announce 0->2 mayAnnounceVip',
    ]);
    expect([sysctl(a, 'eth0.arp_ignore'), sysctl(a, 'eth0.arp_announce'), sysctl(a, 'all.arp_ignore')]).toEqual([1, 2, 0]);
    expect(arping(b, VIP4).macs).toEqual([]);
    // A's own address is still answered: the host keeps working.
    expect(arping(b, a.ipv4, 1).macs).toEqual([a.mac.toUpperCase()]);

    // The crash the sysctls exist for: the VIP stays on mlb0, the kernel stays silent.
    await runner.crash();
    expect(describeAddresses(a)).toEqual([`${VIP4}/32`]);
    expect(arping(b, VIP4).macs).toEqual([]);

    // Idempotent: a second prepare (the next start) changes nothing.
    const next = await VipPeer.start(lab!, a);
    await next.ok({ op: 'open' });
    const again = (await next.ok({ op: 'prepare', interfaces: ['eth0'] })) as unknown as { applied: unknown[]; kept: unknown[] };
    expect(again.applied).toEqual([]);
    expect(again.kept).toHaveLength(2);
  });

  it('conf/all/arp_ignore=3 outvotes eth0=1 (the kernel takes the max), so prepareInterfaces lowers all to 1', async () => {
    const { a, b, runner } = await setup();
    sysctl(a, 'all.arp_ignore', 3);
    sysctl(a, 'eth0.arp_ignore', 1);
    sysctl(a, 'eth0.arp_announce', 2);
    await runner.ok({ op: 'open' });
    await runner.ok({ op: 'reconcile', desired: [VIP4] });
    // eth0 alone says "only my own addresses", yet max(3, 1) = 3 and 3 answers for any non-host-scope address.
    expect(arping(b, VIP4).macs).toEqual([a.mac.toUpperCase(), a.mac.toUpperCase()]);

    const prepared = (await runner.ok({ op: 'prepare', interfaces: ['eth0'] })) as unknown as {
      applied: { scope: string; name: string; from: number; to: number; reason: string }[];
    };
    expect(prepared.applied.map((c) => `${c.scope}.${c.name} ${c.from}->${c.to} ${c.reason}`)).toEqual([
      'all.arp_ignore 3->1 allOverridesInterface',
    ]);
    expect(sysctl(a, 'all.arp_ignore')).toBe(1);
    expect(arping(b, VIP4).macs).toEqual([]);
  });

  it("without arp_announce=2 A's ARP requests carry the VIP as sender and B's kernel points the VIP at A; with it, B learns only A's own address", async () => {
    const { a, b, runner } = await setup();
    await runner.ok({ op: 'open' });
    await runner.ok({ op: 'reconcile', desired: [VIP4] });
    // A answers a client from the VIP (as a service would): A's kernel has to resolve B first.
    await runner.ok({ op: 'udp', from: VIP4, to: b.ipv4, port: 9 });
    expect(await until("B's kernel to learn the VIP from A's ARP request", 3_000, () => neighbour(b, VIP4)?.lladdr)).toBe(a.mac);

    run(a, ['ip', 'neigh', 'flush', 'dev', 'eth0']);
    run(b, ['ip', 'neigh', 'flush', 'dev', 'eth0']);
    await runner.ok({ op: 'prepare', interfaces: ['eth0'] });
    await runner.ok({ op: 'udp', from: VIP4, to: b.ipv4, port: 9 });
    // The request went out (B learned A's eth0 address from it) but named A's own address, not the VIP. (B may
    // hold an INCOMPLETE entry for the VIP: its ICMP port-unreachable back to the VIP needs one, and A's kernel,
    // now arp_ignore=1, does not answer; with mlb running, its responder would.)
    expect(await until("B's kernel to learn A's address", 3_000, () => neighbour(b, a.ipv4)?.lladdr)).toBe(a.mac);
    expect(neighbour(b, VIP4)?.lladdr).toBeUndefined();
  });

  it("IPv6 needs no sysctl: A's kernel answers no Neighbor Solicitation for a /128 on mlb0, multicast or unicast, while answering for eth0's own address", async () => {
    const { a, b, runner } = await setup();
    await runner.ok({ op: 'open' });
    await runner.ok({ op: 'reconcile', desired: [VIP6] });

    // B's kernel resolving the VIP (NS to the VIP's solicited-node group, 3 tries): no answer, the entry fails.
    udp(b, VIP6);
    const state = await until('B to give up on the VIP', NEIGHBOUR_TIMEOUT_MS + 2_000, () => {
      const entry = neighbour(b, VIP6);
      return entry && !entry.state.includes('INCOMPLETE') ? entry : undefined;
    });
    expect(state.lladdr).toBeUndefined();
    expect(state.state).toBe('FAILED');
    // Control: the same resolution for A's eth0 address succeeds.
    udp(b, a.ipv6);
    expect(await until("B to resolve A's eth0 address", NEIGHBOUR_TIMEOUT_MS, () => neighbour(b, a.ipv6)?.lladdr)).toBe(a.mac);

    if (!addon.loaded) return;
    // Crafted NSs from B's packet socket. The multicast one above may not even reach A's ICMPv6 code (A's eth0
    // has not joined the VIP's solicited-node group); one sent unicast to A's MAC and eth0 address does reach
    // ndisc_recv_ns, which looks the target up on eth0 only.
    const probe = await VipPeer.start(lab!, b);
    const bMac = parseMAC(b.mac)!;
    const aMac = parseMAC(a.mac)!;
    const vip6 = parseIP(VIP6)!;
    const ns = (target: IP, destination: IP, destinationMac: Uint8Array): string =>
      Buffer.from(
        encodeNdpFrame(
          {
            source: parseIP(b.ipv6)!,
            destination,
            hopLimit: NDP_HOP_LIMIT,
            message: { kind: 'solicitation', target, options: [{ kind: 'sourceLinkLayer', mac: bMac }] },
          },
          destinationMac,
          bMac,
        ),
      ).toString('hex');
    const heard = async (frame: string) =>
      (
        (await probe.ok({ op: 'ndpProbe', ifname: 'eth0', frames: [frame], listenMs: NA_LISTEN_MS })) as unknown as {
          advertisements: { from: string; target: string }[];
        }
      ).advertisements;

    expect(await heard(ns(vip6, parseIP(a.ipv6)!, aMac))).toEqual([]);
    expect(await heard(ns(vip6, solicitedNodeAddress(vip6), solicitedNodeMAC(vip6)))).toEqual([]);
    // Control: the same unicast NS for A's eth0 address is answered by A's kernel.
    expect(await heard(ns(parseIP(a.ipv6)!, parseIP(a.ipv6)!, aMac))).toEqual([expect.objectContaining({ from: a.mac, target: a.ipv6 })]);
  });
});
