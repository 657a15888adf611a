/**
 * `mlb lab demo --bgp`: BGP mode against a real router. Builds a lab with an FRR router configured as MetalLB
 * tutorials configure theirs (lab-bgp.ts), then narrates what FRR itself says: every node's session Established,
 * the service's /32 installed with every node as a next hop (ECMP), the client's requests reaching the nodes
 * through the router, a node's link going down and how fast FRR withdrew its path (BFD, against the hold time), the
 * node coming back. Then it removes the lab.
 *
 * Every wait has a deadline; a step that does not happen in time ends the demo with the daemons' and FRR's last
 * log lines.
 */
import {
  bfdText,
  ecmpText,
  meanwhileText,
  resetReasonText,
  returnText,
  sessionsText,
  throughRouterText,
  withdrawalText,
  type NamedHost,
} from './bgp-narration';
import type { FrrRouter } from './frr-router';
import { DemoRunner } from './demo-runner';
import type { Lab, GossipProfile } from './lab';
import { LAB_BFD_PROFILE, LAB_BGP_SUBNET_V4, bfdDetectionMs } from './lab-bgp';
import { LabService, expectedServiceIPs } from './lab-config';
import { LabError } from './lab-errors';
import { hostPort, type LabNodePlan } from './lab-plan';
import { asLabError } from './lab-router';
import { downCommandText, labSummary, seconds } from './narration';
import { sleep } from './netns';
import type { ProbeRun } from './probe-run';

/** Daemons start, read the file, connect (FRR is passive: the nodes open the sessions), exchange OPENs. */
const SESSIONS_TIMEOUT_MS = 30_000;
/** bfdd brings a session up within a few of its 300 ms intervals once both ends talk. */
const BFD_UP_TIMEOUT_MS = 10_000;
/** UPDATEs follow the session at once; zebra installs them within milliseconds. */
const ROUTE_TIMEOUT_MS = 20_000;
/** Enough requests to see the router spread them (a few hundred milliseconds at the probe's 20 ms). */
const CLIENT_REQUESTS = 40;
const CLIENT_TIMEOUT_MS = 10_000;
/** BFD should take under a second; past this the hold time (90 s) is what is being waited for, and the demo says so. */
const WITHDRAWAL_TIMEOUT_MS = 20_000;
/**
 * A node reconnects on its connect-retry backoff (1 s, doubling while its link was down), then BFD and the routes
 * follow; a minute covers several doublings.
 */
const RETURN_TIMEOUT_MS = 60_000;
/** How often FRR is asked during a timed step: each vtysh call takes a few tens of milliseconds. */
const TIMED_POLL_MS = 50;
/** How often FRR is asked while waiting for something untimed. */
const POLL_MS = 200;
/** A probe request fails after at most its own deadline (300 ms): wait that long before counting failures. */
const PROBE_SETTLE_MS = 1_000;

export interface BgpDemoOptions {
  readonly nodes: number;
  readonly name?: string;
  readonly dir?: string;
  readonly mlbCommand: readonly string[];
  readonly gossipProfile?: GossipProfile;
  /** Leave the lab up at the end. */
  readonly keep: boolean;
  readonly write: (line: string) => void;
  readonly now?: () => number;
}

export class BgpDemo {
  private readonly runner: DemoRunner;
  private readonly now: () => number;

  constructor(private readonly options: BgpDemoOptions) {
    this.runner = new DemoRunner(options);
    this.now = this.runner.now;
  }

  /** Runs every step; true when all of them did what they should. The lab is removed unless --keep. */
  run(): Promise<boolean> {
    return this.runner.run(
      () =>
        this.steps().catch((error: unknown) => {
          throw asLabError(error);
        }),
      {
        failureLogs: (plan) => [...plan.nodes.map((n) => n.daemonLog), ...(plan.router ? [`${plan.router.dir}/frr.log`] : [])],
        keptText: (p) =>
          `the lab stays up (--keep): try "sudo ip netns exec ${p.router?.netns} vtysh --vty_socket ${p.router?.dir} -c 'show bgp summary'", ` +
          `logs in ${p.dir}/node-N/ and ${p.router?.dir}/frr.log, remove it with "${downCommandText(p)}"`,
      },
    );
  }

  /** Ctrl-C: remove the lab (even half-built) and say so. */
  interrupt(): Promise<void> {
    return this.runner.interrupt();
  }

  private async steps(): Promise<void> {
    const lab = await this.up();
    const router = lab.router();
    const hosts: readonly NamedHost[] = lab.plan.nodes;
    const holdTimeMs = await this.sessions(lab, router, hosts);
    await this.bfd(lab, router, hosts);
    const vip = this.serviceIP(await lab.readConfig());
    await this.ecmp(lab, router, hosts, vip);
    const probe = await this.throughRouter(lab, vip);
    const victim = lab.plan.nodes.at(-1) as LabNodePlan;
    await this.linkDown(lab, router, hosts, probe, vip, victim, holdTimeMs);
    await this.linkBack(lab, router, hosts, vip, victim);
  }

  private up(): Promise<Lab> {
    const { nodes, mlbCommand, gossipProfile } = this.options;
    return this.runner.up(
      `building a lab: ${nodes} nodes, a client and a router (FRR), each in its own network namespace, on one bridge`,
      { nodes, mlbCommand, bgp: true, ...(gossipProfile ? { gossipProfile } : {}) },
      (plan, elapsedMs) => `${labSummary(plan, elapsedMs)}; router ${plan.router?.ipv4}`,
    );
  }

  /** Every node's session Established as FRR reports it, and the hold time bgpd negotiated. */
  private async sessions(lab: Lab, router: FrrRouter, hosts: readonly NamedHost[]): Promise<number | undefined> {
    this.say(
      `every node peers with the router (BGPPeer ${lab.plan.router?.ipv4}, BFDProfile ${LAB_BFD_PROFILE.name}); FRR waits for them (passive peer group)`,
    );
    const addresses = lab.plan.nodes.map((n) => n.ipv4);
    const established = await this.until(
      () => {
        const up = new Set(
          router
            .bgpSummary()
            .peers.filter((p) => p.family === 'ipv4' && p.established)
            .map((p) => p.address),
        );
        return addresses.every((a) => up.has(a)) ? addresses : undefined;
      },
      SESSIONS_TIMEOUT_MS,
      "every node's session Established in FRR",
      POLL_MS,
      () => {
        const states = router.bgpSummary().peers.map((p) => `${p.address} ${p.state}`);
        return `FRR says: ${states.join(', ') || 'no neighbor'}`;
      },
    );
    const holdTimeMs = router.neighbor(addresses[0] as string)?.holdTimeMs;
    this.say(sessionsText(hosts, established, holdTimeMs));
    return holdTimeMs;
  }

  /** bfdd's sessions with every node; fewer is said, not fatal (the withdrawal step then shows what it costs). */
  private async bfd(lab: Lab, router: FrrRouter, hosts: readonly NamedHost[]): Promise<void> {
    const addresses = lab.plan.nodes.map((n) => n.ipv4);
    const upNow = () =>
      router
        .bfdPeers()
        .filter((p) => p.status === 'up' && addresses.includes(p.peer))
        .map((p) => p.peer)
        .sort();
    const up = await this.until(
      () => {
        const now = upNow();
        return now.length === addresses.length ? now : undefined;
      },
      BFD_UP_TIMEOUT_MS,
      'BFD up with every node',
      POLL_MS,
    ).catch(() => upNow());
    this.say(bfdText(hosts, up, addresses.length, LAB_BFD_PROFILE));
  }

  private serviceIP(configText: string): string {
    const ip = expectedServiceIPs(configText).get(LabService.bgp)?.[0];
    if (!ip) throw new LabError(`${LabService.bgp} gets no IP from the lab configuration`, 'commandFailed');
    return ip;
  }

  /** The /32 in zebra (what the kernel forwards by) with every node as a next hop. */
  private async ecmp(lab: Lab, router: FrrRouter, hosts: readonly NamedHost[], vip: string): Promise<void> {
    const prefix = `${vip}/32`;
    const all = lab.plan.nodes.map((n) => n.ipv4).sort();
    const hops = await this.until(
      () => {
        const h = router.installedNextHops(prefix);
        return all.every((a) => h.includes(a)) ? h : undefined;
      },
      ROUTE_TIMEOUT_MS,
      `${prefix} installed with every node as a next hop`,
      POLL_MS,
      () => `zebra has ${router.installedNextHops(prefix).join(', ') || 'no route'}`,
    );
    this.say(ecmpText(hosts, LabService.bgp, prefix, hops));
  }

  /** The client asks the VIP; its route sends the requests to the router, which spreads them over the nodes. */
  private async throughRouter(lab: Lab, vip: string): Promise<ProbeRun> {
    const router = lab.plan.router as NamedHost;
    const probe = lab.startProbe(hostPort(vip));
    const from = probe.samples.length;
    await probe.waitUntil(
      () => (probe.samples.length - from >= CLIENT_REQUESTS ? true : undefined),
      CLIENT_TIMEOUT_MS,
      `${CLIENT_REQUESTS} requests to ${vip}`,
    );
    const samples = probe.samples.slice(from, from + CLIENT_REQUESTS);
    this.say(throughRouterText({ subnet: LAB_BGP_SUBNET_V4, router, url: `http://${vip}/`, samples }));
    if (!samples.some((s) => s.ok)) throw new LabError(`no request to ${vip} was answered through the router`, 'timeout');
    return probe;
  }

  /** A pulled cable: FRR's BFD notices within its detection time and bgpd drops the session and its path. */
  private async linkDown(
    lab: Lab,
    router: FrrRouter,
    hosts: readonly NamedHost[],
    probe: ProbeRun,
    vip: string,
    victim: LabNodePlan,
    holdTimeMs: number | undefined,
  ): Promise<void> {
    const prefix = `${vip}/32`;
    this.say(`taking ${victim.name}'s link down (a pulled cable: its daemon keeps running, and nothing it sends arrives)`);
    const act = this.now();
    await lab.linkDown(victim.name);
    const remaining = await this.until(
      () => {
        // zebra replaces an ECMP route in steps: a read between them shows no next hop at all for a moment.
        const h = router.installedNextHops(prefix);
        return h.includes(victim.ipv4) || h.length === 0 ? undefined : h;
      },
      WITHDRAWAL_TIMEOUT_MS,
      `FRR withdrawing ${victim.name}'s path (BFD did not see it go: the hold time is ${holdTimeMs !== undefined ? seconds(holdTimeMs) : '?'} s)`,
      TIMED_POLL_MS,
    );
    const withdrawnAt = this.now();
    const neighbor = router.neighbor(victim.ipv4);
    const reason = resetReasonText(neighbor?.lastResetReason, neighbor?.lastNotification);
    this.say(
      withdrawalText(hosts, {
        node: victim.name,
        withdrawnAfterMs: withdrawnAt - act,
        ...(reason ? { reason } : {}),
        detectionMs: bfdDetectionMs(),
        ...(holdTimeMs !== undefined ? { holdTimeMs } : {}),
        remaining,
      }),
    );
    await sleep(PROBE_SETTLE_MS);
    const window = probe.samples.filter((s) => s.sent >= act && s.sent <= withdrawnAt);
    this.say(meanwhileText(window.filter((s) => !s.ok).length, window.filter((s) => s.ok).length));
    await lab.stopProbe(probe);
  }

  private async linkBack(lab: Lab, router: FrrRouter, hosts: readonly NamedHost[], vip: string, victim: LabNodePlan): Promise<void> {
    const prefix = `${vip}/32`;
    this.say(`bringing ${victim.name}'s link back up; its daemon reconnects on its own (FRR only listens)`);
    const back = this.now();
    await lab.linkUp(victim.name);
    await this.until(
      () => router.neighbor(victim.ipv4)?.established || undefined,
      RETURN_TIMEOUT_MS,
      `${victim.name}'s session Established again`,
      TIMED_POLL_MS,
      () => `FRR says ${victim.ipv4} is ${router.neighbor(victim.ipv4)?.state ?? 'unknown'}`,
    );
    const establishedAt = this.now();
    const hops = await this.until(
      () => {
        const h = router.installedNextHops(prefix);
        return h.includes(victim.ipv4) ? h : undefined;
      },
      ROUTE_TIMEOUT_MS,
      `${victim.name}'s path back in zebra`,
      TIMED_POLL_MS,
    );
    this.say(returnText(hosts, victim.name, establishedAt - back, this.now() - establishedAt, hops));
  }

  /**
   * Polls `check` until it returns a value; FRR query errors count as "not yet". After timeoutMs a LabError naming
   * `what`, with `state()` (what FRR says now) when given.
   */
  private async until<T>(check: () => T | undefined, timeoutMs: number, what: string, pollMs: number, state?: () => string): Promise<T> {
    const deadline = this.now() + timeoutMs;
    let lastError: Error | undefined;
    for (;;) {
      try {
        const value = check();
        if (value !== undefined) return value;
      } catch (error) {
        lastError = error as Error;
      }
      if (this.now() >= deadline) {
        let detail = lastError ? `; last error: ${lastError.message}` : '';
        try {
          if (state) detail += `; ${state()}`;
        } catch {
          // FRR not answering at all: the last error says why.
        }
        throw new LabError(`${what}: not within ${seconds(timeoutMs)} s${detail}`, 'timeout');
      }
      await sleep(pollMs);
    }
  }

  private say(text: string): void {
    this.runner.say(text);
  }
}
