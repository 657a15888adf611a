/**
 * BFD between network namespaces: mlb against mlb, and mlb against FRR 8.4's bfdd, each side a
 * real process with real sockets (bfd-runner.ts; bfdd from Debian). A node "dies" by SIGKILL of its process:
 * its sockets close and nothing more is sent, no AdminDown. What is measured is the time from the kill to the
 * survivor's Down, printed for the record; the Detection Time with the 300 ms x 3 profile is 900 ms. Wall-clock
 * bounds are loose (a shared 2-core machine): the assertions are the states, diagnostics and reasons.
 *
 * Skips (saying why) without root or namespaces, and without bfdd for the FRR part; in CI a missing bfdd fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { udpTtlAddonStatus } from '../../../src/native/udp-ttl';
import { canUseNetns, NetnsLab, type LabHost } from '../../support/netns-lab';
import { BfdPeerProcess } from './bfd-peer-process';
import { bfddMissing, FrrBfdd, type FrrBfdPeer } from './frr-bfdd';

const PROFILE = { receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3 };
const DETECTION_MS = 900;
/** Loose: the Detection Time plus scheduling on a busy machine; a hold-time fallback would take 90 s. */
const DOWN_WITHIN_MS = 3_000;

const netns = canUseNetns();
const bfdd = bfddMissing();
if (process.env.CI && bfdd) throw new Error(`CI is set and FRR's bfdd is missing: ${bfdd}`);
if (!netns.ok) console.warn(`skipping the BFD lab tests: ${netns.why}`);
else if (bfdd) console.warn(`skipping the BFD tests against FRR: missing ${bfdd}`);
const ttl = udpTtlAddonStatus();

let lab: NetnsLab | undefined;
let frr: FrrBfdd | undefined;
const runners: BfdPeerProcess[] = [];
afterEach(() => {
  for (const r of runners) r.stop();
  runners.length = 0;
  frr?.destroy();
  frr = undefined;
  lab?.destroy();
  lab = undefined;
});

async function runner(l: NetnsLab, host: LabHost): Promise<BfdPeerProcess> {
  const r = await BfdPeerProcess.start(l, host);
  runners.push(r);
  return r;
}

/** Opens endpoints on the host's IPv4 and IPv6 addresses with one session each towards `peer`. */
async function sessionsTo(r: BfdPeerProcess, host: LabHost, peer: LabHost): Promise<void> {
  for (const [local, remote] of [
    [host.ipv4, peer.ipv4],
    [host.ipv6, peer.ipv6],
  ] as const) {
    const opened = await r.ok({ op: 'open', localAddress: local });
    expect(opened.ttlCheck).toBe(ttl.loaded ? 'enforced' : 'unavailable');
    await r.ok({ op: 'session', localAddress: local, peer: remote, profile: PROFILE });
    await r.ok({ op: 'start', peer: remote });
  }
}

async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until `r`'s session with `peer` is Up at the profile's Detection Time with no Poll Sequence under way. */
function settled(r: BfdPeerProcess, peer: string): Promise<Record<string, unknown>> {
  return until(`${r.name}'s session with ${peer} to settle at ${DETECTION_MS} ms`, 5_000, async () => {
    const status = await r.ok({ op: 'status', peer });
    return status.state === 'Up' && status.detectionTimeMs === DETECTION_MS && status.polling === false ? status : undefined;
  });
}

function report(what: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  console.log(`BFD lab: ${what}: ${sorted.map((s) => `${s} ms`).join(', ')} (Detection Time ${DETECTION_MS} ms)`);
}

describe.skipIf(!netns.ok)('mlb <-> mlb in two namespaces', () => {
  it('reach Up over IPv4 and IPv6; a killed peer is Down within the Detection Time, three times over', async () => {
    lab = new NetnsLab();
    const n1 = lab.addHost('n1');
    const n2 = lab.addHost('n2');
    const survivor = await runner(lab, n2);
    await sessionsTo(survivor, n2, n1);

    const samples: Record<'v4' | 'v6', number[]> = { v4: [], v6: [] };
    for (let trial = 0; trial < 3; trial++) {
      const since = Date.now();
      const victim = await runner(lab, n1);
      await sessionsTo(victim, n1, n2);
      for (const peer of [n1.ipv4, n1.ipv6]) await survivor.next('up', peer, since, 15_000);
      for (const peer of [n2.ipv4, n2.ipv6]) await victim.next('up', peer, since, 15_000);
      // Settle: the Poll Sequences after Up bring the Detection Time down to 3 x 300 ms, on both sides.
      for (const peer of [n1.ipv4, n1.ipv6]) await settled(survivor, peer);
      for (const peer of [n2.ipv4, n2.ipv6]) await settled(victim, peer);

      const killedAt = Date.now();
      process.kill(victim.pid!, 'SIGKILL');
      for (const [family, peer] of [
        ['v4', n1.ipv4],
        ['v6', n1.ipv6],
      ] as const) {
        const down = await survivor.next('down', peer, killedAt, 10_000);
        expect(down).toMatchObject({ diag: 1, diagName: 'controlDetectionTimeExpired', failure: true });
        samples[family].push((down.at as number) - killedAt);
      }
    }
    report('kill -9 of the peer -> Down (IPv4)', samples.v4);
    report('kill -9 of the peer -> Down (IPv6)', samples.v6);
    for (const s of [...samples.v4, ...samples.v6]) expect(s).toBeLessThan(DOWN_WITHIN_MS);
    // Each restart was a new session for the survivor: Down -> Init/Up again with the new discriminator.
    const status = await survivor.ok({ op: 'status', peer: n1.ipv4 });
    expect((status.counters as { upTransitions: number }).upTransitions).toBe(3);
  });
});

describe.skipIf(!netns.ok || bfdd !== undefined)('mlb <-> FRR bfdd', () => {
  function frrPeer(address: string, status: FrrBfdPeer['status']): FrrBfdPeer | undefined {
    const p = frr!.peer(address);
    return p?.status === status ? p : undefined;
  }

  async function setup(): Promise<{ router: LabHost; node: LabHost; mlb: BfdPeerProcess }> {
    lab = new NetnsLab();
    const router = lab.addHost('router');
    const node = lab.addHost('node');
    frr = FrrBfdd.start(lab, router, [
      { peer: node.ipv4, local: router.ipv4, ...PROFILE },
      { peer: node.ipv6, local: router.ipv6, ...PROFILE },
    ]);
    const mlb = await runner(lab, node);
    await sessionsTo(mlb, node, router);
    return { router, node, mlb };
  }

  it('come Up with us over IPv4 and IPv6 with the negotiated timers; FRR sees our kill -9 within its Detection Time', async () => {
    const { router, node, mlb } = await setup();
    const up = await until('FRR to report both sessions up', 15_000, () => {
      const v4 = frrPeer(node.ipv4, 'up');
      const v6 = frrPeer(node.ipv6, 'up');
      return v4 && v6 ? { v4, v6 } : undefined;
    });
    for (const peer of [router.ipv4, router.ipv6]) await mlb.next('up', peer, 0, 5_000);
    expect(up.v4).toMatchObject({ 'remote-receive-interval': 300, 'remote-detect-multiplier': 3 });
    await until('FRR to see our 300 ms TX', 5_000, () => (frr!.peer(node.ipv4)?.['remote-transmit-interval'] === 300 ? true : undefined));
    const ours = await mlb.ok({ op: 'status', peer: router.ipv4 });
    expect(ours).toMatchObject({ state: 'Up', detectionTimeMs: DETECTION_MS });
    expect((ours.counters as { dropped: Record<string, number> }).dropped.badTtl).toBe(0);

    const killedAt = Date.now();
    process.kill(mlb.pid!, 'SIGKILL');
    const down = await until('FRR to declare the session down', 10_000, () => frrPeer(node.ipv4, 'down'));
    const tookMs = Date.now() - killedAt;
    report('kill -9 of mlb -> FRR bfdd Down (IPv4, polled every ~25 ms through vtysh)', [tookMs]);
    expect(down.diagnostic).toBe('control detection time expired');
    expect(tookMs).toBeLessThan(DOWN_WITHIN_MS);
  });

  it('stop() is seen by FRR as AdminDown; a killed bfdd takes our session Down within the Detection Time', async () => {
    const { router, node, mlb } = await setup();
    await until('FRR up', 15_000, () => frrPeer(node.ipv4, 'up') && frrPeer(node.ipv6, 'up'));
    for (const peer of [router.ipv4, router.ipv6]) await mlb.next('up', peer, 0, 5_000);
    // Poll Sequences over: 900 ms both ways.
    for (const peer of [router.ipv4, router.ipv6]) await settled(mlb, peer);
    for (const address of [node.ipv4, node.ipv6]) {
      await until(`FRR to see our 300 ms TX to ${address}`, 5_000, () =>
        frr!.peer(address)?.['remote-transmit-interval'] === 300 ? true : undefined,
      );
    }

    // Graceful: our AdminDown takes FRR's IPv4 session down, saying why.
    const stop = mlb.ok({ op: 'stop', peer: router.ipv4 }, 15_000);
    const frrDown = await until('FRR to see AdminDown', 5_000, () => frrPeer(node.ipv4, 'down'));
    expect(frrDown['remote-diagnostic']).toBe('administratively down');
    await stop;

    // The router dies: our IPv6 session (still Up) goes Down on its own.
    const killedAt = Date.now();
    frr!.kill();
    const down = await mlb.next('down', router.ipv6, killedAt, 10_000);
    expect(down).toMatchObject({ diag: 1, failure: true });
    const tookMs = (down.at as number) - killedAt;
    report('kill -9 of FRR bfdd -> our Down (IPv6)', [tookMs]);
    expect(tookMs).toBeLessThan(DOWN_WITHIN_MS);
  });
});
