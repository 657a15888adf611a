/**
 * Gossip nodes as processes in a NetnsLab, for bench/gossip.bench.ts and bench/gossip-soak.ts: `mlb daemon`
 * itself (what users run) and the real Go memberlist node of test/interop/go/memberlist-node (LAN defaults, as
 * MetalLB runs it). Every event carries the process's own timestamp in ms (the daemon's `ts`, the Go node's `t`),
 * all on this machine's clock, so a crash time taken here can be compared with them.
 *
 * Cleanup: every lab and temp dir made here is registered; installCleanup() destroys them on exit, Ctrl-C,
 * SIGTERM/SIGHUP and on an uncaught error (namespaces deleted after their processes are killed).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { canUseNetns, NetnsLab, type LabHost } from '../../test/support/netns-lab';
import { buildGoProgram, goPathWith, goToolchain } from '../../test/interop/go-program';
import type { SwimConfig, SwimProfileName } from '../../src/gossip/swim/config';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MLB_CLI = join(REPO_ROOT, 'dist/mlb.mjs');
/** Any valid configuration will do: the daemon only needs one to start (membership is what is measured). */
export const DAEMON_CONFIG = join(REPO_ROOT, 'examples/plain-host.yaml');
export const GOSSIP_PORT = 7946;
const MEMBERLIST = 'github.com/hashicorp/memberlist';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Refuses to go on without root, ip netns, a built CLI (and, when asked, Go with memberlist): exit 2 with why. */
export function preflight(tool: string, options: { go?: boolean } = {}): void {
  const refuse = (why: string): never => {
    console.error(`${tool}: ${why}`);
    process.exit(2);
  };
  if (process.getuid?.() !== 0) {
    refuse(
      'needs root: it builds network namespaces (ip netns), veths and nftables rules, and kills what it started. Run it as root (e.g. sudo).',
    );
  }
  const netns = canUseNetns();
  if (!netns.ok) refuse(netns.why);
  if (!existsSync(MLB_CLI)) refuse(`${MLB_CLI} is missing: run \`npm run build\` first (npm run bench does).`);
  if (options.go) {
    if (!goToolchain().available) refuse('go is not installed (Debian: apt-get install golang-go)');
    if (!goPathWith(MEMBERLIST)) refuse(`${MEMBERLIST} source not found (Debian: apt-get install golang-github-hashicorp-memberlist-dev)`);
  }
}

export function goMemberlistBinary(): string {
  return buildGoProgram('memberlist-node', { gopath: [goPathWith(MEMBERLIST)!] });
}

// ---- cleanup -------------------------------------------------------------------------------------------------

const labs = new Set<NetnsLab>();
const tempDirs = new Set<string>();

export function newLab(): NetnsLab {
  const lab = new NetnsLab();
  labs.add(lab);
  return lab;
}

export function destroyLab(lab: NetnsLab): void {
  labs.delete(lab);
  lab.destroy();
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function cleanupAll(): void {
  for (const lab of [...labs]) {
    labs.delete(lab);
    try {
      lab.destroy();
    } catch (error) {
      console.error(`cleanup: lab ${lab.id}: ${(error as Error).message}`);
    }
  }
  for (const dir of [...tempDirs]) {
    tempDirs.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/** Destroys every lab and temp dir on normal exit, on Ctrl-C/SIGTERM/SIGHUP and on an uncaught error. */
export function installCleanup(tool: string): void {
  process.on('exit', cleanupAll);
  for (const [signal, number] of Object.entries(SIGNAL_NUMBERS)) {
    process.on(signal, () => {
      console.error(`\n${tool}: ${signal}: killing the lab's processes and deleting its namespaces`);
      cleanupAll();
      process.exit(128 + number);
    });
  }
  const fatal = (error: unknown) => {
    console.error(`${tool}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    cleanupAll();
    process.exit(1);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}

// ---- nodes ---------------------------------------------------------------------------------------------------

export type NodeEventType = 'ready' | 'joined' | 'failed' | 'left';

export interface NodeEvent {
  readonly type: NodeEventType;
  /** The member the event is about (joined/failed/left). */
  readonly member?: string;
  /** The process's own timestamp, ms since the epoch. */
  readonly t: number;
}

/** One gossip process: the membership events it printed, and every parsed line for whoever wants more. */
export class LabNode {
  readonly events: NodeEvent[] = [];
  private readonly waiters = new Set<() => void>();
  private stderrTail = '';
  /** Called with every JSON line the process prints (after the membership events are taken out). */
  onRecord: ((record: Record<string, unknown>) => void) | undefined;

  constructor(
    readonly kind: 'go' | 'mlb',
    readonly name: string,
    readonly host: LabHost,
    readonly child: ChildProcess,
    /** mlb only: its control socket (`mlb status --socket`). */
    readonly controlSocket?: string,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.line(line));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-2_000);
    });
    child.once('exit', () => this.wake());
  }

  get address(): string {
    return `${this.host.ipv4}:${GOSSIP_PORT}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The time of the first event of this type about this member, if any. */
  first(type: NodeEventType, member?: string): number | undefined {
    return this.events.find((e) => e.type === type && e.member === member)?.t;
  }

  /** Resolves when `done()` holds, rejects at the deadline or when the process exits. */
  async until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (!this.running) throw new Error(`${this.describe()} exited while waiting for ${what}${this.tail()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.describe()}: ${what} not reached within ${timeoutMs} ms${this.tail()}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  /** kill -9 of the gossip process itself (`ip netns exec` and taskset exec it, so the child is that process). */
  crash(): number {
    const at = Date.now();
    this.child.kill('SIGKILL');
    return at;
  }

  describe(): string {
    return `${this.kind} node ${this.name} (${this.address}, pid ${this.child.pid})`;
  }

  private tail(): string {
    return this.stderrTail ? `\nstderr: ${this.stderrTail.trim()}` : '';
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private line(line: string): void {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const event = this.kind === 'mlb' ? mlbEvent(record) : goEvent(record, this.name);
    if (event) {
      this.events.push(event);
      this.wake();
    }
    this.onRecord?.(record);
  }
}

/** `mlb daemon` JSON lines: gossipStarted, memberJoined / memberFailed / memberLeft {member}, ts ISO with ms. */
function mlbEvent(record: Record<string, unknown>): NodeEvent | undefined {
  const t = typeof record.ts === 'string' ? Date.parse(record.ts) : NaN;
  if (!Number.isFinite(t)) return undefined;
  const member = typeof record.member === 'string' ? record.member : undefined;
  switch (record.event) {
    case 'gossipStarted':
      return { type: 'ready', t };
    case 'memberJoined':
      return { type: 'joined', member, t };
    case 'memberFailed':
      return { type: 'failed', member, t };
    case 'memberLeft':
      return { type: 'left', member, t };
    default:
      return undefined;
  }
}

/** go/memberlist-node: ready, join/leave {node {name, state}} (state 2 dead, 3 left), t in ms. */
function goEvent(record: Record<string, unknown>, self: string): NodeEvent | undefined {
  const t = typeof record.t === 'number' ? record.t : NaN;
  if (!Number.isFinite(t)) return undefined;
  const node = record.node as { name?: string; state?: number } | undefined;
  switch (record.event) {
    case 'ready':
      return { type: 'ready', t };
    case 'join':
      return node?.name && node.name !== self ? { type: 'joined', member: node.name, t } : undefined;
    case 'leave':
      return node?.name ? { type: node.state === 3 ? 'left' : 'failed', member: node.name, t } : undefined;
    default:
      return undefined;
  }
}

export interface MlbOptions {
  readonly profile: SwimProfileName;
  readonly join?: readonly LabNode[];
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  /** Pin the daemon to this CPU (taskset -c). */
  readonly cpu?: number;
  /**
   * Start it in a session of its own (setsid). With kernel.sched_autogroup_enabled, CFS shares CPU time between
   * sessions first: a daemon in its own session is not slowed by whatever else runs in this process's session.
   */
  readonly ownSession?: boolean;
  /** The configuration file (DAEMON_CONFIG unless given). */
  readonly config?: string;
  /**
   * Announce: bind and answer for the VIPs this node is elected for (the host needs an address in their subnet).
   * Without it the daemon runs --no-announce: membership and elections only.
   */
  readonly announce?: boolean;
}

/** `node dist/mlb.mjs daemon` in the host's namespace, with its own state dir. */
export function startMlb(lab: NetnsLab, host: LabHost, name: string, options: MlbOptions): LabNode {
  const stateDir = tempDir('mlb-bench-state-');
  const controlSocket = `${stateDir}/mlb.sock`;
  // Membership only unless asked: no announcing (the gossip bench measures failure detection), a control socket of its own.
  const args = [
    MLB_CLI,
    'daemon',
    '--config',
    options.config ?? DAEMON_CONFIG,
    '--node-name',
    name,
    '--gossip-bind',
    `${host.ipv4}:${GOSSIP_PORT}`,
    '--state-dir',
    stateDir,
    '--control-socket',
    controlSocket,
    ...(options.announce ? [] : ['--no-announce']),
    '--gossip-profile',
    options.profile,
    '--log-level',
    options.logLevel ?? 'info',
  ];
  if (options.join?.length) args.push('--join', options.join.map((n) => n.address).join(','));
  const [command, argv] =
    options.cpu === undefined ? [process.execPath, args] : ['taskset', ['-c', String(options.cpu), process.execPath, ...args]];
  const child = lab.spawnIn(host, command, argv, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownSession === true,
  });
  return new LabNode('mlb', name, host, child, controlSocket);
}

/**
 * The failure-detector timers memberlist has (its Config fields, in mlb's names): what go/memberlist-node's -timers
 * can set. mlb's own additions (directPingRetries, extendWhenHeard) have no memberlist counterpart.
 */
const MEMBERLIST_TIMERS = [
  'probeInterval',
  'probeTimeout',
  'indirectChecks',
  'suspicionMult',
  'suspicionMaxTimeoutMult',
  'retransmitMult',
  'awarenessMaxMultiplier',
  'gossipInterval',
  'gossipNodes',
  'gossipToTheDeadTime',
  'pushPullInterval',
  'tcpTimeout',
] as const satisfies readonly (keyof SwimConfig)[];

/** The Go memberlist node in the host's namespace: LAN defaults, or memberlist's timers taken from `timers`. */
export function startGo(
  lab: NetnsLab,
  host: LabHost,
  name: string,
  binary: string,
  join: readonly LabNode[] = [],
  timers?: SwimConfig,
): LabNode {
  const args = ['-name', name, '-bind', host.ipv4, '-port', String(GOSSIP_PORT)];
  if (join.length) args.push('-join', join.map((n) => n.address).join(','));
  if (timers) args.push('-timers', JSON.stringify(Object.fromEntries(MEMBERLIST_TIMERS.map((k) => [k, timers[k]]))));
  // stdin stays open (a pipe) so the node keeps reading commands; nothing is sent.
  const child = lab.spawnIn(host, binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  return new LabNode('go', name, host, child);
}

/** Waits until every node has seen every other one join (all alive everywhere). */
export async function converged(nodes: readonly LabNode[], timeoutMs: number): Promise<void> {
  await Promise.all(
    nodes.map((n) =>
      n.until('seeing every other node alive', () => nodes.every((o) => o === n || n.first('joined', o.name) !== undefined), timeoutMs),
    ),
  );
}

// ---- numbers -------------------------------------------------------------------------------------------------

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  if (lo === hi) return sorted[lo]!;
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows])
    console.log(
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}
