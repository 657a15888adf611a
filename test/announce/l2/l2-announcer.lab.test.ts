/**
 * The L2 announcer in network namespaces: a NetnsLab segment with a client and one or two
 * announcing nodes, each announcer an L2Announcer in its own process inside its namespace (announcer-runner.ts),
 * fed by that namespace's netlink link table. The client side is the real thing: iputils arping, the client's
 * kernel resolving neighbours (ip neigh), tcpdump.
 *
 * The VIPs are on no interface anywhere, so no kernel answers for them: every answer comes from mlb.
 * Skips (saying why) without root, namespaces or the addon; in CI (CI set) a missing addon, arping or tcpdump fails.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { parseIP } from '../../../src/ip';
import { arpRequest, encodeArpFrame } from '../../../src/announce/l2/arp-packet';
import { BROADCAST_MAC, parseMAC } from '../../../src/announce/l2/mac-address';
import { encodeNdpFrame } from '../../../src/announce/l2/ndp-packet';
import { solicitedNodeAddress, solicitedNodeMAC } from '../../../src/announce/l2/solicited-node';
import { ownedIPSet } from '../../../src/announce/l2/l2-interface';
import { respondToFrame } from '../../../src/announce/l2/l2-responder';
import { nativeAddonStatus } from '../../../src/native';
import { canUseNetns, NetnsLab, type LabHost } from '../../support/netns-lab';
import { AnnouncerPeer } from './announcer-peer';

const VIP4 = '10.213.0.100';
const VIP6 = 'fd00:213::100';
const SILENT_VIP4 = '10.213.0.101';

function has(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}
const addon = nativeAddonStatus();
const netns = canUseNetns();
const missing = [
  !addon.loaded && `the native addon (${addon.why})`,
  !has('arping') && 'arping (iputils-arping)',
  !has('tcpdump') && 'tcpdump',
].filter(Boolean);
if (process.env.CI && missing.length > 0) throw new Error(`CI is set and these are missing: ${missing.join(', ')}`);
const skip = !netns.ok ? netns.why : missing.length > 0 ? `missing: ${missing.join(', ')}` : undefined;
if (skip) console.warn(`skipping the L2 announcer lab tests: ${skip}`);

let lab: NetnsLab | undefined;
const peers: AnnouncerPeer[] = [];
afterEach(() => {
  lab?.destroy();
  lab = undefined;
  peers.length = 0;
});

async function setup(...nodes: string[]): Promise<{ lab: NetnsLab; client: LabHost; hosts: LabHost[]; runners: AnnouncerPeer[] }> {
  lab = new NetnsLab();
  const client = lab.addHost('client');
  const hosts = nodes.map((n) => lab!.addHost(n));
  const runners = await Promise.all(hosts.map((h) => AnnouncerPeer.start(lab!, h)));
  peers.push(...runners);
  return { lab, client, hosts, runners };
}

function run(host: LabHost, command: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('ip', ['netns', 'exec', host.netns, ...command], { encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** iputils arping: `Unicast reply from IP [MAC]  0.6ms` per reply; the MACs as printed (upper case). */
function arping(client: LabHost, target: string, count: number): { status: number | null; macs: string[]; out: string } {
  const r = run(client, ['arping', '-c', String(count), '-w', String(count + 1), '-I', 'eth0', target]);
  const macs = [...r.stdout.matchAll(/reply from \S+ \[([0-9A-F:]{17})\]/g)].map((m) => m[1]!);
  return { status: r.status, macs, out: r.stdout + r.stderr };
}

/** The lladdr of `ip neigh show IP dev eth0` in the client, or undefined. */
function neighbour(client: LabHost, target: string): string | undefined {
  const out = run(client, ['ip', target.includes(':') ? '-6' : '-4', 'neigh', 'show', target, 'dev', 'eth0']).stdout;
  return /lladdr ([0-9a-f:]{17})/.exec(out)?.[1];
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip !== undefined)('L2 announcer in network namespaces', () => {
  it('(a) arping from a client gets exactly one reply per request from the announcer for a VIP no kernel owns; the kernel learns it; an unannounced IP gets none', async () => {
    const { client, hosts, runners } = await setup('a');
    const [a] = hosts as [LabHost];
    const [runner] = runners as [AnnouncerPeer];
    const { effects } = (await runner.ok({ op: 'reconcile', desired: [{ ip: VIP4, interfaces: ['eth0'] }] })) as unknown as {
      effects: { kind: string; interface: string }[];
    };
    expect(effects.map((e) => `${e.kind} ${e.interface}`)).toEqual(['createARPResponder eth0', 'startGratuitous eth0']);
    expect(runner.logs('createARPResponder')).toEqual([expect.objectContaining({ interface: 'eth0', level: 'info' })]);

    const reply = arping(client, VIP4, 3);
    expect(reply.status, reply.out).toBe(0);
    expect(reply.macs).toEqual([a.mac.toUpperCase(), a.mac.toUpperCase(), a.mac.toUpperCase()]);

    // The client's kernel resolves the VIP itself (a datagram to it) and keeps our answer.
    udp(client, VIP4);
    expect(await until('the client kernel to learn the VIP', 5_000, () => neighbour(client, VIP4))).toBe(a.mac);

    const silent = arping(client, SILENT_VIP4, 2);
    expect(silent.status).toBe(1);
    expect(silent.macs).toEqual([]);

    const { stats, metrics } = (await runner.ok({ op: 'stats' })) as unknown as {
      stats: {
        requestsReceived: Record<string, number>;
        responsesSent: Record<string, number>;
        drops: Record<string, number>;
        sendFailures: number;
      };
      metrics: { name: string; labels: { ip: string }; value: number }[];
    };
    // The requests are answered by the addon's ARP fast path; its counters are folded in exactly.
    expect(stats.requestsReceived[VIP4]).toBeGreaterThanOrEqual(4);
    expect(stats.responsesSent[VIP4]).toBe(stats.requestsReceived[VIP4]);
    expect(stats.sendFailures).toBe(0);
    expect(stats.drops.notOwned).toBeGreaterThanOrEqual(2);
    const metric = (name: string) => metrics.find((m) => m.name === name && m.labels.ip === VIP4)?.value;
    expect(metric('metallb_layer2_requests_received')).toBe(stats.requestsReceived[VIP4]);
    expect(metric('metallb_layer2_responses_sent')).toBe(stats.responsesSent[VIP4]);

    // Exactly one more request per arping probe: 5 probes, 5 replies, 5 more counted.
    const more = arping(client, VIP4, 5);
    expect(more.macs).toHaveLength(5);
    const after = (await runner.ok({ op: 'stats' })) as unknown as {
      stats: { requestsReceived: Record<string, number>; responsesSent: Record<string, number> };
    };
    expect(after.stats.requestsReceived[VIP4]! - stats.requestsReceived[VIP4]!).toBe(5);
    expect(after.stats.responsesSent[VIP4]! - stats.responsesSent[VIP4]!).toBe(5);
  });

  it("(b) an IPv6 VIP is resolved by the client kernel (NS to the solicited-node group) to the announcer's MAC", async () => {
    const { client, hosts, runners } = await setup('a');
    const [a] = hosts as [LabHost];
    const [runner] = runners as [AnnouncerPeer];
    const { effects } = (await runner.ok({ op: 'reconcile', desired: [{ ip: VIP6, interfaces: ['eth0'] }] })) as unknown as {
      effects: { kind: string; mac?: string }[];
    };
    expect(effects.map((e) => e.kind)).toEqual(['createNDPResponder', 'joinSolicitedNodeGroup', 'startGratuitous']);
    expect(effects[1]!.mac).toBe('33:33:ff:00:01:00');
    expect(neighbour(client, VIP6)).toBeUndefined();

    udp(client, VIP6);
    expect(await until('the client kernel to resolve the IPv6 VIP', 5_000, () => neighbour(client, VIP6))).toBe(a.mac);
    const { stats } = (await runner.ok({ op: 'stats' })) as unknown as {
      stats: { requestsReceived: Record<string, number>; responsesSent: Record<string, number> };
    };
    expect(stats.requestsReceived[VIP6]).toBeGreaterThanOrEqual(1);
    expect(stats.responsesSent[VIP6]).toBe(stats.requestsReceived[VIP6]);
  });

  it("(c) a takeover moves the client's existing neighbour entries to the new node by gratuitous ARP and unsolicited NA, on MetalLB's schedule", async () => {
    const { lab, client, hosts, runners } = await setup('a', 'b');
    const [a, b] = hosts as [LabHost, LabHost];
    const [runnerA, runnerB] = runners as [AnnouncerPeer, AnnouncerPeer];
    const both = [
      { ip: VIP4, interfaces: ['eth0'] },
      { ip: VIP6, interfaces: ['eth0'] },
    ];
    await runnerA.ok({ op: 'reconcile', desired: both });
    udp(client, VIP4);
    udp(client, VIP6);
    expect(await until('A learned for IPv4', 5_000, () => neighbour(client, VIP4))).toBe(a.mac);
    expect(await until('A learned for IPv6', 5_000, () => neighbour(client, VIP6))).toBe(a.mac);

    const capture = await tcpdump(lab, client);
    await runnerA.ok({ op: 'reconcile', desired: [] });
    const takeoverAt = Date.now();
    await runnerB.ok({ op: 'reconcile', desired: both });
    // Existing entries are updated by gratuitous ARP / an NA with Override=1 by default: no arp_accept needed.
    await until('the IPv4 entry to move to B', 4_000, () => (neighbour(client, VIP4) === b.mac ? true : undefined));
    await until('the IPv6 entry to move to B', 4_000, () => (neighbour(client, VIP6) === b.mac ? true : undefined));
    const movedMs = Date.now() - takeoverAt;
    // Let the 5 s window run out, then read the capture.
    await new Promise((r) => setTimeout(r, Math.max(0, 6_000 - movedMs)));
    const lines = capture.stop();

    const fromB = lines.filter((l) => l.src === b.mac);
    // tcpdump -e prints an announcement as "Request who-has VIP (ff:ff:ff:ff:ff:ff) tell VIP".
    const announcement = new RegExp(
      `Request who-has ${VIP4.replaceAll('.', '\\.')} (\\([0-9a-f:]+\\) )?tell ${VIP4.replaceAll('.', '\\.')},`,
    );
    const arpBursts = bursts(fromB.filter((l) => announcement.test(l.text) || l.text.includes(`Reply ${VIP4} is-at ${b.mac}`)));
    const naBursts = bursts(fromB.filter((l) => l.text.includes(`neighbor advertisement, tgt is ${VIP6}`)));
    const summary = {
      movedMs,
      arp: arpBursts.map((g) => g.map((l) => l.text.split(': ')[1]?.slice(0, 7))),
      arpStarts: starts(arpBursts),
      naStarts: starts(naBursts),
    };
    // MetalLB: a burst at once, then every 1.1 s until 5 s after the change (about 5); machines here are noisy.
    expect(arpBursts.length, JSON.stringify(summary)).toBeGreaterThanOrEqual(4);
    expect(arpBursts.length, JSON.stringify(summary)).toBeLessThanOrEqual(6);
    for (const burst of arpBursts) {
      expect(burst.filter((l) => announcement.test(l.text)).length, JSON.stringify(summary)).toBe(1);
      expect(burst.filter((l) => l.text.includes('Reply')).length, JSON.stringify(summary)).toBe(1);
    }
    for (const gap of intervals(arpBursts)) expect(Math.abs(gap - 1.1), JSON.stringify(summary)).toBeLessThanOrEqual(0.3);
    expect(naBursts.length, JSON.stringify(summary)).toBeGreaterThanOrEqual(4);
    expect(naBursts.length, JSON.stringify(summary)).toBeLessThanOrEqual(6);
    for (const gap of intervals(naBursts)) expect(Math.abs(gap - 1.1), JSON.stringify(summary)).toBeLessThanOrEqual(0.3);
    // The client never asked: no ARP request or NS of its own for the VIPs in the capture.
    const asked = lines.filter((l) => l.src === client.mac && (l.text.includes(`who-has ${VIP4}`) || l.text.includes(`who has ${VIP6}`)));
    expect(asked).toEqual([]);
    // A said nothing after its withdrawal.
    expect(
      lines.filter((l) => l.src === a.mac && l.at * 1000 > takeoverAt + 50 && (l.text.includes(VIP4) || l.text.includes(VIP6))),
    ).toEqual([]);
    console.info(
      `takeover: client entries on B after ${movedMs} ms; ARP bursts at ${summary.arpStarts.join(', ')} s; NA bursts at ${summary.naStarts.join(', ')} s`,
    );
  });

  it('(d) a burst of malformed frames from a client does not crash the responder, is counted by drop reason, and requests after it are answered', async () => {
    const { lab, client, hosts, runners } = await setup('a');
    const [a] = hosts as [LabHost];
    const [runner] = runners as [AnnouncerPeer];
    await runner.ok({
      op: 'reconcile',
      desired: [
        { ip: VIP4, interfaces: ['eth0'] },
        { ip: VIP6, interfaces: ['eth0'] },
      ],
    });
    const sender = await AnnouncerPeer.start(lab, client);
    const frames = malformedFrames(client, 3_000);
    const { sent } = (await sender.ok({ op: 'sendFrames', ifname: 'eth0', frames: frames.map((f) => f.hex) }, 30_000)) as unknown as {
      sent: number;
    };
    expect(sent).toBe(frames.length);

    // The frames are all out; the announcer has drained its queue once every one of them is counted as a drop.
    type Stats = { drops: Record<string, number>; handlerErrors: number; requestsReceived: Record<string, number> };
    const stats = await until('every malformed frame counted', 10_000, async () => {
      const { stats: now } = (await runner.ok({ op: 'stats' })) as unknown as { stats: Stats };
      return Object.values(now.drops).reduce((x, y) => x + y, 0) >= frames.length ? now : undefined;
    });
    expect(runner.exited).toBe(false);
    expect(stats.handlerErrors).toBe(0);
    const expected = new Map<string, number>();
    for (const f of frames) if (f.reason) expected.set(f.reason, (expected.get(f.reason) ?? 0) + 1);
    const iface = { name: 'eth0', mac: parseMAC(a.mac)!, addresses: [parseIP(a.ipv4)!, parseIP(a.ipv6)!] };
    const owned = ownedIPSet([parseIP(VIP4)!, parseIP(VIP6)!]);
    const predicted = new Map<string, number>();
    for (const f of frames) {
      const r = respondToFrame(Buffer.from(f.hex, 'hex'), iface, owned);
      predicted.set(r.drop ?? 'reply', (predicted.get(r.drop ?? 'reply') ?? 0) + 1);
    }
    // The responder's own verdicts, computed here on the same frames: every frame sent was received and counted
    // under exactly the reason the pure responder gives (no receive-buffer loss at this rate).
    expect(predicted.get('reply')).toBeUndefined();
    for (const [reason, count] of predicted) expect(stats.drops[reason], `${reason}: ${JSON.stringify(stats.drops)}`).toBe(count);
    // Each crafted kind reached its reason (random frames add to some of them; the client kernel's own DAD
    // solicitations show up as dadProbe).
    for (const [reason, count] of expected)
      expect(stats.drops[reason], `${reason}: ${JSON.stringify(stats.drops)}`).toBeGreaterThanOrEqual(count);
    const dropped = Object.values(stats.drops).reduce((a, b) => a + b, 0);
    expect(dropped).toBeGreaterThanOrEqual(frames.length);
    expect(stats.requestsReceived[VIP4] ?? 0).toBe(0);

    const reply = arping(client, VIP4, 3);
    expect(reply.status, reply.out).toBe(0);
    expect(reply.macs).toEqual([a.mac.toUpperCase(), a.mac.toUpperCase(), a.mac.toUpperCase()]);
    udp(client, VIP6);
    expect(await until('the IPv6 VIP to resolve after the burst', 5_000, () => neighbour(client, VIP6))).toBe(a.mac);
    console.info(`malformed burst: ${frames.length} frames, drops ${JSON.stringify(stats.drops)}`);
  });

  it('(e) the link table follows netlink events (not the 10 s rescan): a new interface in the VIP subnet is chosen well within the 10 s rescan, with reasons', async () => {
    const { hosts, runners } = await setup('a');
    const [a] = hosts as [LabHost];
    const [runner] = runners as [AnnouncerPeer];
    type Selection = { selected: string[]; warning?: string; choices: { interface: string; reason: string }[] };
    const before = (await runner.ok({ op: 'select', ip: '10.213.5.1' })) as unknown as Selection;
    expect(before.selected).toEqual(['eth0']);
    expect(before.warning).toBe('noInterfaceInVipSubnet');
    expect(before.choices).toContainEqual(expect.objectContaining({ interface: 'lo', reason: 'excluded' }));

    const started = Date.now();
    for (const args of [
      ['link', 'add', 'lan1', 'type', 'veth', 'peer', 'name', 'lan1p'],
      ['link', 'add', 'br9', 'type', 'bridge'],
      ['link', 'set', 'lan1p', 'master', 'br9', 'up'],
      ['addr', 'add', '10.213.5.2/24', 'dev', 'lan1'],
      ['link', 'set', 'lan1', 'up'],
    ])
      expect(spawnSync('ip', ['-n', a.netns, ...args]).status).toBe(0);
    const after = await until('lan1 to be chosen for 10.213.5.1', 2_000, async () => {
      const s = (await runner.ok({ op: 'select', ip: '10.213.5.1' })) as unknown as Selection;
      return s.selected.includes('lan1') ? s : undefined;
    });
    const tookMs = Date.now() - started;
    expect(after.selected).toEqual(['lan1']);
    expect(after.warning).toBeUndefined();
    const reasons = Object.fromEntries(after.choices.map((c) => [c.interface, c.reason]));
    expect(reasons).toMatchObject({ lan1: 'subnetContainsVip', lan1p: 'enslaved', eth0: 'subnetMismatch', lo: 'excluded' });
    expect(tookMs).toBeLessThan(2_000);
    const { stats } = (await runner.ok({ op: 'links' })) as unknown as { stats: { events: number } };
    expect(stats.events).toBeGreaterThan(0);
  });
});

/** One datagram from the client to `target`: its kernel resolves the neighbour first. */
function udp(client: LabHost, target: string): void {
  const family = target.includes(':') ? 'udp6' : 'udp4';
  const r = run(client, [
    process.execPath,
    '-e',
    `require('dgram').createSocket('${family}').send('mlb', 9, '${target}', (e) => process.exit(e ? 1 : 0))`,
  ]);
  if (r.status !== 0) throw new Error(`udp to ${target} failed: ${r.stderr}`);
}

interface CapturedLine {
  /** Seconds since the epoch (tcpdump -tt). */
  readonly at: number;
  readonly src: string;
  readonly text: string;
}

/** tcpdump -l -tt -e -n in the client, for ARP and ICMPv6; resolves once it is listening. */
async function tcpdump(l: NetnsLab, client: LabHost): Promise<{ stop(): CapturedLine[] }> {
  const child = l.spawnIn(client, 'tcpdump', ['-l', '-tt', '-e', '-n', '-i', 'eth0', 'arp or icmp6']);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tcpdump did not start: ${err}`)), 10_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      if (err.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    stop() {
      child.kill('SIGKILL');
      return out
        .split('\n')
        .map((line) => /^(\d+\.\d+) ([0-9a-f:]{17}) > /.exec(line) && { m: /^(\d+\.\d+) ([0-9a-f:]{17}) > /.exec(line)!, line })
        .filter((x): x is { m: RegExpExecArray; line: string } => Boolean(x))
        .map(({ m, line }) => ({ at: Number(m[1]), src: m[2]!, text: line }));
    },
  };
}

/** Lines grouped into bursts: a gap of more than 0.4 s starts a new one. */
function bursts(lines: CapturedLine[]): CapturedLine[][] {
  const groups: CapturedLine[][] = [];
  for (const line of lines) {
    const last = groups[groups.length - 1];
    if (last && line.at - last[last.length - 1]!.at <= 0.4) last.push(line);
    else groups.push([line]);
  }
  return groups;
}

function starts(groups: CapturedLine[][]): string[] {
  const t0 = groups[0]?.[0]?.at ?? 0;
  return groups.map((g) => (g[0]!.at - t0).toFixed(3));
}

function intervals(groups: CapturedLine[][]): number[] {
  return groups.slice(1).map((g, i) => g[0]!.at - groups[i]![0]!.at);
}

/**
 * Malformed and unanswerable frames, each with the drop reason the responder must count (undefined when the
 * BPF filter or the kernel may keep it from the responder, e.g. random bytes that are not an NS).
 */
function malformedFrames(client: LabHost, total: number): { hex: string; reason?: string }[] {
  const mac = parseMAC(client.mac)!;
  const me = parseIP(client.ipv4)!;
  const vip4 = parseIP(VIP4)!;
  const vip6 = parseIP(VIP6)!;
  const good = encodeArpFrame(arpRequest(mac, me, vip4), BROADCAST_MAC, mac);
  const ns = (hopLimit: number, withOption = true): Uint8Array =>
    encodeNdpFrame(
      {
        source: parseIP(client.ipv6)!,
        destination: solicitedNodeAddress(vip6),
        hopLimit,
        message: { kind: 'solicitation', target: vip6, options: withOption ? [{ kind: 'sourceLinkLayer', mac }] : [] },
      },
      solicitedNodeMAC(vip6),
      mac,
    );
  const mutate = (base: Uint8Array, edit: (b: Buffer) => void): string => {
    const b = Buffer.from(base);
    edit(b);
    return b.toString('hex');
  };
  let seed = 0x2545f491;
  const random = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const kinds: (() => { hex: string; reason?: string })[] = [
    // At least the 8-octet fixed ARP header: shorter ARP frames never reach an ARP packet socket here (seen in
    // this lab: the kernel drops them on the way), so they could not be counted.
    () => ({
      hex: Buffer.from(good)
        .subarray(0, 14 + 8 + random(20))
        .toString('hex'),
      reason: 'truncated',
    }),
    () => ({ hex: mutate(good, (b) => b.writeUInt16BE(6, 14)), reason: 'badHardwareType' }),
    () => ({ hex: mutate(good, (b) => b.writeUInt16BE(0x86dd, 16)), reason: 'badProtocolType' }),
    () => ({ hex: mutate(good, (b) => b.writeUInt8(8, 18)), reason: 'badAddressLength' }),
    () => ({ hex: mutate(good, (b) => b.writeUInt16BE(3 + random(1000), 20)), reason: 'unknownOperation' }),
    () => ({ hex: mutate(good, (b) => b.writeUInt8(0x01, 0)), reason: 'notForUs' }),
    () => ({ hex: mutate(ns(255), (b) => b.writeUInt16BE(b.readUInt16BE(56) ^ 0x5a5a, 56)), reason: 'badChecksum' }),
    () => ({ hex: Buffer.from(ns(64)).toString('hex'), reason: 'badHopLimit' }),
    () => ({ hex: Buffer.from(ns(255, false)).toString('hex'), reason: 'noSourceLinkLayer' }),
    () => {
      // Random bytes behind an ARP header: whatever the decoder makes of it, it must not throw.
      const b = Buffer.alloc(14 + 8 + random(80));
      for (let i = 14; i < b.length; i++) b[i] = random(256);
      Buffer.from(good).copy(b, 0, 0, 14);
      return { hex: b.toString('hex') };
    },
  ];
  const frames: { hex: string; reason?: string }[] = [];
  for (let i = 0; i < total; i++) frames.push(kinds[random(kinds.length)]!());
  return frames;
}
