/**
 * bench/failover's lab: the e2e DaemonLab (3 nodes running `mlb daemon` and an HTTP server answering its own
 * name on 0.0.0.0:8080, one client), keepalived on the same 3 nodes holding its own VIP when asked, and the client
 * probe (client-probe.ts) watching the VIPs. While both systems run, every failure hits both: the node that owns
 * mlb's VIP is also keepalived's master (its priorities follow mlb's hash order), so one link taken down, one
 * kill -9 or one SIGTERM is measured for both from the same instant, under the same load.
 *
 * Between trials the lab returns to the same state:
 * - the failed node's mlb daemon starts again with a fresh --state-dir. Restarted with its history it would warm up
 *   for 30 s and more and not take its IP back (flap damping, which this bench does not measure); fresh, mlb's hash
 *   order makes it the owner again within about a second.
 * - keepalived's acting master (the second node) is stopped and started again once the failed node is a backup
 *   again: its priority-0 advertisement hands the VIP back within the owner's skew time, where preemption would
 *   take 3 advert intervals. The next failure waits until the restarted instance has heard the master as a backup
 *   (one advert interval): freshly started, its master-down timer would count from its own start, not from the
 *   master's last advertisement, and the third node could win the race (seen here before that wait existed).
 *
 * With `services` > 0 the daemons' file also holds that many pinned services (bench/scale's, from 10.214.16.1 on,
 * each host given an address in their subnet), which the nodes elect, bind and announce beside the
 * measured VIP. Steady then also means that every node binds and announces exactly its share of them
 * (bench/scale/vip-shares.ts): the shares the nodes agreed on at the round's start, to which every restore with
 * fresh state returns. The daemons' snapshots are read one page at a time (bench/scale/shares-reader.ts).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectControl } from '../../src/cli/control-client';
import type { ControlSnapshot } from '../../src/daemon/control/control-snapshot';
import { API_IP, API_SERVICE, API_SERVICE_YAML, DaemonLab, HTTP_PORT, LAB_POOL_YAML } from '../../test/e2e/daemon-lab';
import { JsonChild } from '../arp/json-child';
import { scaleConfig, vipsOf, vipSubnetAddress } from '../scale/scale-config';
import { holdingOf, readOwners, readSnapshotPage } from '../scale/shares-reader';
import { agreedShares, describeShares, shareMismatch, type Shares } from '../scale/vip-shares';
import type { SeenEvent } from './client-probe';
import { KeepalivedNode, type VrrpTiming } from './keepalived';

/** keepalived's VIP: in the lab subnet, outside mlb's pool (10.213.0.200-220). */
export const KEEPALIVED_VIP = '10.213.0.230';
/** The probe's ARP sender address: in the lab subnet, held by nobody. */
const PROBE_SENDER_IP = '10.213.0.249';
const NODES = 3;
/** keepalived priorities by mlb's hash order: the owner is master, the next owner its first backup. */
const PRIORITIES = [150, 100, 50] as const;
const PROBE_POLL_MS = 50;
const STEADY_POLL_MS = 100;
/** The window in which the probe must see only the owner answering, both for ARP and for TCP, before a trial. */
const STEADY_WINDOW_MS = 300;
/** A restarted node joins, is elected and sends its gratuitous ARPs within a few seconds; this is slack. */
const STEADY_TIMEOUT_MS = 30_000;
/**
 * Added to STEADY_TIMEOUT_MS per extra service: one idle node binds 10,000 in about 9 s from its start
 * (docs/scale.md); three daemons on two loaded cores, each restart binding a third and the others releasing it,
 * take several times that. 10 ms each gives 130 s at 10,000: slack, not a target.
 */
const STEADY_MS_PER_SERVICE = 10;
/**
 * How often the steady check looks with extra services: each look reads every node's `local` lists (3,000 and
 * more addresses each at 10,000), which the daemons build while they bind; 100 ms would make the look a load.
 */
const SHARES_POLL_MS = 500;
/** Services per page when the measured one has to be looked for in a daemon's snapshot (its page limit). */
const SCAN_PAGE = 1_000;
/**
 * Log lines kept per daemon once counted: restarts at 10,000 services log one line per announced service, some
 * 10,000 a trial, which the bench would otherwise keep for the whole run; describeState shows the last few.
 * BENCH_FAILOVER_LOGS=1 keeps them all, for the logs written at the end (failover.bench.ts).
 */
const KEEP_LINES = process.env.BENCH_FAILOVER_LOGS === '1' ? Number.POSITIVE_INFINITY : 50;
/** A started keepalived logs its BACKUP state within a second; one whose link returned, at once. */
const KEEPALIVED_BACKUP_TIMEOUT_MS = 10_000;
/** After the new MAC first answers, how long the old one may keep answering before it counts as "still answers". */
export const OLD_ANSWER_GRACE_MS = 300;
const OLD_ANSWER_WINDOW_MS = 150;

export type Scenario = 'death' | 'crash' | 'graceful';
export type SystemId = 'mlb' | 'keepalived';

export const SCENARIO_WORDS: Readonly<Record<Scenario, string>> = {
  death: 'node death (link down)',
  crash: 'daemon crash (kill -9)',
  graceful: 'graceful stop (SIGTERM)',
};

/** What the client saw for one system in one trial; times are ms from the failure, Infinity when never. */
export interface Observation {
  readonly arpMs: number;
  readonly tcpMs: number;
  /** Who answered instead: the new MAC's node (ARP) and the node whose server took the connection (TCP). */
  readonly arpBy?: string;
  readonly tcpBy?: string;
  /** The old owner's MAC still answered ARP for the VIP OLD_ANSWER_GRACE_MS after the new one first did. */
  readonly oldStillAnswers: boolean;
}

/**
 * A minimal file: one pinned service, so the bench measures one VIP and nothing else moves; with `services`, as
 * many more pinned services in bench/scale's pool beside it.
 */
function benchConfig(services: number): string {
  const measured = `${LAB_POOL_YAML}---
${API_SERVICE_YAML}`;
  return services > 0 ? `${measured}---\n${scaleConfig(services)}` : measured;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** n of a lab host's address 10.213.0.n: its number on the segment. */
const hostNumber = (ipv4: string) => Number(ipv4.split('.').at(-1));

export class FailoverLab {
  readonly daemons = new DaemonLab(NODES);
  /** keepalived per node while it runs (startKeepalived .. stopKeepalived); empty otherwise. */
  readonly keepalived = new Map<string, KeepalivedNode>();
  /** Node names in mlb's hash order for the VIP: [owner, next, last]. */
  ranking: string[] = [];
  /** slowDecision warnings the daemons logged (the event loop held longer than the probe timeout), since taken. */
  private slow = { count: 0, longestMs: 0 };
  private probe: JsonChild | undefined;
  private mlbArgs: string[] = [];
  private destroyed = false;
  /** The extra services' VIPs, and each node's share of them once the nodes agreed (startMlb). */
  private readonly extraVips: readonly string[];
  private shares: Shares | undefined;
  /** Where the measured service sits in the daemons' snapshot pages (looked for when it is not there). */
  private apiOffset = 0;
  private readonly linesCounted = new WeakMap<object, number>();
  private readonly steadyTimeoutMs: number;
  private readonly pollMs: number;

  /** `services`: pinned services in the file besides the measured one (0: the measured one alone). */
  constructor(readonly services = 0) {
    writeFileSync(this.daemons.configFile, benchConfig(services));
    this.extraVips = vipsOf(services);
    this.steadyTimeoutMs = STEADY_TIMEOUT_MS + services * STEADY_MS_PER_SERVICE;
    this.pollMs = services > 0 ? SHARES_POLL_MS : STEADY_POLL_MS;
    // Every host in the VIPs' subnet, as bench/scale's node: the daemons answer for them on eth0 by its subnet.
    if (services > 0)
      for (const host of this.daemons.lab.hosts)
        this.daemons.lab.execIn(host, 'ip', ['addr', 'add', vipSubnetAddress(hostNumber(host.ipv4)), 'dev', 'eth0']);
  }

  get owner(): string {
    return this.ranking[0]!;
  }

  /** The VIP of each system that runs. */
  get vips(): Partial<Record<SystemId, string>> {
    return this.keepalived.size > 0 ? { mlb: API_IP, keepalived: KEEPALIVED_VIP } : { mlb: API_IP };
  }

  async startProbe(): Promise<void> {
    const script = fileURLToPath(new URL('./client-probe.ts', import.meta.url));
    const options = { targets: [API_IP, KEEPALIVED_VIP], senderIP: PROBE_SENDER_IP, port: HTTP_PORT };
    this.probe = await JsonChild.start(this.daemons.lab, this.daemons.client, 'client probe', script, { args: [JSON.stringify(options)] });
  }

  /**
   * Starts mlb on every node with fresh state, learns the hash order, and waits until the owner announces; with
   * extra services, also until every node names the same owner for each of them (their shares).
   */
  async startMlb(args: string[]): Promise<void> {
    this.mlbArgs = args;
    this.shares = undefined;
    for (const node of this.daemons.nodes) this.startDaemon(node.name);
    await this.until(
      'every node sees 3 members alive and one owner',
      async () => {
        this.requireDaemonsRunning();
        const state = await this.mlbState();
        if (typeof state === 'string') return state;
        this.ranking = state;
        return undefined;
      },
      this.steadyTimeoutMs,
      this.pollMs,
    );
    if (this.services === 0) return;
    await this.until(
      `every node names the same owner for each of the ${this.services} extra services`,
      async () => {
        this.requireDaemonsRunning();
        const views = await Promise.all(
          this.daemons.nodes.map((n) => readOwners(n.name, this.daemons.socket(n.name)).catch(() => undefined)),
        );
        if (views.some((v) => !v)) return 'a daemon did not answer /v1/status';
        const shares = agreedShares(
          this.extraVips,
          views.map((v) => v!),
        );
        if (typeof shares === 'string') return shares;
        this.shares = shares;
        return undefined;
      },
      this.steadyTimeoutMs,
      this.pollMs,
    );
  }

  /** Each node's share of the extra services: "node-1 340, node-2 331, node-3 329" (empty without them). */
  describeShares(): string {
    return this.shares ? describeShares(this.shares, this.ranking) : '';
  }

  async stopMlb(): Promise<void> {
    for (const d of this.daemons.daemons.values()) d.child.kill('SIGTERM');
    await Promise.all([...this.daemons.daemons.values()].map((d) => d.exited()));
    this.forgetLines();
  }

  /** The slowDecision warnings logged since the last call: how many, and the longest decision (ms). */
  takeSlowDecisions(): { count: number; longestMs: number } {
    this.forgetLines();
    const taken = this.slow;
    this.slow = { count: 0, longestMs: 0 };
    return taken;
  }

  /** keepalived on every node with this timing, priorities by mlb's order (so its master is mlb's owner). */
  startKeepalived(timing: VrrpTiming): void {
    this.ranking.forEach((name, i) => {
      const node = new KeepalivedNode(
        this.daemons.lab,
        this.daemons.host(name),
        { routerId: name, priority: PRIORITIES[i]!, vip: KEEPALIVED_VIP, timing },
        this.daemons.dir,
      );
      this.keepalived.set(name, node);
      node.start();
    });
  }

  async stopKeepalived(): Promise<void> {
    for (const node of this.keepalived.values()) node.terminate();
    await Promise.all([...this.keepalived.values()].map((node) => node.exited()));
    this.keepalived.clear();
  }

  /** Waits until every running system is steady on the owner, as the nodes and as the client see it. */
  async waitSteady(): Promise<void> {
    const what = this.shares ? `, and every node holds its share of the ${this.services} extra services,` : '';
    await this.until(
      `${this.owner} owns the VIPs${what} and alone answers them`,
      () => this.notSteadyBecause(),
      this.steadyTimeoutMs,
      this.pollMs,
    );
  }

  /** Fails the owner the systems share; returns the instant (epoch ms) taken just before. */
  inflict(scenario: Scenario): number {
    const daemon = this.daemons.daemon(this.owner);
    const keepalived = this.keepalived.get(this.owner);
    const at = Date.now();
    switch (scenario) {
      case 'death':
        this.daemons.lab.unplug(this.daemons.host(this.owner));
        break;
      case 'crash':
        daemon.child.kill('SIGKILL');
        keepalived?.crash();
        break;
      case 'graceful':
        daemon.child.kill('SIGTERM');
        keepalived?.terminate();
        break;
    }
    return at;
  }

  /**
   * Polls the probe until, for each VIP, another MAC than the owner's answered ARP and another node's server took
   * a connection (or timeoutMs passed); then looks whether the owner's MAC kept answering.
   */
  async observe(from: number, timeoutMs: number): Promise<Partial<Record<SystemId, Observation>>> {
    const oldMac = this.daemons.macOf(this.owner);
    const firstOther = (seen: SeenEvent[], kind: SeenEvent['kind'], ip: string) =>
      seen.find((e) => e.kind === kind && e.ip === ip && e.who !== (kind === 'arp' ? oldMac : this.owner));
    const systems = Object.entries(this.vips) as [SystemId, string][];
    const deadline = from + timeoutMs;
    let seen = await this.seen(from);
    while (Date.now() < deadline && !systems.every(([, ip]) => firstOther(seen, 'arp', ip) && firstOther(seen, 'tcp', ip))) {
      await sleep(PROBE_POLL_MS);
      seen = await this.seen(from);
    }
    const result: Partial<Record<SystemId, Observation>> = {};
    for (const [system, ip] of systems) {
      const arp = firstOther(seen, 'arp', ip);
      const tcp = firstOther(seen, 'tcp', ip);
      let oldStillAnswers = false;
      if (arp) {
        const windowStart = arp.t + OLD_ANSWER_GRACE_MS;
        const wait = windowStart + OLD_ANSWER_WINDOW_MS - Date.now();
        if (wait > 0) await sleep(wait);
        oldStillAnswers = (await this.seen(windowStart)).some((e) => e.kind === 'arp' && e.ip === ip && e.who === oldMac);
      }
      result[system] = {
        arpMs: arp ? arp.t - from : Infinity,
        tcpMs: tcp ? tcp.t - from : Infinity,
        ...(arp ? { arpBy: this.daemons.nameOfMac(arp.who) ?? arp.who } : {}),
        ...(tcp ? { tcpBy: tcp.who } : {}),
        oldStillAnswers,
      };
    }
    return result;
  }

  /** Brings the failed owner back (fresh mlb state; keepalived's VIP handed back) and waits until all is steady. */
  async restore(scenario: Scenario): Promise<void> {
    const owner = this.owner;
    const daemon = this.daemons.daemon(owner);
    const keepalived = this.keepalived.get(owner);
    if (scenario === 'death') {
      // Its daemon ran on alone, cut off: end it before the link returns, so it never answers beside the new owner.
      daemon.child.kill('SIGKILL');
      await daemon.exited();
      keepalived?.markLog();
      this.daemons.lab.plug(this.daemons.host(owner));
    } else {
      await daemon.exited();
      if (keepalived) {
        if (scenario === 'crash') keepalived.removeLeftoverVip();
        await keepalived.exited();
        keepalived.start();
      }
    }
    this.startDaemon(owner);
    let restarts: Promise<unknown>[] = [];
    if (keepalived) {
      // The owner's keepalived must be a backup again before the acting master steps down, or the third node takes over.
      await this.until(
        `keepalived on ${owner} is a backup again`,
        async () => (keepalived.inStateFor(Date.now()) === undefined ? 'not yet' : undefined),
        KEEPALIVED_BACKUP_TIMEOUT_MS,
      );
      // Caught here so a restart still under way when waitSteady gives up cannot fail after the lab is gone.
      restarts = [...this.keepalived]
        .filter(([name, node]) => name !== owner && node.holdsVip())
        .map(([, node]) => node.restart().catch((e: Error) => e));
    }
    await this.waitSteady();
    for (const outcome of await Promise.all(restarts)) if (outcome instanceof Error) throw outcome;
    this.forgetLines();
  }

  /** For a run that failed: how each daemon ended or what it last logged, and keepalived's last transitions. */
  describeState(): string {
    const daemons = [...this.daemons.daemons].map(([name, d]) => {
      const end = d.child.exitCode ?? d.child.signalCode ?? 'running';
      const last = d.lines
        .slice(-3)
        .map((l) => `${String(l.ts)} ${String(l.event)} ${String(l.msg ?? '')}`)
        .join('\n      ');
      return `  mlb ${name} (${end}):\n      ${last}`;
    });
    const keepalived = [...this.keepalived].map(
      ([name, node]) => `  keepalived ${name}:\n      ${node.logTail(4).split('\n').join('\n      ')}`,
    );
    return [...daemons, ...keepalived].join('\n');
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.probe?.stop();
    this.daemons.destroy();
  }

  /**
   * Fresh --state-dir every start: no restart history, so no warm-up (the bench measures failover, not damping).
   * With extra services each daemon runs in a session of its own (setsid, as under systemd, and as bench/scale
   * and bench/gossip-soak start it): with kernel.sched_autogroup_enabled, CFS shares CPU between sessions first,
   * and three daemons deciding over thousands of services inside the bench's one session got a third of one
   * session's share on a loaded machine (first decisions of 3-4 s at 1,000 services, then members declared dead
   * over and over). setsid execs in place, so the child's pid stays the daemon's (kill -9 still hits it).
   */
  private startDaemon(name: string): void {
    rmSync(join(this.daemons.dir, name), { recursive: true, force: true });
    this.daemons.start(name, this.mlbArgs, undefined, this.services > 0 ? ['setsid'] : []);
  }

  /** Why the lab is not steady on the owner yet; undefined once it is. Throws when a daemon died on its own. */
  private async notSteadyBecause(): Promise<string | undefined> {
    this.requireDaemonsRunning();
    const mlb = await this.mlbState();
    if (typeof mlb === 'string') return mlb;
    if (mlb[0] !== this.owner) throw new Error(`mlb's owner changed from ${this.owner} to ${mlb[0]} with fresh state on every node`);
    const holders = [...this.keepalived].filter(([, node]) => node.holdsVip()).map(([name]) => name);
    if (this.keepalived.size > 0 && holders.join() !== this.owner) return `keepalived's VIP is on [${holders.join(', ')}]`;
    const now = Date.now();
    const unready = [...this.keepalived].filter(([name, node]) => name !== this.owner && !node.readyAsBackup(now)).map(([name]) => name);
    if (unready.length > 0) return `keepalived on ${unready.join(', ')} is not a settled backup yet`;
    const seen = await this.seen(now - STEADY_WINDOW_MS);
    for (const ip of Object.values(this.vips)) {
      const arp = seen.filter((e) => e.kind === 'arp' && e.ip === ip).map((e) => this.daemons.nameOfMac(e.who) ?? e.who);
      const tcp = seen.filter((e) => e.kind === 'tcp' && e.ip === ip).map((e) => e.who);
      if (arp.join() !== this.owner || tcp.join() !== this.owner)
        return `the client sees ${ip} answered by [${arp.join(', ')}] (ARP) and [${tcp.join(', ')}] (TCP)`;
    }
    return undefined;
  }

  /**
   * Tallies the slowDecision warnings of every daemon started (restarts included) from the lines not counted
   * yet, then drops all but the last KEEP_LINES of each.
   */
  private forgetLines(): void {
    for (const { daemon } of this.daemons.started) {
      const lines = daemon.lines;
      for (let i = this.linesCounted.get(daemon) ?? 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (line.event !== 'slowDecision') continue;
        this.slow.count++;
        if (typeof line.tookMs === 'number') this.slow.longestMs = Math.max(this.slow.longestMs, line.tookMs);
      }
      if (lines.length > KEEP_LINES) lines.splice(0, lines.length - KEEP_LINES);
      this.linesCounted.set(daemon, lines.length);
    }
  }

  private requireDaemonsRunning(): void {
    for (const [name, d] of this.daemons.daemons) {
      const end = d.child.exitCode ?? d.child.signalCode;
      if (end !== null) throw new Error(`mlb daemon on ${name} exited by itself (${end}); stderr: ${d.stderr.join('').slice(-1_000)}`);
    }
  }

  /** The hash order once every node sees all members alive and agrees on one owner that announces; else why not. */
  private async mlbState(): Promise<string[] | string> {
    const snapshots = await Promise.all(this.daemons.nodes.map((n) => this.snapshotOf(this.daemons.socket(n.name))));
    const views = snapshots.map(
      (s, i) => `${this.daemons.nodes[i]!.name}: ${s ? s.members.map((m) => `${m.name} ${m.state}`).join(', ') : 'no answer'}`,
    );
    if (snapshots.some((s) => !s || s.members.filter((m) => m.state === 'alive').length !== NODES))
      return `mlb members: ${views.join('; ')}`;
    const services = snapshots.map((s) => s!.services.find((v) => v.service === API_SERVICE && v.protocol === 'layer2'));
    const owner = services[0]?.owner;
    if (!owner || services.some((s) => s?.owner !== owner)) return `mlb owners: ${services.map((s) => s?.owner ?? 'none').join(', ')}`;
    const ranking = services[0]!.candidates
      .filter((c) => c.eligible && c.rank !== null)
      .sort((a, b) => a.rank! - b.rank!)
      .map((c) => c.node);
    if (ranking.length !== NODES || ranking[0] !== owner) return `mlb candidates: ${JSON.stringify(services[0]!.candidates)}`;
    const ownerSnapshot = snapshots[this.daemons.nodes.findIndex((n) => n.name === owner)]!;
    if (!ownerSnapshot.local.announced.some((a) => a.ip === API_IP)) return `mlb: ${owner} does not announce ${API_IP} yet`;
    if (this.shares) {
      const mismatch = shareMismatch(
        this.shares,
        snapshots.map((s, i) => holdingOf(this.daemons.nodes[i]!.name, s!)),
      );
      if (mismatch) return `mlb's extra services: ${mismatch}`;
    }
    return ranking;
  }

  /**
   * The daemon's snapshot; with extra services only the page holding the measured service (members and `local`
   * come whole with every page), so a look does not make every daemon build and send every service's candidates.
   */
  private async snapshotOf(socket: string): Promise<ControlSnapshot | undefined> {
    try {
      if (this.services === 0) return await connectControl(socket).getSnapshot();
      const page = await readSnapshotPage(socket, this.apiOffset, 1);
      if (page.services[0]?.service === API_SERVICE) return page;
      // The rows come in the daemon's order: look for the measured one once, and ask for its page from then on.
      for (let offset = 0; offset < (page.servicesPage?.total ?? 0); offset += SCAN_PAGE) {
        const scanned = await readSnapshotPage(socket, offset, SCAN_PAGE);
        const i = scanned.services.findIndex((v) => v.service === API_SERVICE);
        if (i < 0) continue;
        this.apiOffset = offset + i;
        return { ...scanned, services: [scanned.services[i]!] };
      }
      return page;
    } catch {
      return undefined;
    }
  }

  private async seen(from: number): Promise<SeenEvent[]> {
    const reply = await this.probe!.call({ op: 'seen', from });
    return reply.seen as SeenEvent[];
  }

  private async until(what: string, notYet: () => Promise<string | undefined>, timeoutMs: number, pollMs = STEADY_POLL_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let why = await notYet(); why !== undefined; why = await notYet()) {
      if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what} (${why})`);
      await sleep(pollMs);
    }
  }
}
