/**
 * BgpSession against a real router: FRR's bgpd (8.4, from Debian) in a lab namespace, run without zebra (only
 * the session matters here; the full router labs live with the speaker's tests). One session comes up, both sides
 * agree on the hold time (FRR offers 30 s, mlb 90 s: 30 s, keepalive 10 s), FRR receives an UPDATE, and a stop
 * reaches FRR as an administrative shutdown with its text.
 *
 * Skips without root, network namespaces or /usr/lib/frr/bgpd.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canUseNetns, NetnsLab, type LabHost } from '../../../support/netns-lab';
import { SessionLabPeer } from './session-lab-peer';

const BGPD = '/usr/lib/frr/bgpd';
const netns = canUseNetns();
const skip = !netns.ok ? netns.why : !existsSync(BGPD) ? `FRR is not installed (${BGPD}; apt-get install frr)` : undefined;
if (skip) console.warn(`skipping the FRR session test: ${skip}`);

const FRR_ASN = 64512;
const NODE_ASN = 64500;
const UP_MS = 30_000;

function frrConfig(router: LabHost, node: LabHost): string {
  return [
    'frr defaults traditional',
    'hostname mlb-session-test',
    'log stdout informational',
    '!',
    `router bgp ${FRR_ASN}`,
    ` bgp router-id ${router.ipv4}`,
    // RFC 8212 would drop every route without a policy; the speaker's labs test policies, this one the session.
    ' no bgp ebgp-requires-policy',
    ` neighbor ${node.ipv4} remote-as ${NODE_ASN}`,
    ` neighbor ${node.ipv4} timers 10 30`,
    // Without zebra bgpd knows no interfaces, so it cannot tell the peer is on a connected network.
    ` neighbor ${node.ipv4} disable-connected-check`,
    '!',
    '',
  ].join('\n');
}

describe.skipIf(skip !== undefined)('BgpSession with FRR bgpd', () => {
  let lab: NetnsLab;
  let router: LabHost;
  let node: LabHost;
  let dir: string;
  let nodePeer: SessionLabPeer;
  let frrLog = '';

  const vtysh = (command: string): string => lab.execIn(router, 'vtysh', ['--vty_socket', dir, '-c', command]);
  const neighbor = (): Record<string, unknown> =>
    (JSON.parse(vtysh(`show bgp neighbors ${node.ipv4} json`)) as Record<string, Record<string, unknown>>)[node.ipv4]!;

  async function until<T>(what: string, probe: () => T | undefined, timeoutMs = UP_MS): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms; FRR said:\n${frrLog.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  beforeAll(async () => {
    lab = new NetnsLab();
    router = lab.addHost('frr');
    node = lab.addHost('node');
    dir = mkdtempSync(join(tmpdir(), 'mlb-frr-session-'));
    writeFileSync(join(dir, 'frr.conf'), frrConfig(router, node));
    const bgpd = lab.spawnIn(router, BGPD, [
      '-f',
      join(dir, 'frr.conf'),
      '-i',
      join(dir, 'bgpd.pid'),
      '--vty_socket',
      dir,
      '-Z',
      '-S',
      '-n',
      '-P',
      '0',
      '--log',
      'stdout',
    ]);
    bgpd.stdout!.on('data', (chunk: Buffer) => {
      frrLog += chunk.toString();
    });
    bgpd.stderr!.on('data', (chunk: Buffer) => {
      frrLog += chunk.toString();
    });
    await until('bgpd listening on its vty socket', () => (existsSync(join(dir, 'bgpd.vty')) ? true : undefined));
    nodePeer = await SessionLabPeer.inLab(lab, node);
  });

  afterAll(() => {
    nodePeer?.stop();
    lab?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('comes up with the hold time both sides agree on, and FRR receives an UPDATE', async () => {
    await nodePeer.ok({
      op: 'session',
      name: 'frr',
      options: {
        peer: { address: router.ipv4, asn: FRR_ASN },
        local: { asn: NODE_ASN, routerId: node.ipv4, sourceAddress: node.ipv4, holdTimeS: 90, keepaliveS: 0, families: ['ipv4'] },
      },
    });
    const up = await nodePeer.waitFor((e) => e.ev === 'established', UP_MS);
    expect(up.info).toMatchObject({
      peerAsn: FRR_ASN,
      peerRouterId: router.ipv4,
      holdTimeS: 30,
      keepaliveS: 10,
      fourOctetAsn: true,
      routeRefresh: true,
      families: ['ipv4'],
    });
    const state = await until('FRR Established', () => (neighbor().bgpState === 'Established' ? neighbor() : undefined));
    // FRR reports the negotiated timers in milliseconds.
    expect(state).toMatchObject({ bgpTimerHoldTimeMsecs: 30_000, bgpTimerKeepAliveIntervalMsecs: 10_000 });
    const sent = await nodePeer.ok({ op: 'announce', name: 'frr', prefix: '192.0.2.10/32', nextHop: node.ipv4, asn: NODE_ASN });
    expect(sent.sent).toBe(true);
    const route = await until('FRR holding 192.0.2.10/32', () => {
      const json = JSON.parse(vtysh('show bgp ipv4 unicast 192.0.2.10/32 json')) as { paths?: { aspath?: { string?: string } }[] };
      return json.paths?.length ? json : undefined;
    });
    expect(route.paths![0]!.aspath!.string).toBe(String(NODE_ASN));
  });

  it('a stop reaches FRR as an administrative shutdown with its reason', async () => {
    await nodePeer.ok({ op: 'stop', name: 'frr' });
    const state = await until('FRR noticing the shutdown', () => (neighbor().bgpState !== 'Established' ? neighbor() : undefined));
    expect(String(state.lastNotificationReason ?? '')).toMatch(/Cease\/Administrative Shutdown/i);
    expect(frrLog + JSON.stringify(state)).toContain('test over');
  });
});
