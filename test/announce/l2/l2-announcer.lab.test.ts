/**
 * The L2 announcer in network namespaces (issue 4 acceptance): a NetnsLab segment with a client and one or two
 * announcing nodes, each announcer an L2Announcer in its own process inside its namespace (announcer-runner.ts),
 * fed by that namespace's netlink link table. The client side is the real thing: iputils arping, the client's
 * kernel resolving neighbours (ip neigh), tcpdump.
 *
 * The VIPs are on no interface anywhere, so no kernel answers for them: every answer comes from mlb.
 * Skips (saying why) without root, namespaces or the addon; in CI (CI set) a missing addon, arping or tcpdump fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ipToBytes, parseIP } from '../../../src/ip';
import { arpRequest, ArpOperation, encodeArp, encodeArpFrame } from '../../../src/announce/l2/arp-packet';
import { BROADCAST_MAC, parseMAC } from '../../../src/announce/l2/mac-address';
import { encodeNdpFrame } from '../../../src/announce/l2/ndp-packet';
import { solicitedNodeAddress, solicitedNodeMAC } from '../../../src/announce/l2/solicited-node';
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
const missing = [!addon.loaded && `the native addon (${addon.why})`, !has('arping') && 'arping (iputils-arping)', !has('tcpdump') && 'tcpdump'].filter(Boolean);
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

function run(l: NetnsLab, host: LabHost, command: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('ip', ['netns', 'exec', host.netns, ...command], { encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** iputils arping: `Unicast reply from IP [MAC]  0.6ms` per reply; the MACs as printed (upper case). */
function arping(l: NetnsLab, client: LabHost, target: string, count: number): { status: number | null; macs: string[]; out: string } {
  const r = run(l, client, ['arping', '-c', String(count), '-w', String(count + 1), '-I', 'eth0', target]);
  const macs = [...r.stdout.matchAll(/reply from \S+ \[([0-9A-F:]{17})\]/g)].map((m) => m[1]!);
  return { status: r.status, macs, out: r.stdout + r.stderr };
}

/** The lladdr of `ip neigh show IP dev eth0` in the client, or undefined. */
function neighbour(l: NetnsLab, client: LabHost, target: string): string | undefined {
  const out = run(l, client, ['ip', target.includes(':') ? '-6' : '-4', 'neigh', 'show', target, 'dev', 'eth0']).stdout;
  return /lladdr ([0-9a-f:]{17})/.exec(out)?.[1];
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

describe.skipIf(skip !== undefined)('L2 announcer in network namespaces', () => {
  it('(a) arping from a client gets exactly one reply per request from the announcer for a VIP no kernel owns; the kernel learns it; an unannounced IP gets none', async () => {
    const { lab, client, hosts, runners } = await setup('a');
    const [a] = hosts as [LabHost];
    const [runner] = runners as [AnnouncerPeer];
    const { effects } = (await runner.ok({ op: 'reconcile', desired: [{ ip: VIP4, interfaces: ['eth0'] }] })) as unknown as { effects: { kind: string; interface: string }[] };
    expect(effects.map((e) => `${e.kind} ${e.interface}`)).toEqual(['createARPResponder eth0', 'startGratuitous eth0']);
    expect(runner.logs('createARPResponder')).toEqual([expect.objectContaining({ interface: 'eth0', level: 'info' })]);

    const reply = arping(lab, client, VIP4, 3);
    expect(reply.status, reply.out).toBe(0);
    expect(reply.macs).toEqual([a.mac.toUpperCase(), a.mac.toUpperCase(), a.mac.toUpperCase()]);

    // The client's kernel resolves the VIP itself (a datagram to it) and keeps our answer.
    run(lab, client, [process.execPath, '-e', `require('dgram').createSocket('udp4').send('mlb', 9, '${VIP4}', (e, n) => process.exit(e ? 1 : 0))`]);
    expect(await until('the client kernel to learn the VIP', 5_000, () => neighbour(lab, client, VIP4))).toBe(a.mac);

    const silent = arping(lab, client, SILENT_VIP4, 2);
    expect(silent.status).toBe(1);
    expect(silent.macs).toEqual([]);

    const { stats } = (await runner.ok({ op: 'stats' })) as unknown as { stats: { requestsReceived: Record<string, number>; responsesSent: Record<string, number>; drops: Record<string, number> } };
    expect(stats.requestsReceived[VIP4]).toBeGreaterThanOrEqual(4);
    expect(stats.responsesSent[VIP4]).toBe(stats.requestsReceived[VIP4]);
    expect(stats.drops.notOwned).toBeGreaterThanOrEqual(2);
  });
});
