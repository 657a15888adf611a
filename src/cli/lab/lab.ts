/**
 * A lab of network namespaces on this machine: N nodes and a client on one bridge, each node running `mlb daemon`
 * and the lab HTTP server (lab-http-server.ts). `mlb lab up|down|demo`, end-to-end tests and bench/failover all
 * drive it through this class. The topology is lab-plan.ts (pure); this file executes it.
 *
 * Processes are started detached, with their output in <dir>/node-N/*.log, so a lab made by `mlb lab up` outlives
 * that command; lab.json records their pids for the next command. Teardown does not trust the pids: it kills
 * whatever runs inside the lab's namespaces (only ever namespaces named like this lab's) and deletes them.
 */
import type { SwimProfileName } from '../../gossip/swim/config';
import { mkdir, readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../daemon/state-dir';
import { labConfigText } from './lab-config';
import { readSnapshotText } from './lab-control';
import { LabError } from './lab-errors';
import { isHealthyText, writeHealthFile } from './lab-http-server';
import { healNode, isPartitioned, partitionNode } from './lab-partition';
import { buildNetwork, refuseExisting, removeLab, type LabDownReport } from './lab-network';
import {
  DEFAULT_LAB_DIR,
  DEFAULT_LAB_NAME,
  LAB_BRIDGE,
  LAB_INTERFACE,
  daemonArgv,
  findNode,
  hostByMac,
  planLab,
  probeArgv,
  serverArgv,
  type LabHostPlan,
  type LabNodePlan,
  type LabPlan,
  type ProbeArgvOptions,
} from './lab-plan';
import { LAB_DIR_MODE_WITH_ROUTER, checkFrr, labRouter, prepareLabRouterDir, startLabRouter } from './lab-router';
import type { FrrRouter } from './frr-router';
import { childEnv, fileSize, spawnDetached, waitForStart } from './lab-process';
import { readLabState, writeLabState, type LabState } from './lab-state';
import { checkLabPrerequisites, commandLine, ip, isAlive, pidsIn, run, signal, waitForExit, type ExecResult } from './netns';
import { ProbeRun } from './probe-run';
import {
  parseNeighbourJSON,
  parseNodeStatus,
  parseServiceOwnership,
  type NeighbourEntry,
  type NodeStatus,
  type ServiceOwnership,
} from './service-ownership';

export type { LabDownReport } from './lab-network';

/** A daemon on a busy 2-core machine loads Node, the config and binds gossip within a few seconds; 20 s is stuck. */
const DAEMON_START_TIMEOUT_MS = 20_000;
/** A first join in the lab takes milliseconds (or fails at once while the others start); see startDaemon. */
const JOIN_LOG_GRACE_MS = 3_000;
/** The HTTP server is a few lines of Node. */
const SERVER_START_TIMEOUT_MS = 10_000;
/** A SIGTERMed daemon leaves the cluster (1 s) and saves state; then it gets SIGKILL. */
const DAEMON_STOP_TIMEOUT_MS = 5_000;
/** The node, lab and socket directories hold the daemons' state and control sockets: root only. */
const LAB_DIR_MODE = 0o700;

/** Any of the daemon's --gossip-profile choices (swim/config.ts). */
export type GossipProfile = SwimProfileName;

export interface LabUpOptions {
  readonly nodes?: number;
  readonly name?: string;
  readonly dir?: string;
  /** How to run mlb: e.g. [process.execPath, '/path/to/dist/mlb.mjs']; the lab appends `daemon ...`, `lab serve ...`. */
  readonly mlbCommand: readonly string[];
  /** The daemons' failure-detection profile; absent: the daemon's default (fast on plain hosts). */
  readonly gossipProfile?: GossipProfile;
  /** false: namespaces and HTTP servers only, no daemon (start them later with startDaemon). Default true. */
  readonly daemons?: boolean;
  /**
   * A router namespace running FRR (a passive peer group, /32 routes only, BFD) that every node peers with, and a
   * BGP service. Needs FRR.
   */
  readonly bgp?: boolean;
  /** One line per step while building, for a person watching. */
  readonly onProgress?: (line: string) => void;
}

export class Lab {
  private readonly probes = new Set<ProbeRun>();
  private stateWrites: Promise<void> = Promise.resolve();

  private constructor(
    readonly plan: LabPlan,
    private state: LabState,
  ) {}

  /** Builds the lab; on any failure it removes whatever it made and rethrows. */
  static async up(options: LabUpOptions): Promise<Lab> {
    const plan = planLab({ name: options.name, dir: options.dir, nodes: options.nodes, bgp: options.bgp === true });
    await checkLabPrerequisites();
    if (plan.router) checkFrr();
    const progress = options.onProgress ?? (() => undefined);
    await refuseExisting(plan);
    const lab = new Lab(plan, {
      version: 1,
      name: plan.name,
      dir: plan.dir,
      nodes: plan.nodes.length,
      mlbCommand: [...options.mlbCommand],
      ...(options.gossipProfile ? { gossipProfile: options.gossipProfile } : {}),
      ...(plan.router ? { bgp: true } : {}),
      phase: 'building',
      processes: {},
    });
    try {
      await mkdir(plan.dir, { recursive: true, mode: plan.router ? LAB_DIR_MODE_WITH_ROUTER : LAB_DIR_MODE });
      if (plan.router) await prepareLabRouterDir(plan);
      for (const node of plan.nodes) await mkdir(node.stateDir, { recursive: true, mode: LAB_DIR_MODE });
      await lab.saveState();
      const router = plan.router ? ` and ${plan.router.netns}` : '';
      progress(
        `network: namespaces ${plan.nodes[0]?.netns} to ${plan.nodes.at(-1)?.netns}, ${plan.client.netns}${router}, bridge ${LAB_BRIDGE} in ${plan.bridgeNs}`,
      );
      await buildNetwork(plan);
      await writeFileAtomic(plan.configFile, labConfigText(plan));
      if (plan.router) {
        progress(
          `router: FRR (zebra, bfdd, bgpd) in ${plan.router.netns} ${plan.router.ipv4}, a passive peer group for the nodes, /32 routes only, BFD, files in ${plan.router.dir}`,
        );
        await startLabRouter(plan);
      }
      progress(`HTTP servers: ${plan.nodes.map((n) => `${n.name} http://${n.ipv4}/`).join(', ')}`);
      await Promise.all(plan.nodes.map((n) => lab.startServer(n)));
      if (options.daemons !== false) {
        progress(`daemons: mlb daemon --config ${plan.configFile} in each node, logs in ${plan.dir}/node-N/daemon.log`);
        await Promise.all(plan.nodes.map((n) => lab.startDaemon(n.name)));
      }
      lab.state = { ...lab.state, phase: 'up' };
      await lab.saveState();
      return lab;
    } catch (error) {
      await lab.down().catch(() => undefined);
      throw error;
    }
  }

  /** The lab `mlb lab up` left in `dir`. */
  static async attach(dir: string = DEFAULT_LAB_DIR): Promise<Lab> {
    await checkLabPrerequisites();
    const probe = planLab({ dir });
    const state = await readLabState(probe.stateFile).catch((error: Error) => {
      throw new LabError(`${probe.stateFile}: ${error.message}`, 'noLab');
    });
    if (!state) throw new LabError(`no lab in ${dir} (no ${probe.stateFile}): start one with mlb lab up`, 'noLab');
    return new Lab(planLab({ name: state.name, dir: state.dir, nodes: state.nodes, bgp: state.bgp === true }), state);
  }

  /**
   * Removes the lab named `name` in `dir` whatever state it is in: from its state file when there is one, else
   * every namespace shaped like this lab's (a crash before the state file was written) and the lab's files.
   */
  static async downByName(options: { name?: string; dir?: string } = {}): Promise<LabDownReport> {
    await checkLabPrerequisites();
    const dir = options.dir ?? DEFAULT_LAB_DIR;
    const state = await readLabState(planLab({ dir }).stateFile).catch(() => undefined);
    const name = options.name ?? state?.name ?? DEFAULT_LAB_NAME;
    // The state file's node count when it is this lab's; the namespaces are found by name either way.
    const plan = planLab({ name, dir, nodes: state?.name === name ? state.nodes : undefined });
    return removeLab(plan);
  }

  get nodeNames(): string[] {
    return this.plan.nodes.map((n) => n.name);
  }

  node(name: string): LabNodePlan {
    return findNode(this.plan, name);
  }

  /** The lab's FRR router (built with bgp: true); its queries are vtysh commands in the router namespace. */
  router(): FrrRouter {
    return labRouter(this.plan);
  }

  /** Kills everything the lab started, deletes its namespaces and files. Idempotent. */
  async down(): Promise<LabDownReport> {
    await this.stopProbes();
    await this.stateWrites.catch(() => undefined);
    return removeLab(this.plan);
  }

  /** Starts node's daemon (no-op while it runs) and waits until it is up: control socket or gossip listening. */
  async startDaemon(nodeName: string): Promise<void> {
    const node = this.node(nodeName);
    const running = this.state.processes[node.name]?.daemon;
    if (running !== undefined && isAlive(running)) return;
    const argv = [
      ...this.state.mlbCommand,
      ...daemonArgv(this.plan, node, this.state.gossipProfile ? { gossipProfile: this.state.gossipProfile } : {}),
    ];
    const logStart = await fileSize(node.daemonLog);
    const pid = spawnDetached(node.netns, argv, node.daemonLog);
    await this.recordPid(node.name, 'daemon', pid);
    // Up when this run's part of the log says its first join attempt is over (joined, or nobody to reach yet):
    // before that a daemon sees a cluster of one. A daemon that never logs the join counts as up JOIN_LOG_GRACE_MS
    // after gossip started. (A socket file proves nothing: a SIGKILLed daemon leaves its socket behind.)
    let gossipSeenAt: number | undefined;
    await waitForStart(pid, `${node.name}'s daemon`, node.daemonLog, logStart, DAEMON_START_TIMEOUT_MS, (log) => {
      if (log.includes('"event":"gossipJoin"')) return true;
      if (gossipSeenAt === undefined && log.includes('"event":"gossipStarted"')) gossipSeenAt = Date.now();
      return gossipSeenAt !== undefined && Date.now() - gossipSeenAt >= JOIN_LOG_GRACE_MS;
    });
  }

  /** Signals node's daemon and waits for it to exit (SIGTERM: a graceful leave; SIGKILL after DAEMON_STOP_TIMEOUT_MS). */
  async killDaemon(nodeName: string, sig: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const node = this.node(nodeName);
    const pid = this.state.processes[node.name]?.daemon;
    if (pid === undefined || !(await this.isOurs(node, pid, ' daemon '))) return;
    signal(pid, sig);
    if (!(await waitForExit(pid, DAEMON_STOP_TIMEOUT_MS))) {
      signal(pid, 'SIGKILL');
      await waitForExit(pid, DAEMON_STOP_TIMEOUT_MS);
    }
    await this.recordPid(node.name, 'daemon', undefined);
  }

  isDaemonRunning(nodeName: string): boolean {
    return this.daemonPid(nodeName) !== undefined;
  }

  /** The pid of node's daemon while it runs (as lab.json records it), else undefined. */
  daemonPid(nodeName: string): number | undefined {
    const pid = this.state.processes[this.node(nodeName).name]?.daemon;
    return pid !== undefined && isAlive(pid) ? pid : undefined;
  }

  /**
   * Drops every packet between the node and the other nodes, gossip included (partition-rules.ts); its link, its
   * processes and the client's path to it stay. False when it already was partitioned.
   */
  partition(nodeName: string): Promise<boolean> {
    return partitionNode(this.plan, this.node(nodeName));
  }

  /** Undoes partition() exactly; false when the node was not partitioned. */
  heal(nodeName: string): Promise<boolean> {
    return healNode(this.node(nodeName));
  }

  isPartitioned(nodeName: string): Promise<boolean> {
    return isPartitioned(this.node(nodeName));
  }

  /** Cuts the node off the segment, as a powered-off machine or a pulled cable; its processes keep running. */
  async linkDown(nodeName: string): Promise<void> {
    await ip('-n', this.node(nodeName).netns, 'link', 'set', LAB_INTERFACE, 'down');
  }

  async linkUp(nodeName: string): Promise<void> {
    await ip('-n', this.node(nodeName).netns, 'link', 'set', LAB_INTERFACE, 'up');
  }

  /** Makes the node's /healthz answer 503 (false) or 200 (true); its daemon's health check follows. */
  async setHealthy(nodeName: string, healthy: boolean): Promise<void> {
    await writeHealthFile(this.node(nodeName).healthFile, healthy);
  }

  /** What the node's /healthz answers now: its health file, read as the HTTP server reads it. */
  async isHealthy(nodeName: string): Promise<boolean> {
    return isHealthyText(await readFile(this.node(nodeName).healthFile, 'utf8').catch(() => undefined));
  }

  async readConfig(): Promise<string> {
    return readFile(this.plan.configFile, 'utf8');
  }

  /** Replaces the configuration every daemon reads (atomically: a daemon never reads half a file). */
  async writeConfig(yamlText: string): Promise<void> {
    await writeFileAtomic(this.plan.configFile, yamlText);
  }

  /** Runs argv inside a node's, the client's or the router's namespace. */
  exec(host: string, argv: readonly string[], timeoutMs?: number): Promise<ExecResult> {
    return run(['ip', 'netns', 'exec', this.host(host).netns, ...argv], timeoutMs, childEnv());
  }

  /** Runs mlb (the lab's mlb command) in this namespace: control sockets are files, reachable from here. */
  mlb(args: readonly string[], timeoutMs?: number): Promise<ExecResult> {
    return run([...this.state.mlbCommand, ...args], timeoutMs, childEnv());
  }

  controlSocket(nodeName: string): string {
    return this.node(nodeName).controlSocket;
  }

  /** Starts `mlb lab probe` in the client namespace against HOST:PORT; down() stops it. */
  startProbe(target: string, options: ProbeArgvOptions = {}): ProbeRun {
    const probe = new ProbeRun(
      ['ip', 'netns', 'exec', this.plan.client.netns, ...this.state.mlbCommand, ...probeArgv(target, options)],
      childEnv(),
    );
    this.probes.add(probe);
    return probe;
  }

  async stopProbe(probe: ProbeRun): Promise<void> {
    await probe.stop();
    this.probes.delete(probe);
  }

  /** Stops every probe this Lab object started (the lab itself stays up). */
  async stopProbes(): Promise<void> {
    await Promise.all([...this.probes].map((p) => this.stopProbe(p)));
  }

  /** The client's neighbour entry for `ip` (the MAC it sends the VIP's traffic to), with the lab host owning that MAC. */
  async neighbour(ipText: string): Promise<(NeighbourEntry & { host?: string }) | undefined> {
    const result = await run(['ip', '-n', this.plan.client.netns, '-j', 'neigh', 'show', 'to', ipText, 'dev', LAB_INTERFACE]);
    if (result.status !== 0) return undefined;
    const entry = parseNeighbourJSON(result.stdout || '[]', ipText);
    if (!entry) return undefined;
    const host = entry.mac ? hostByMac(this.plan, entry.mac)?.name : undefined;
    return host ? { ...entry, host } : entry;
  }

  /**
   * Who the daemons say owns `service` ("namespace/name"): node `askNode`'s daemon when named, else the first running
   * daemon that answers on its control socket. Undefined when none answers.
   */
  async ownership(service: string, askNode?: string): Promise<ServiceOwnership | undefined> {
    const nodes = askNode === undefined ? this.plan.nodes : [this.node(askNode)];
    for (const node of nodes) {
      if (!this.isDaemonRunning(node.name)) continue;
      const text = await readSnapshotText(node.controlSocket);
      const answer = text === undefined ? undefined : parseServiceOwnership(text, service);
      if (answer) return answer;
    }
    return undefined;
  }

  /** What node's daemon says of itself (warming up, draining), or undefined without a control API answer. */
  async nodeStatus(nodeName: string): Promise<NodeStatus | undefined> {
    const text = await readSnapshotText(this.node(nodeName).controlSocket);
    return text === undefined ? undefined : parseNodeStatus(text);
  }

  private host(name: string): LabHostPlan {
    if (name === this.plan.client.name) return this.plan.client;
    if (this.plan.router && name === this.plan.router.name) return this.plan.router;
    return this.node(name);
  }

  /** Guards a signal against pid reuse: the pid must still be in the node's namespace and run what we started. */
  private async isOurs(node: LabNodePlan, pid: number, marker: string): Promise<boolean> {
    if (!(await pidsIn(node.netns)).includes(pid)) return false;
    return ((await commandLine(pid)) ?? '').includes(marker);
  }

  private async startServer(node: LabNodePlan): Promise<void> {
    await writeHealthFile(node.healthFile, true);
    const logStart = await fileSize(node.httpLog);
    const pid = spawnDetached(node.netns, [...this.state.mlbCommand, ...serverArgv(node)], node.httpLog);
    await this.recordPid(node.name, 'server', pid);
    await waitForStart(pid, `${node.name}'s HTTP server`, node.httpLog, logStart, SERVER_START_TIMEOUT_MS, (log) =>
      log.includes('"event":"listening"'),
    );
  }

  private recordPid(nodeName: string, kind: 'daemon' | 'server', pid: number | undefined): Promise<void> {
    const current = { ...this.state.processes[nodeName] };
    if (pid === undefined) delete current[kind];
    else current[kind] = pid;
    this.state = { ...this.state, processes: { ...this.state.processes, [nodeName]: current } };
    return this.saveState();
  }

  /** State writes run one after another, so the file always holds the latest pids. */
  private saveState(): Promise<void> {
    const state = this.state;
    this.stateWrites = this.stateWrites.catch(() => undefined).then(() => writeLabState(this.plan.stateFile, state));
    return this.stateWrites;
  }
}
