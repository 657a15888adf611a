/**
 * The host facilities of a virtual host (src/runtime/virtual/virtual-host-io.ts): BGP runs between two virtual
 * hosts over the virtual network's TCP (the session and listener read the runtime's ByteStream, nothing of
 * node:net), on virtual time; what the virtual network does not simulate (HTTP, TTL-aware UDP for BFD, TCP MD5)
 * fails with NetworkError('notOnVirtualNetwork') or its caller's typed error, never by touching a real socket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseCIDR, parseIP } from '../../src/ip';
import type { BgpUpdate } from '../../src/announce/bgp/bgp-messages';
import { BgpListener, BgpSession, type SessionUp } from '../../src/announce/bgp/session';
import { BfdEndpoint } from '../../src/announce/bfd';
import { NetworkError, VirtualNetwork } from '../../src/runtime';
import { SILENT_LOG } from '../../src/runtime/log';

const SPEAKER = { ip: '10.0.0.1', asn: 64500 };
const ROUTER = { ip: '10.0.0.2', asn: 64512 };
/** Well past a handshake on a 1 ms link, short of any hold time. */
const HANDSHAKE_BUDGET_MS = 30_000;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function announcement(prefix: string): BgpUpdate {
  return {
    type: 'update',
    withdrawn: [],
    nlri: [parseCIDR(prefix)!],
    attributes: { origin: 'igp', asPath: [{ type: 'sequence', asns: [SPEAKER.asn] }], nextHop: parseIP(SPEAKER.ip)!, communities: [] },
  };
}

describe('virtual host facilities', () => {
  it('carries a BGP session between two virtual hosts: both Established, addresses right, an UPDATE delivered', async () => {
    const net = new VirtualNetwork({ seed: 7, link: { latency: 1, jitter: 0 } });
    const speakerHost = net.host(SPEAKER.ip);
    const routerHost = net.host(ROUTER.ip);
    const listener = new BgpListener({ address: ROUTER.ip, port: 179, logger: SILENT_LOG, net: routerHost.hostIo.signedTcp });
    await listener.listen();
    cleanup.push(() => listener.close());
    const router = new BgpSession({
      peer: { address: SPEAKER.ip, asn: SPEAKER.asn },
      local: { asn: ROUTER.asn, routerId: ROUTER.ip, holdTimeS: 90, keepaliveS: 0, families: ['ipv4'] },
      passive: true,
      dialOut: false,
      listener,
      logger: SILENT_LOG,
      runtime: routerHost,
      net: routerHost.hostIo.signedTcp,
    });
    const speaker = new BgpSession({
      peer: { address: ROUTER.ip, port: 179, asn: ROUTER.asn },
      local: { asn: SPEAKER.asn, routerId: SPEAKER.ip, holdTimeS: 90, keepaliveS: 0, families: ['ipv4'] },
      logger: SILENT_LOG,
      runtime: speakerHost,
      net: speakerHost.hostIo.signedTcp,
    });
    // Stopping waits for the connections to close, on virtual time: the clock runs until both have.
    cleanup.push(async () => {
      let stopped = false;
      void Promise.all([speaker.stop('test over'), router.stop('test over')]).then(() => (stopped = true));
      await net.runUntil(() => stopped, { timeoutMs: HANDSHAKE_BUDGET_MS });
    });
    const ups: SessionUp[] = [];
    speaker.on('established', (up) => ups.push(up));
    const received: BgpUpdate[] = [];
    router.on('update', (update) => received.push(update));
    router.start();
    speaker.start();

    const both = await net.runUntil(() => speaker.phase === 'Established' && router.phase === 'Established', {
      timeoutMs: HANDSHAKE_BUDGET_MS,
    });
    expect(both).toBe(true);
    expect(ups).toMatchObject([{ localAddress: SPEAKER.ip, remoteAddress: ROUTER.ip, peerAsn: ROUTER.asn, origin: 'outbound' }]);
    expect(speaker.send([announcement('192.0.2.10/32')])).toBe(true);
    expect(await net.runUntil(() => received.length > 0, { timeoutMs: HANDSHAKE_BUDGET_MS })).toBe(true);
    expect(received[0]?.nlri).toEqual([parseCIDR('192.0.2.10/32')]);
    expect(await speakerHost.hostIo.signedTcp.sourceAddressFor(ROUTER.ip)).toBe(SPEAKER.ip);
  });

  it('refuses what it does not simulate with a typed error: TCP MD5, HTTP servers and clients, BFD sockets', async () => {
    const host = new VirtualNetwork({ seed: 1 }).host('10.0.0.1');
    const io = host.hostIo;
    const notVirtual = {
      constructor: NetworkError,
      code: 'notOnVirtualNetwork',
      message: expect.stringMatching(/not available on the virtual network/),
    };

    expect(
      () =>
        new BgpSession({
          peer: { address: '10.0.0.2', asn: 64512, password: 's3cret' },
          local: { asn: 64500, routerId: '10.0.0.1', holdTimeS: 90, keepaliveS: 0, families: ['ipv4'] },
          logger: SILENT_LOG,
          runtime: host,
          net: io.signedTcp,
        }),
    ).toThrow(expect.objectContaining({ code: 'md5Unavailable' }));
    await expect(io.signedTcp.connectSigned({ host: '10.0.0.2', port: 179 }, { timeoutMs: 1000, md5Password: 'x' })).rejects.toMatchObject(
      notVirtual,
    );
    await expect(io.httpServers.listenHttp({ host: '10.0.0.1', port: 9100 }, {} as never, () => {})).rejects.toMatchObject(notVirtual);
    await expect(io.httpServers.probeUnixSocket('/run/mlb.sock', 1000)).rejects.toMatchObject(notVirtual);
    expect(() => io.httpClient.get({ host: '10.0.0.2', port: 80, path: '/', headers: {} }, { onStatus() {}, onError() {} })).toThrow(
      expect.objectContaining({ code: 'notOnVirtualNetwork' }),
    );
    await expect(io.ttlUdp.bindTtlSender({ host: '10.0.0.1', port: 49152 }, 255, () => {})).rejects.toMatchObject(notVirtual);
    // Through BFD: its own typed error, saying why.
    await expect(BfdEndpoint.open({ localAddress: '10.0.0.1', runtime: host, udp: io.ttlUdp })).rejects.toMatchObject({
      code: 'bindFailed',
      message: expect.stringMatching(/not available on the virtual network/),
    });
  });
});
