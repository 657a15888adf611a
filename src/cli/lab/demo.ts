/**
 * `mlb lab demo`: the README's first command. Builds a lab, points a client at demo/web's VIP and narrates what
 * the client sees while the demo hurts the owner: a kill (failover time as the client saw it), the node's return,
 * a health check failing, a configuration reload, a drain. Then it removes the lab (unless --keep).
 *
 * Every wait has a deadline; a step that does not happen in time ends the demo with the daemons' last log lines,
 * so a failing demo says where to look instead of hanging.
 */
import { DemoRunner } from './demo-runner';
import type { Lab, GossipProfile } from './lab';
import { LabService, expectedServiceIPs, extraServiceText } from './lab-config';
import { LabError } from './lab-errors';
import { LAB_EXTRA_IP, hostPort } from './lab-plan';
import { downCommandText, failoverText, neighbourText, seconds } from './narration';
import type { ProbeRun } from './probe-run';
import { measureFailover, steadyOwner, type Failover } from './probe-samples';
import { sleep } from './netns';

/** From the daemons' start to the first answer: gossip join, allocation, election, binding, ARP. */
const VIP_ANSWER_TIMEOUT_MS = 30_000;
/** The lan profile declares a dead node after 5-8 s (memberlist's LAN timings: suspicion after a failed probe, then the suspicion timeout); fast in about 1 s. */
const FAILOVER_TIMEOUT_MS = 20_000;
/** Health: fall 2 x 500 ms, then gossip and a gratuitous ARP. */
const HEALTH_MOVE_TIMEOUT_MS = 15_000;
/** A reload is noticed within the file source's debounce (fs.watch) or its 2 s stat poll, then announced. */
const RELOAD_ANSWER_TIMEOUT_MS = 15_000;
/**
 * A returning node warms up before the others elect it again (30 s after a first restart, doubling with each
 * restart within the hour). A warm-up this short is waited for, to show the node taking its IP back; a longer one is
 * only told, and the demo goes on without it.
 */
const WARM_UP_WAIT_MS = 15_000;
/** How long the demo waits for the daemons' owner and the client's to agree after a change. */
const SETTLE_TIMEOUT_MS = 15_000;
/** Answers from one node for this long make it "the owner" (the client saw no mix). */
const STEADY_MS = 1_000;
/** How often the demo asks the daemons while it waits. */
const POLL_MS = 100;

export type KillMode = 'node' | 'daemon';

export interface DemoOptions {
  readonly nodes: number;
  readonly name?: string;
  readonly dir?: string;
  readonly mlbCommand: readonly string[];
  readonly gossipProfile?: GossipProfile;
  /** node: link down + daemon SIGKILL (a machine losing power); daemon: only the daemon gets SIGKILL. */
  readonly kill: KillMode;
  /** Leave the lab up at the end. */
  readonly keep: boolean;
  readonly write: (line: string) => void;
  readonly now?: () => number;
}

export class Demo {
  private readonly runner: DemoRunner;
  private readonly now: () => number;
  /** demo/web's IP once known. */
  private vip: string | undefined;

  constructor(private readonly options: DemoOptions) {
    this.runner = new DemoRunner(options);
    this.now = this.runner.now;
  }

  /** Runs every step; true when all of them did what they should. The lab is removed unless --keep. */
  run(): Promise<boolean> {
    return this.runner.run(
      async () => {
        const lab = await this.up();
        const vip = this.webIP(await lab.readConfig());
        this.vip = vip;
        const probe = lab.startProbe(hostPort(vip));
        let owner = await this.firstAnswer(lab, probe, vip);
        await this.ipv6Answer(lab);
        owner = await this.killOwner(lab, probe, vip, owner);
        await this.healthFailure(lab, probe, owner);
        await this.reload(lab);
        await this.drain(lab, probe);
      },
      {
        failureLogs: (plan) => plan.nodes.map((n) => n.daemonLog),
        keptText: (p) =>
          `the lab stays up (--keep): try "sudo ip netns exec ${p.client.netns} curl http://${this.vip ?? p.client.ipv4}/", ` +
          `logs in ${p.dir}/node-N/, remove it with "${downCommandText(p)}"`,
      },
    );
  }

  /** Ctrl-C: remove the lab (even half-built) and say so. */
  interrupt(): Promise<void> {
    return this.runner.interrupt();
  }

  private up(): Promise<Lab> {
    const { nodes, mlbCommand, gossipProfile } = this.options;
    return this.runner.up(`building a lab: ${nodes} nodes and a client, each in its own network namespace, on one bridge`, {
      nodes,
      mlbCommand,
      ...(gossipProfile ? { gossipProfile } : {}),
    });
  }

  /**
   * demo/web's IP: what the allocator gives it over the lab's file. The daemons run the same deterministic allocator
   * over the same file, so a fresh lab agrees; if they do not, the first step says so.
   */
  private webIP(configText: string): string {
    const ip = expectedServiceIPs(configText).get(LabService.web)?.[0];
    if (!ip) throw new LabError(`${LabService.web} gets no IP from the lab configuration`, 'commandFailed');
    return ip;
  }

  private async firstAnswer(lab: Lab, probe: ProbeRun, vip: string): Promise<string> {
    this.say(`${LabService.web} names no IP: the allocator gives it ${vip}; the client asks http://${vip}/ every 20 ms`);
    const t = this.now();
    const first = await probe
      .waitFor((s) => s.ok, VIP_ANSWER_TIMEOUT_MS, `${vip} answering the client`)
      .catch(async (error: Error) => {
        const daemons = await lab.ownership(LabService.web);
        const view = daemons
          ? `the daemons give ${LabService.web} ${daemons.ips.join(', ') || 'no IP'}, owner ${daemons.owner ?? 'none'}`
          : 'no daemon answers on its control socket';
        const last = probe.samples.at(-1);
        throw new LabError(`${error.message} (${view}; the client's last request: ${last?.error ?? 'none'})`, 'timeout');
      });
    const owner = await this.steady(probe, VIP_ANSWER_TIMEOUT_MS, `one node answering for ${vip}`);
    const daemons = await lab.ownership(LabService.web, owner);
    const agree = daemons
      ? daemons.owner === owner
        ? `; ${owner}'s daemon agrees`
        : `; ${owner}'s daemon says ${daemons.owner ?? 'nobody'} owns it`
      : '';
    this.say(`${vip} answers from ${owner} (first answer ${seconds(first.t - t)} s after the lab was up)${agree}`);
    this.say(neighbourText(await lab.neighbour(vip)));
    return owner;
  }

  /** demo/web-v6 answering over IPv6: NDP instead of ARP, the same election. */
  private async ipv6Answer(lab: Lab): Promise<void> {
    const vip = expectedServiceIPs(await lab.readConfig()).get(LabService.webV6)?.[0];
    if (!vip) return;
    const probe = lab.startProbe(hostPort(vip), { intervalMs: 50 });
    try {
      const answer = await probe.waitFor((s) => s.ok, VIP_ANSWER_TIMEOUT_MS, `${vip} (${LabService.webV6}) answering the client`);
      this.say(`${vip} (${LabService.webV6}) answers from ${answer.node}; ${neighbourText(await lab.neighbour(vip), 6)}`);
    } finally {
      await lab.stopProbe(probe);
    }
  }

  private async killOwner(lab: Lab, probe: ProbeRun, vip: string, owner: string): Promise<string> {
    const act = this.now();
    if (this.options.kill === 'node') {
      this.say(`killing ${owner} as a machine losing power: its link goes down and its daemon gets SIGKILL`);
      await lab.linkDown(owner);
    } else {
      this.say(`killing ${owner}'s daemon with SIGKILL (the machine stays up)`);
    }
    await lab.killDaemon(owner, 'SIGKILL');
    const failover = await this.moved(probe, owner, act, FAILOVER_TIMEOUT_MS, `${LabService.web} moving away from ${owner}`);
    this.say(failoverText(failover, act));
    this.say(neighbourText(await lab.neighbour(vip)));
    const next = await this.steady(probe, FAILOVER_TIMEOUT_MS, `one node answering for ${vip} after the kill`);

    this.say(`bringing ${owner} back: ${this.options.kill === 'node' ? 'link up, ' : ''}daemon restarted`);
    const back = this.now();
    if (this.options.kill === 'node') await lab.linkUp(owner);
    await lab.startDaemon(owner);
    this.say(`${owner}'s daemon is running again (${seconds(this.now() - back)} s)`);
    return this.afterReturn(lab, probe, owner, next, back);
  }

  /**
   * A returning node takes its IP back when the election ranks it first, but only after its warm-up (flap damping).
   * A short warm-up is waited for; a long one is told, and the IP stays where it is for the rest of the demo.
   */
  private async afterReturn(lab: Lab, probe: ProbeRun, returning: string, current: string, back: number): Promise<string> {
    const status = await lab.nodeStatus(returning);
    if (status?.warmingUp) {
      const left = status.warmUpUntil !== undefined ? status.warmUpUntil - this.now() : undefined;
      if (left === undefined || left > WARM_UP_WAIT_MS) {
        this.say(
          `${returning} is warming up${left !== undefined ? ` for ${seconds(left)} s` : ''} (flap damping: a node back from a crash waits ` +
            'before it is elected again, longer with each crash within the hour, so a flapping machine cannot pull IPs back and forth)',
        );
        const owner = await this.settle(lab, probe, SETTLE_TIMEOUT_MS, 'the owner after the return');
        this.say(`${LabService.web} stays on ${owner} meanwhile`);
        return owner;
      }
      this.say(`${returning} is warming up for ${seconds(left)} s: the others do not elect it until then`);
      await this.poll(
        async () => ((await lab.nodeStatus(returning))?.warmingUp === false ? true : undefined),
        left + SETTLE_TIMEOUT_MS,
        `${returning}'s warm-up ending`,
      );
    }
    const owner = await this.settle(lab, probe, SETTLE_TIMEOUT_MS, 'the owner after the return');
    const takeBack = measureFailover(probe.samples, current, back);
    if (owner === returning && takeBack)
      this.say(`${returning} takes ${LabService.web} back (the election ranks it first for this IP): ${failoverText(takeBack, back)}`);
    else this.say(`${LabService.web} stays on ${owner}`);
    return owner;
  }

  private async healthFailure(lab: Lab, probe: ProbeRun, owner: string): Promise<void> {
    const act = this.now();
    this.say(`making ${owner}'s health check fail: its /healthz now answers 503 (the service itself still answers)`);
    await lab.setHealthy(owner, false);
    const failover = await this.moved(probe, owner, act, HEALTH_MOVE_TIMEOUT_MS, `${LabService.web} leaving unhealthy ${owner}`);
    this.say(failoverText(failover, act));
    const next = await this.settle(lab, probe, SETTLE_TIMEOUT_MS, 'the owner after the health failure');

    const restored = this.now();
    await lab.setHealthy(owner, true);
    this.say(`${owner}'s /healthz answers 200 again`);
    // The daemons count rise passes before it is a candidate again; then the election may give it the IP back.
    const passing = await this.poll(
      async () => {
        // The current owner's view: it is the one that hands the IP back once it hears the news.
        const view = await lab.ownership(LabService.web, next);
        return view === undefined || view.passing.includes(owner) ? true : undefined;
      },
      HEALTH_MOVE_TIMEOUT_MS,
      `${owner} passing its health check again`,
    );
    if (passing) this.say(`${owner} passes its check again after ${seconds(this.now() - restored)} s`);
    await sleep(POLL_MS * 5); // Room for the election to follow the news before the daemons are asked who owns it.
    const owner2 = await this.settle(lab, probe, SETTLE_TIMEOUT_MS, 'the owner after the health recovery');
    const back = measureFailover(probe.samples, next, restored);
    if (owner2 === owner && back) this.say(`${owner} takes ${LabService.web} back: ${failoverText(back, restored)}`);
    else this.say(`${LabService.web} stays on ${owner2}`);
  }

  private async reload(lab: Lab): Promise<void> {
    const target = hostPort(LAB_EXTRA_IP);
    this.say(`adding ${LabService.extra} with IP ${LAB_EXTRA_IP} to ${lab.plan.configFile}; no daemon is restarted`);
    const act = this.now();
    await lab.writeConfig(`${await lab.readConfig()}${extraServiceText()}`);
    const probe = lab.startProbe(target, { intervalMs: 50 });
    try {
      const answer = await probe.waitFor((s) => s.ok, RELOAD_ANSWER_TIMEOUT_MS, `${LAB_EXTRA_IP} answering after the reload`);
      this.say(`${LAB_EXTRA_IP} answers from ${answer.node} ${seconds(answer.t - act)} s after the edit`);
    } finally {
      await lab.stopProbe(probe);
    }
  }

  private async drain(lab: Lab, probe: ProbeRun): Promise<void> {
    const owner = await this.settle(lab, probe, SETTLE_TIMEOUT_MS, 'the owner before the drain');
    const socket = lab.controlSocket(owner);
    this.say(`draining ${owner}: mlb drain --socket ${socket}`);
    const act = this.now();
    const result = await lab.mlb(['drain', '--socket', socket]);
    if (result.status !== 0)
      throw new LabError(`mlb drain failed (exit ${result.status}): ${firstLine(result.stderr || result.stdout)}`, 'commandFailed');
    const said = firstLine(result.stdout);
    if (said) this.say(`  mlb drain: ${said}`);
    const failover = await this.moved(probe, owner, act, HEALTH_MOVE_TIMEOUT_MS, `${LabService.web} leaving drained ${owner}`);
    this.say(failoverText(failover, act));
    const undrain = await lab.mlb(['undrain', '--socket', socket]);
    this.say(undrain.status === 0 ? `undrained ${owner}` : `mlb undrain failed: ${firstLine(undrain.stderr || undrain.stdout)}`);
  }

  /** Waits for a move away from `from` after `act`, then for the client to see a steady new owner. */
  private moved(probe: ProbeRun, from: string, act: number, timeoutMs: number, what: string): Promise<Failover> {
    return probe.waitUntil(() => measureFailover(probe.samples, from, act), timeoutMs, what);
  }

  private steady(probe: ProbeRun, timeoutMs: number, what: string): Promise<string> {
    return probe.waitUntil(() => steadyOwner(probe.samples, this.now(), STEADY_MS), timeoutMs, what);
  }

  /**
   * The owner once the client and the owner agree: the client has had answers from one node for STEADY_MS, and that
   * node's daemon (when it answers on its control socket) says it is the owner, so nothing is about to move behind
   * the next step. The owner's word, not any daemon's: the owner is the one that would give the IP away.
   */
  private async settle(lab: Lab, probe: ProbeRun, timeoutMs: number, what: string): Promise<string> {
    let seen = '';
    return this.poll(
      async () => {
        const client = steadyOwner(probe.samples, this.now(), STEADY_MS);
        const view = client === undefined ? undefined : await lab.ownership(LabService.web, client);
        seen = `the client sees ${client ?? 'no steady answer'}${view ? `, whose daemon says the owner is ${view.owner ?? 'nobody'}` : ''}`;
        return client !== undefined && (view === undefined || view.owner === client) ? client : undefined;
      },
      timeoutMs,
      () => `${what} (${seen})`,
    );
  }

  /** Re-evaluates `check` every POLL_MS until it gives a value; a LabError naming `what` after timeoutMs. */
  private async poll<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string | (() => string)): Promise<T> {
    const deadline = this.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (this.now() >= deadline) {
        throw new LabError(`${typeof what === 'string' ? what : what()}: not within ${seconds(timeoutMs)} s`, 'timeout');
      }
      await sleep(POLL_MS);
    }
  }

  private say(text: string): void {
    this.runner.say(text);
  }
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
