/**
 * TCP MD5 (RFC 2385) against a real peer: Linux itself. Two lab namespaces, a "router" (the hand-written peer)
 * and a "node" (mlb's BgpSession), each in a runner process (session-lab-runner.ts). Same password on both sides: the
 * session comes up; a wrong or missing password: the kernel drops the SYN (its TcpExtTCPMD5* counters say why)
 * and the dial times out. Both directions: the session dialing a keyed listener, and the router dialing the
 * session's keyed BgpListener.
 *
 * Skips without root, network namespaces or the native addon.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tcpMd5Available } from '../../../../src/native/tcp-md5';
import { canUseNetns, NetnsLab, type LabHost } from '../../../support/netns-lab';
import { until } from '../../../support/until';
import { SessionLabPeer } from './session-lab-peer';
import { ROUTER_ASN } from './test-bgp-peer';

const netns = canUseNetns();
const skip = !netns.ok ? netns.why : !tcpMd5Available() ? 'the native addon (TCP MD5) is not built' : undefined;
if (skip) console.warn(`skipping the TCP MD5 lab tests: ${skip}`);

const PASSWORD = 'mlb-md5-test';
/** The wrong password's dial gets no SYN-ACK; 2 s is several SYN retransmissions on an idle lab. */
const DIAL_TIMEOUT_MS = 2_000;
const UP_MS = 15_000;

/** The kernel's MD5 counters in a namespace (/proc/net/netstat is per network namespace). */
function md5Counters(lab: NetnsLab, host: LabHost): Record<string, number> {
  const text = lab.execIn(host, 'cat', ['/proc/net/netstat']);
  const lines = text.split('\n').filter((l) => l.startsWith('TcpExt:'));
  const names = lines[0]!.split(/\s+/).slice(1);
  const values = lines[1]!.split(/\s+/).slice(1).map(Number);
  const counters: Record<string, number> = {};
  names.forEach((name, i) => {
    if (name.startsWith('TCPMD5')) counters[name] = values[i]!;
  });
  return counters;
}

function sessionOptions(node: LabHost, router: LabHost, password: string | undefined, extra: Record<string, unknown> = {}) {
  return {
    peer: { address: router.ipv4, asn: ROUTER_ASN, ...(password !== undefined ? { password } : {}) },
    local: { asn: 64500, routerId: node.ipv4, sourceAddress: node.ipv4, holdTimeS: 90, keepaliveS: 0, families: ['ipv4'] },
    timing: { dialTimeoutMs: DIAL_TIMEOUT_MS, connectRetryInitialMs: 60_000, connectRetryMaxMs: 60_000 },
    ...extra,
  };
}

describe.skipIf(skip !== undefined)('TCP MD5 between two namespaces', () => {
  let lab: NetnsLab;
  let router: LabHost;
  let node: LabHost;
  let routerPeer: SessionLabPeer;
  let nodePeer: SessionLabPeer;

  beforeAll(async () => {
    lab = new NetnsLab();
    router = lab.addHost('router');
    node = lab.addHost('node');
    [routerPeer, nodePeer] = await Promise.all([SessionLabPeer.inLab(lab, router), SessionLabPeer.inLab(lab, node)]);
    await routerPeer.ok({ op: 'routerListen', host: router.ipv4, port: 179, md5Peer: node.ipv4, password: PASSWORD });
  });

  afterAll(() => {
    routerPeer?.stop();
    nodePeer?.stop();
    lab?.destroy();
  });

  it('the session dials a keyed router with the same password and comes up', async () => {
    await nodePeer.ok({ op: 'session', name: 'right', options: sessionOptions(node, router, PASSWORD) });
    const up = await nodePeer.waitFor((e) => e.ev === 'established' && e.name === 'right', UP_MS);
    expect(up.info).toMatchObject({ peerAsn: ROUTER_ASN, localAddress: node.ipv4, remoteAddress: router.ipv4 });
    await routerPeer.waitFor((e) => e.ev === 'handshake', UP_MS);
    await nodePeer.ok({ op: 'stop', name: 'right' });
  });

  it.each([
    ['a wrong password', 'not-the-password', 'TCPMD5Failure'],
    ['no password', undefined, 'TCPMD5NotFound'],
  ])("with %s the router's kernel drops the SYN and the dial times out", async (_what, password, counter) => {
    const before = md5Counters(lab, router);
    const accepted = routerPeer.events.filter((e) => e.ev === 'accepted').length;
    const name = `bad-${counter}`;
    await nodePeer.ok({ op: 'session', name, options: sessionOptions(node, router, password) });
    const status = await until(
      'the dial to fail',
      async () => {
        const reply = await nodePeer.ok({ op: 'status', name });
        const now = reply.status as Record<string, unknown>;
        return now.lastProblem ? now : undefined;
      },
      15_000,
    );
    expect(status).toMatchObject({ phase: 'Idle', lastProblem: { reason: 'tcpFailed' } });
    expect((status!.lastProblem as { message: string }).message).toMatch(/dial timeout/);
    expect(routerPeer.events.filter((e) => e.ev === 'accepted')).toHaveLength(accepted);
    expect(md5Counters(lab, router)[counter]).toBeGreaterThan(before[counter] ?? 0);
    await nodePeer.ok({ op: 'stop', name });
  });

  it("a passive session keys its listener: the router's signed connection comes up, a wrong key never connects", async () => {
    await nodePeer.ok({
      op: 'session',
      name: 'passive',
      listen: { address: '::', port: 179 },
      options: sessionOptions(node, router, PASSWORD, { passive: true, dialOut: false }),
    });
    const before = md5Counters(lab, node).TCPMD5Failure ?? 0;
    const wrong = await routerPeer.ok({
      op: 'routerDial',
      host: node.ipv4,
      port: 179,
      localAddress: router.ipv4,
      password: 'wrong',
      timeoutMs: DIAL_TIMEOUT_MS,
    });
    expect(wrong.connected).toBe(false);
    expect(md5Counters(lab, node).TCPMD5Failure).toBeGreaterThan(before);
    const right = await routerPeer.ok({
      op: 'routerDial',
      host: node.ipv4,
      port: 179,
      localAddress: router.ipv4,
      password: PASSWORD,
      timeoutMs: UP_MS,
    });
    expect(right).toMatchObject({ connected: true, handshake: true });
    const up = await nodePeer.waitFor((e) => e.ev === 'established' && e.name === 'passive', UP_MS);
    expect(up.info).toMatchObject({ origin: 'inbound', remoteAddress: router.ipv4, localAddress: node.ipv4 });
  });
});
