/**
 * A whole mlb cluster in one process on virtual time: N real Speakers, each on its own simulated host of one
 * VirtualNetwork (gossip carries real bytes through the real codecs), sharing one VirtualSegment (layer 2).
 * Everything random comes from the seed and time moves only when the test runs the clock, so a scenario is
 * repeatable and minutes of cluster life take a second or two.
 *
 * Awaiting anything a speaker does (start, stop, drain) needs the clock to run: use `settle(promise)`.
 */
import type { SwimProfileName } from '../../../src/gossip/swim';
import type { Snapshot } from '../../../src/model';
import { VirtualNetwork } from '../../../src/runtime';
import { configSnapshot } from '../../daemon/config-facts/config-yaml';
import { GOSSIP_PORT, VirtualNode } from './node';
import { VirtualSegment, type AnnouncerChange } from './segment';

/** Node i (1-based) lives at 192.0.2.i (TEST-NET-1, RFC 5737); the pool of config-yaml.ts is 192.0.2.10-19. */
const nodeIp = (i: number): string => `192.0.2.${i}`;
/**
 * A LAN hop of exactly 1 ms. Jitter would put deliveries (and so `now()`) between whole milliseconds, which
 * Date.now never does, and the allocation table's codec refuses an entry stamped at a fractional time ("at is not
 * a time"): every node but the allocator would drop the table.
 */
const WHOLE_MS_LINK = { latency: 1, jitter: 0 };
/**
 * How long a settle or wait may run before the scenario is declared stuck: longer than any bound a scenario
 * checks (the handover's 3 s, a warm-up), short enough that a stuck run fails in a second of wall time.
 */
export const STUCK_AFTER_MS = 120_000;
/**
 * How often `until` looks at its condition, in virtual ms: looking after every task (thousands per virtual
 * second) would cost more wall time than the cluster itself; 10 ms is far below any bound a scenario checks.
 */
export const CHECK_EVERY_MS = 10;

export interface VirtualClusterOptions {
  readonly seed: number;
  /** Service names (namespace demo) every node's file defines, unless `configOf` says otherwise. */
  readonly services: readonly string[];
  readonly size?: number;
  /** Every node's --gossip-profile (fast unless given). */
  readonly profile?: SwimProfileName;
  /** A node's own file (by node name), for a cluster whose files differ. */
  readonly configOf?: (node: string) => Snapshot | undefined;
}

/** An IP's announcers over a window, as an operator watching the segment would sum it up. */
export interface IpHistory {
  /** How many times the IP's single announcer changed to another node. */
  readonly moves: number;
  /** The single announcers in order (an overlap of two keeps the earlier until it resolves). */
  readonly holders: readonly string[];
  /** Milliseconds during which nobody answered for the IP. */
  readonly unheldMs: number;
  /** Milliseconds during which more than one node answered (split brain, or a handover's overlap). */
  readonly contestedMs: number;
}

export class VirtualCluster {
  readonly network: VirtualNetwork;
  readonly segment: VirtualSegment;
  readonly nodes: VirtualNode[];
  /** How many services every node's file defines at least (the IPs a converged cluster answers for). */
  private readonly services: number;
  /** The partition cuts gossip only: ARP still crosses between the groups (see `partition`). */
  private layer2Shared = false;

  private constructor(options: VirtualClusterOptions) {
    this.network = new VirtualNetwork({ seed: options.seed, link: WHOLE_MS_LINK });
    // Stations are node names or intruder MACs; an intruder is wired to every group (reachable unless a test cuts it).
    const ipOf = (station: string): string | undefined => this.nodes?.find((n) => n.name === station)?.ip;
    this.segment = new VirtualSegment(this.network.clock, (from, to) => {
      const a = ipOf(from);
      const b = ipOf(to);
      return this.layer2Shared || a === undefined || b === undefined || this.network.link.reachable(a, b);
    });
    const size = options.size ?? 5;
    const join = Array.from({ length: size }, (_, i) => ({ host: nodeIp(i + 1), port: GOSSIP_PORT }));
    const shared = configSnapshot(options.services);
    this.services = options.services.length;
    this.nodes = Array.from({ length: size }, (_, i) => {
      const name = `node-${i + 1}`;
      return new VirtualNode({
        name,
        ip: nodeIp(i + 1),
        index: i + 1,
        join: join.filter((j) => j.host !== nodeIp(i + 1)),
        config: options.configOf?.(name) ?? shared,
        network: this.network,
        segment: this.segment,
        ...(options.profile ? { profile: options.profile } : {}),
      });
    });
  }

  /** Starts every node at once and runs until each IP of `services` has exactly one announcer. */
  static async start(options: VirtualClusterOptions, convergeMs = STUCK_AFTER_MS): Promise<VirtualCluster> {
    const cluster = new VirtualCluster(options);
    await cluster.settle(Promise.all(cluster.nodes.map((n) => n.start())));
    await cluster.until(() => cluster.converged(), 'every service IP has exactly one announcer', convergeMs);
    return cluster;
  }

  now(): number {
    return this.network.now();
  }

  node(name: string): VirtualNode {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  /**
   * Cuts the network between groups of nodes (by name). `layer2: 'cut'` (the default, and what
   * `network.partition` does): the switch between them is gone, so neither gossip nor ARP crosses (a probe is not
   * answered from the other side, a gratuitous ARP is not heard there). `layer2: 'shared'`: only gossip is cut (a
   * firewall on the gossip port, a broken route) and both sides still answer ARP on one segment: the split brain
   * the self-check exists to report.
   */
  partition(groups: readonly (readonly string[])[], options: { layer2?: 'cut' | 'shared' } = {}): void {
    this.network.partition(...groups.map((group) => group.map((name) => this.node(name).ip)));
    this.layer2Shared = options.layer2 === 'shared';
  }

  heal(): void {
    this.network.heal();
    this.layer2Shared = false;
  }

  /** Lets `ms` of virtual time pass. */
  run(ms: number): Promise<void> {
    return this.network.advance(ms);
  }

  /**
   * Runs the clock until `done` holds, checking it every CHECK_EVERY_MS; throws, naming `what`, when it does not
   * within `timeoutMs`. Scenarios read exact times from the segment's history, not from when this returned.
   */
  async until(done: () => boolean, what: string, timeoutMs = STUCK_AFTER_MS): Promise<void> {
    const end = this.now() + timeoutMs;
    while (!done()) {
      if (this.now() >= end) throw new Error(`virtual cluster: still not true after ${timeoutMs} ms: ${what}\n${this.describe()}`);
      await this.network.advance(Math.min(CHECK_EVERY_MS, end - this.now()));
    }
  }

  /** Runs the clock until `promise` settles, and returns what it resolved to. */
  async settle<T>(promise: Promise<T>, what = 'a speaker operation', timeoutMs = STUCK_AFTER_MS): Promise<T> {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    promise.then(
      (value) => (outcome = { ok: true, value }),
      (error: unknown) => (outcome = { ok: false, error }),
    );
    await this.until(() => outcome !== undefined, `${what} settles`, timeoutMs);
    if (!outcome!.ok) throw outcome!.error;
    return outcome!.value;
  }

  /** Restarts a node (after crash or stop) with its state files, and runs until its speaker has started. */
  restart(name: string): Promise<void> {
    return this.settle(this.node(name).start(), `${name} starting`);
  }

  /** The service IPs the running nodes agree on: service -> IP, from the first running node's view. */
  serviceIps(): Map<string, string> {
    const viewer = this.nodes.find((n) => n.up)?.speaker;
    const entries =
      viewer
        ?.snapshot()
        .services.filter((s) => s.protocol === 'layer2' && s.ips.length > 0)
        .map((s) => [s.service, s.ips[0]!] as const) ?? [];
    return new Map(entries);
  }

  /** Who answers for each service IP on the segment now. */
  announcers(): Map<string, string[]> {
    return new Map([...this.serviceIps().values()].map((ip) => [ip, this.segment.announcers(ip)]));
  }

  /** Every running node sees every service with its IP and the same owner, and exactly that node answers for it. */
  converged(): boolean {
    // The segment first (cheap): every defined service's IP answered by one node; the speakers' views only then.
    const answered = this.segment.ips().filter((ip) => this.segment.announcers(ip).length > 0);
    if (answered.length < this.services || answered.some((ip) => this.segment.announcers(ip).length > 1)) return false;
    const views = this.nodes.filter((n) => n.up).map((n) => n.speaker!.snapshot().services.filter((s) => s.protocol === 'layer2'));
    // Services every running node elects (files may differ: scenario 6); each node must agree on those.
    const common = views.reduce(
      (names, v) => names.filter((name) => v.some((s) => s.service === name)),
      views[0]?.map((s) => s.service) ?? [],
    );
    if (common.length === 0) return false;
    const agreed = (v: (typeof views)[number]): string =>
      JSON.stringify(common.map((name) => v.find((s) => s.service === name)).map((s) => [s!.service, s!.ips, s!.owner]));
    const first = views[0]!;
    return (
      views.every((v) => agreed(v) === agreed(first)) &&
      first
        .filter((s) => common.includes(s.service))
        .every((s) => s.ips.length > 0 && s.owner !== null && sameList(this.segment.announcers(s.ips[0]!), [s.owner]))
    );
  }

  /** What each running node elects and who answers on the segment: the message of a scenario that got stuck. */
  describe(): string {
    const views = this.nodes
      .filter((n) => n.up)
      .map(
        (n) =>
          `${n.name}: ${n
            .speaker!.snapshot()
            .services.map(
              (s) =>
                `${s.service} ${s.ips.join(',') || '-'} -> ${s.owner ?? 'nobody'}${s.allocation.status === 'ok' ? '' : ` (${s.allocation.status})`}`,
            )
            .join('; ')}`,
      );
    const wire = this.segment.ips().map((ip) => `${ip}: ${this.segment.announcers(ip).join(',') || 'nobody'}`);
    return [...views, `segment: ${wire.join('; ')}`].join('\n');
  }

  /** A node that answers for at least one service IP now (the first in name order). */
  anOwner(): string {
    const owner = this.nodes.find((n) => this.segment.announcedCount(n.name) > 0);
    if (!owner) throw new Error('nobody answers for any IP');
    return owner.name;
  }

  /** What happened to `ip` on the segment from `since` until now. */
  history(ip: string, since: number): IpHistory {
    return summarise(this.segment.historyOf(ip, since), this.now());
  }

  /** Every ownerChanged line any node logged after `since`, oldest first. */
  ownerChanges(since: number): { node: string; line: Record<string, unknown> }[] {
    return this.nodes
      .flatMap((n) => n.events('ownerChanged').map((line) => ({ node: n.name, line })))
      .filter((c) => Date.parse(String(c.line.ts)) > since)
      .sort((a, b) => Date.parse(String(a.line.ts)) - Date.parse(String(b.line.ts)));
  }
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

function summarise(changes: readonly AnnouncerChange[], now: number): IpHistory {
  const holders: string[] = [];
  let unheldMs = 0;
  let contestedMs = 0;
  changes.forEach((change, i) => {
    const until = changes[i + 1]?.at ?? now;
    if (change.announcers.length === 0) unheldMs += until - change.at;
    if (change.announcers.length > 1) contestedMs += until - change.at;
    const sole = change.announcers.length === 1 ? change.announcers[0]! : undefined;
    if (sole !== undefined && holders.at(-1) !== sole) holders.push(sole);
  });
  return { moves: Math.max(0, holders.length - 1), holders, unheldMs, contestedMs };
}
