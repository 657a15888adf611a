/**
 * The BGP announcer: carries this node's BGP announcements (the election's output) to its peers. Not pure.
 *
 * The daemon calls reconcile() with the peers that select this node and every route this node should advertise,
 * every time; the announcer converges: a session per peer (started, kept, or restarted when its configuration
 * changed), and per Established session the Adj-RIB-Out reconciler's UPDATEs (speaker/), End-of-RIB after the
 * first sync, a full resend on ROUTE-REFRESH. A peer with a bfdProfile gets a BFD session beside it; BFD going
 * down takes the BGP session down at once (RFC 5882 3.2), so a crashed node's routes leave the router within the
 * detection time instead of the hold time.
 */
import { networkInterfaces } from 'node:os';
import { formatIP, parseIP, type IP } from '../../ip';
import type { BGPPeer } from '../../model';
import type { BGPAnnouncement } from '../../election';
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import { realSignedTcp } from '../../runtime/real-signed-tcp';
import type { Runtime } from '../../runtime/runtime';
import type { SignedTcpNetwork } from '../../runtime/signed-tcp';
import { BfdEndpoint, type BfdSession } from '../bfd';
import type { BgpPeerPlan } from './bgp-peer-plan';
import { BgpSession, type SessionUp } from './session';
import {
  desiredRoutesByPeer,
  emptyAdjRibOut,
  initialSync,
  reconcile,
  resync,
  type AdjRibOut,
  type PeerRoutes,
  type SpeakerSession,
} from './speaker';
import { type Log } from '../../runtime/log';

/** Keepalive 0 lets the session derive it from the negotiated hold time (hold / 3, RFC 4271 section 10). */
const DEFAULT_KEEPALIVE_S = 0;
/** BGPPeer.enableGracefulRestart: FRR's and MetalLB's default restart time (RFC 4724 says at most 4095 s). */
const GRACEFUL_RESTART_TIME_S = 120;

export { bgpPeerPlans, type BgpPeerPlan } from './bgp-peer-plan';

export interface BgpPeerStatus {
  readonly peer: string;
  readonly address: string;
  readonly phase: string;
  readonly establishedSince: number | null;
  /** Prefixes the peer holds from us now. */
  readonly prefixes: number;
  /** UPDATE messages sent on this session since the process started. */
  readonly updatesSent: number;
  readonly bfd: 'up' | 'down' | 'init' | 'adminDown' | null;
  /** Why the last session ended, or why it cannot start. */
  readonly lastProblem: string | null;
}

interface PeerRuntime {
  readonly plan: BgpPeerPlan;
  readonly fingerprint: string;
  readonly session: BgpSession;
  rib: AdjRibOut;
  up: SessionUp | undefined;
  since: number | null;
  updatesSent: number;
  bfd: BfdSession | undefined;
  lastProblem: string | null;
}

export class BgpAnnouncer {
  private readonly peers = new Map<string, PeerRuntime>();
  private desired = new Map<string, Map<string, import('./speaker').RouteIntent>>();
  private readonly bfdEndpoints = new Map<string, Promise<BfdEndpoint>>();
  private closed = false;
  /** reconcile() calls run one after another, in the order update() was called. */
  private queue: Promise<void> = Promise.resolve();

  /** `world`: the clock and timers every BGP and BFD session of this announcer runs on. */
  constructor(
    private readonly logger: Log & { error(fields: object, msg?: string): void },
    private readonly world: Runtime = REAL_RUNTIME,
    /** BGP's TCP (MD5-signed with a password) and the route lookup for a session's source address. */
    private readonly net: SignedTcpNetwork = realSignedTcp,
  ) {}

  /** Queues a reconcile (the daemon calls this after every recomputation; failures are logged, never thrown). */
  update(plans: readonly BgpPeerPlan[], announcements: readonly BGPAnnouncement[]): void {
    this.queue = this.queue
      .then(() => this.reconcile(plans, announcements))
      .catch((error: Error) => this.logger.error({ event: 'bgpReconcileFailed', error: error.stack }, `BGP: ${error.message}`));
  }

  /** Converges to these peers and routes (the whole set, every time). */
  async reconcile(plans: readonly BgpPeerPlan[], announcements: readonly BGPAnnouncement[]): Promise<void> {
    if (this.closed) return;
    const wanted = new Map(plans.map((p) => [p.peer.meta.name, p]));
    for (const [name, runtime] of this.peers) {
      const plan = wanted.get(name);
      if (!plan || fingerprintOf(plan) !== runtime.fingerprint) await this.stopPeer(name, plan ? 'configChanged' : 'peerRemoved');
    }
    for (const plan of plans) if (!this.peers.has(plan.peer.meta.name)) await this.startPeer(plan);
    this.desired = desiredRoutesByPeer(
      announcements,
      plans.map((p) => p.peer),
    );
    for (const [name, runtime] of this.peers) this.sync(name, runtime);
  }

  status(): BgpPeerStatus[] {
    return [...this.peers.entries()]
      .map(([name, r]) => ({
        peer: name,
        address: r.plan.peer.peerAddress ? formatIP(r.plan.peer.peerAddress) : '',
        phase: r.session.phase,
        establishedSince: r.since,
        prefixes: r.rib.routes.size,
        updatesSent: r.updatesSent,
        bfd: r.bfd ? bfdStateName(r.bfd.state) : null,
        lastProblem: r.lastProblem,
      }))
      .sort((a, b) => (a.peer < b.peer ? -1 : 1));
  }

  async close(): Promise<void> {
    await this.queue;
    this.closed = true;
    for (const name of [...this.peers.keys()]) await this.stopPeer(name, 'shuttingDown');
    for (const endpoint of this.bfdEndpoints.values()) await (await endpoint.catch(() => undefined))?.close();
  }

  // --- per peer ----------------------------------------------------------------------------------------------------

  private async startPeer(plan: BgpPeerPlan): Promise<void> {
    const { peer } = plan;
    const name = peer.meta.name;
    if (peer.passwordSecret && peer.password === undefined) {
      this.logger.error(
        { event: 'bgpPeerUnsupported', peer: name },
        `BGPPeer ${name}: passwordSecret needs Kubernetes; on plain hosts put the key in password`,
      );
      return;
    }
    if (!peer.peerAddress) {
      this.logger.error(
        { event: 'bgpPeerUnsupported', peer: name },
        `BGPPeer ${name}: interface-based (unnumbered) peering is not supported by the built-in speaker`,
      );
      return;
    }
    const address = formatIP(peer.peerAddress);
    const local = peer.sourceAddress ? formatIP(peer.sourceAddress) : await this.net.sourceAddressFor(address);
    const routerId = peer.routerID ? formatIP(peer.routerID) : local && parseIP(local)?.family === 4 ? local : undefined;
    if (!routerId) {
      this.logger.error({ event: 'bgpPeerUnsupported', peer: name }, `BGPPeer ${name}: no IPv4 address to use as router ID: set routerID`);
      return;
    }
    const session = new BgpSession({
      peer: {
        address,
        port: peer.peerPort,
        ...(peer.peerASN !== undefined ? { asn: peer.peerASN } : { dynamicAsn: peer.dynamicASN ?? 'external' }),
        ...(peer.password !== undefined ? { password: peer.password } : {}),
      },
      local: {
        asn: peer.myASN,
        routerId,
        holdTimeS: Math.round(peer.holdTimeMs / 1000),
        keepaliveS: peer.keepaliveTimeMs > 0 ? Math.round(peer.keepaliveTimeMs / 1000) : DEFAULT_KEEPALIVE_S,
        // mlb's speaker offers both families (MetalLB's native one only IPv4): IPv6 prefixes need MP-BGP.
        families: ['ipv4', 'ipv6'],
        ...(peer.sourceAddress ? { sourceAddress: formatIP(peer.sourceAddress) } : {}),
        // The VIPs stay bound while the daemon restarts, so forwarding survives it (the F bit).
        ...(peer.enableGracefulRestart ? { gracefulRestart: { restartTimeS: GRACEFUL_RESTART_TIME_S, forwardingPreserved: true } } : {}),
      },
      logger: this.logger,
      runtime: this.world,
      net: this.net,
    });
    const runtime: PeerRuntime = {
      plan,
      fingerprint: fingerprintOf(plan),
      session,
      rib: emptyAdjRibOut(),
      up: undefined,
      since: null,
      updatesSent: 0,
      bfd: undefined,
      lastProblem: null,
    };
    this.peers.set(name, runtime);
    session.on('established', (up) => {
      runtime.up = up;
      runtime.since = this.world.now();
      runtime.lastProblem = null;
      this.logger.info(
        { event: 'sessionUp', peer: name, address, localAddress: up.localAddress, holdTime: up.holdTimeS },
        `BGP session with ${name} (${address}) established`,
      );
      const step = initialSync(this.desired.get(name) ?? new Map(), speakerSession(peer, up));
      runtime.rib = step.state;
      this.send(runtime, step.updates);
    });
    session.on('down', (down) => {
      runtime.up = undefined;
      runtime.since = null;
      runtime.rib = emptyAdjRibOut();
      runtime.lastProblem = down.message;
      this.logger.warn(
        { event: 'sessionDown', peer: name, address, reason: down.reason },
        `BGP session with ${name} (${address}) down: ${down.message}`,
      );
    });
    session.on('routeRefresh', (family) => this.send(runtime, resync(runtime.rib, family)));
    session.start();
    if (plan.bfdProfile) await this.startBfd(runtime, address, local);
  }

  private async startBfd(runtime: PeerRuntime, address: string, local: string | undefined): Promise<void> {
    const name = runtime.plan.peer.meta.name;
    if (!local) {
      this.logger.error({ event: 'bfdUnavailable', peer: name }, `BFD with ${name}: no local address towards ${address}`);
      return;
    }
    let endpoint = this.bfdEndpoints.get(local);
    if (!endpoint) {
      endpoint = BfdEndpoint.open({ localAddress: local, logger: this.logger, runtime: this.world });
      this.bfdEndpoints.set(local, endpoint);
    }
    try {
      const bfd = (await endpoint).session({ peer: address, profile: runtime.plan.bfdProfile! });
      runtime.bfd = bfd;
      bfd.on('down', (e) => {
        if (!e.failure || !runtime.up) return;
        // RFC 5882 3.2: the BGP session goes down with BFD, and reconnects when it can.
        this.logger.warn(
          { event: 'bfdDown', peer: name, diag: e.diagName },
          `BFD with ${name} down (${e.diagName}): taking the BGP session down`,
        );
        void runtime.session.stop('bfdDown').then(() => {
          if (this.peers.get(name) === runtime) runtime.session.start();
        });
      });
      await bfd.start();
    } catch (error) {
      this.logger.error(
        { event: 'bfdUnavailable', peer: name, error: (error as Error).message },
        `BFD with ${name}: ${(error as Error).message}`,
      );
    }
  }

  private sync(name: string, runtime: PeerRuntime): void {
    if (!runtime.up) return;
    const step = reconcile(runtime.rib, this.desired.get(name) ?? (new Map() as PeerRoutes), speakerSession(runtime.plan.peer, runtime.up));
    runtime.rib = step.state;
    this.send(runtime, step.updates);
    for (const a of step.announced)
      this.logger.debug({ event: 'bgpAnnounced', peer: name, prefix: a.prefix, reason: a.reason }, `announcing ${a.prefix} to ${name}`);
    for (const w of step.withdrawn)
      this.logger.info(
        { event: 'bgpWithdrawn', peer: name, prefix: w.prefix, reason: w.reason },
        `withdrawing ${w.prefix} from ${name}: ${w.reason}`,
      );
    for (const s of step.skipped)
      this.logger.warn(
        { event: 'bgpRouteSkipped', peer: name, prefix: s.prefix, reason: s.reason },
        `not sending ${s.prefix} to ${name}: ${s.reason}`,
      );
  }

  private send(runtime: PeerRuntime, updates: readonly import('./bgp-messages').BgpUpdate[]): void {
    if (updates.length === 0) return;
    if (runtime.session.send(updates)) runtime.updatesSent += updates.length;
  }

  private async stopPeer(name: string, reason: string): Promise<void> {
    const runtime = this.peers.get(name);
    if (!runtime) return;
    this.peers.delete(name);
    this.logger.info({ event: 'bgpPeerStopped', peer: name, reason }, `stopping the BGP session with ${name}: ${reason}`);
    await runtime.session.stop(reason);
    if (runtime.bfd) void runtime.bfd.stop();
  }
}

/**
 * What the Adj-RIB-Out needs of an Established session: the next hop is our end of the connection (MetalLB). For
 * the other family the next hop is this host's global address of that family on the same interface, as FRR does
 * for IPv6 routes over an IPv4 session (MP-BGP, RFC 4760), so one session carries both.
 */
function speakerSession(peer: BGPPeer, up: SessionUp): SpeakerSession {
  const local: IP | undefined = parseIP(up.localAddress);
  const v4 = local?.family === 4 ? local : sameInterfaceAddress(up.localAddress, 'IPv4');
  const v6 = local?.family === 6 ? local : sameInterfaceAddress(up.localAddress, 'IPv6');
  return {
    ibgp: up.internal,
    localAsn: peer.myASN,
    ...(v4 ? { nextHopV4: v4 } : {}),
    ...(v6 ? { nextHopV6: v6 } : {}),
    fourOctet: true,
    families: up.families,
  };
}

/** A global address of `family` on the interface that holds `address` (link-local and loopback excluded). */
function sameInterfaceAddress(address: string, family: 'IPv4' | 'IPv6'): IP | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    if (!entries?.some((e) => e.address === address)) continue;
    const other = entries.find(
      (e) => e.family === family && !e.internal && !(family === 'IPv6' && e.address.toLowerCase().startsWith('fe80')),
    );
    return other ? parseIP(other.address) : undefined;
  }
  return undefined;
}

/** A change to any of these restarts the session. */
function fingerprintOf(plan: BgpPeerPlan): string {
  const p = plan.peer;
  return JSON.stringify([
    p.myASN,
    p.peerASN,
    p.dynamicASN,
    p.peerAddress && formatIP(p.peerAddress),
    p.sourceAddress && formatIP(p.sourceAddress),
    p.peerPort,
    p.holdTimeMs,
    p.keepaliveTimeMs,
    p.routerID && formatIP(p.routerID),
    p.password,
    plan.bfdProfile && [
      plan.bfdProfile.receiveInterval,
      plan.bfdProfile.transmitInterval,
      plan.bfdProfile.detectMultiplier,
      plan.bfdProfile.passiveMode,
    ],
  ]);
}

function bfdStateName(state: string): BgpPeerStatus['bfd'] {
  return ({ Up: 'up', Down: 'down', Init: 'init', AdminDown: 'adminDown' } as const)[state as 'Up'] ?? 'down';
}
