/**
 * Gossip peers as processes in a NetnsLab: real Go memberlist nodes (go/memberlist-node) and mlb nodes
 * (mlb-gossip-runner.ts), both speaking JSON lines on stdout and taking commands on stdin, behind one interface
 * so a test can ask any node "whom do you see, in what state?" the same way.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../support/netns-lab';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNNER = fileURLToPath(new URL('./mlb-gossip-runner.ts', import.meta.url));
export const GOSSIP_PORT = 7946;
/** How long a process may take to print `ready` (node + tsx start in ~0.5 s; a busy 2-core CI box needs more). */
const START_TIMEOUT_MS = 20_000;
const REPLY_TIMEOUT_MS = 5_000;

export type PeerState = 'alive' | 'suspect' | 'dead' | 'left';
/** memberlist NodeStateType: 0 alive, 1 suspect, 2 dead, 3 left. */
const GO_STATES: readonly PeerState[] = ['alive', 'suspect', 'dead', 'left'];

export interface SeenNode {
  readonly name: string;
  readonly addr: string;
  readonly port: number;
  readonly state: PeerState;
  readonly incarnation: number;
  /** Meta bytes in hex. */
  readonly meta: string;
}

export interface PeerEvent {
  readonly event: string;
  readonly t: number;
  readonly [field: string]: unknown;
}

export interface PeerOptions {
  readonly join?: readonly Peer[];
  /** A MetalLB secretkey file (both kinds derive the key as MetalLB does). */
  readonly keyFile?: string;
  /** mlb: meta bytes; Go: meta bytes that are UTF-8 text (its -meta flag takes text). */
  readonly meta?: Uint8Array;
  /** mlb only: the SWIM profile (Go always runs memberlist's LAN defaults, as MetalLB does). */
  readonly profile?: 'lan' | 'wan' | 'fast';
}

export class Peer {
  readonly events: PeerEvent[] = [];
  private stderr = '';
  private readonly waiters = new Set<() => void>();
  /** Commands go one at a time, so each reply is matched to its own command. */
  private queue: Promise<unknown> = Promise.resolve();
  readonly exited: Promise<number | null>;

  constructor(
    readonly kind: 'go' | 'mlb',
    readonly name: string,
    readonly host: LabHost,
    private readonly child: ChildProcess,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let parsed: PeerEvent;
      try {
        parsed = JSON.parse(line) as PeerEvent;
      } catch {
        parsed = { event: 'stdout', t: Date.now(), line };
      }
      this.events.push(parsed);
      for (const wake of [...this.waiters]) wake();
    });
    // A command written to a peer that already exited must fail its request, not crash the test run with EPIPE.
    child.stdin!.on('error', () => {});
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4_000);
    });
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        resolve(code);
        for (const wake of [...this.waiters]) wake();
      }),
    );
  }

  get address(): string {
    return `${this.host.ipv4}:${GOSSIP_PORT}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first event at or after index `from` that matches, waiting for it up to timeoutMs. */
  async next(event: string, options: { from?: number; timeoutMs?: number; match?: (e: PeerEvent) => boolean } = {}): Promise<PeerEvent> {
    const { from = 0, timeoutMs = REPLY_TIMEOUT_MS, match = () => true } = options;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find((e) => e.event === event && match(e));
      if (found) return found;
      if (!this.running) throw new Error(`${this.describe()} exited before "${event}"${this.stderrTail()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.describe()}: no "${event}" within ${timeoutMs} ms${this.stderrTail()}`);
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

  /** Sends a command and returns the reply event printed after it. */
  request(command: string, reply: string): Promise<PeerEvent> {
    const done = this.queue.then(() => {
      const from = this.events.length;
      this.child.stdin!.write(`${command}\n`);
      return this.next(reply, { from });
    });
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** Every node this peer knows, itself included, dead and left ones too until they are reaped. */
  async view(): Promise<Map<string, SeenNode>> {
    const reply = await this.request('members', 'members');
    // Go lists memberlist's Members() and, in `nodes`, everything it knows; mlb lists everything in `members`.
    const raw = (this.kind === 'go' ? reply.nodes : reply.members) as Record<string, unknown>[];
    return new Map(
      raw.map((n) => {
        const state = typeof n.state === 'number' ? GO_STATES[n.state] : (n.state as PeerState);
        if (!state || !GO_STATES.includes(state))
          throw new Error(`${this.describe()} reports ${String(n.name)} in state ${String(n.state)}`);
        return [n.name as string, { ...(n as unknown as SeenNode), state }];
      }),
    );
  }

  /** Go only: the names memberlist's public Members() returns (what a MetalLB speaker acts on). */
  async publicMembers(): Promise<string[]> {
    if (this.kind !== 'go') throw new Error('publicMembers is a Go memberlist notion');
    const reply = await this.request('members', 'members');
    return (reply.members as { name: string }[]).map((m) => m.name);
  }

  async counters(): Promise<{ drops: Record<string, number> } & Record<string, unknown>> {
    if (this.kind !== 'mlb') throw new Error('counters are an mlb notion');
    return (await this.request('counters', 'counters')).counters as { drops: Record<string, number> };
  }

  /** memberlist's own log lines (Go) or the reducer's log lines above debug (mlb), as text. */
  logLines(): string[] {
    return this.events.filter((e) => e.event === 'log').map((e) => (typeof e.line === 'string' ? e.line : JSON.stringify(e.line)));
  }

  /** A graceful leave (Leave(1 s) then exit); resolves with the `left` event. */
  async leave(): Promise<PeerEvent> {
    const left = await this.request('leave', 'left');
    await this.exited;
    return left;
  }

  /** kill -9: the process is gone without a word to anyone. */
  async crash(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  describe(): string {
    return `${this.kind} node ${this.name} (${this.address})`;
  }

  private stderrTail(): string {
    return this.stderr ? `\nstderr: ${this.stderr.trim()}` : '';
  }
}

/** Starts peers in a lab and hands them out by name. */
export class PeerSpawner {
  readonly peers: Peer[] = [];

  constructor(
    private readonly lab: NetnsLab,
    private readonly goBinary: string,
  ) {}

  /** A Go memberlist node on a new lab host, started and (when asked) joined. */
  async go(name: string, options: PeerOptions = {}): Promise<Peer> {
    const host = this.lab.addHost(name);
    const args = ['-name', name, '-bind', host.ipv4, '-port', String(GOSSIP_PORT)];
    if (options.join?.length) args.push('-join', options.join.map((p) => p.address).join(','));
    if (options.keyFile) args.push('-key-file', options.keyFile);
    if (options.meta) args.push('-meta', new TextDecoder('utf-8', { fatal: true }).decode(options.meta));
    return this.started(new Peer('go', name, host, this.lab.spawnIn(host, this.goBinary, args)), options);
  }

  /** An mlb GossipNode (mlb-gossip-runner.ts) on a new lab host, started and (when asked) joined. */
  async mlb(name: string, options: PeerOptions = {}): Promise<Peer> {
    const host = this.lab.addHost(name);
    const args = [
      '--import',
      'tsx',
      RUNNER,
      '--name',
      name,
      '--bind',
      host.ipv4,
      '--port',
      String(GOSSIP_PORT),
      '--profile',
      options.profile ?? 'fast',
    ];
    if (options.join?.length) args.push('--join', options.join.map((p) => p.address).join(','));
    if (options.keyFile) args.push('--key-file', options.keyFile);
    if (options.meta) args.push('--meta', Buffer.from(options.meta).toString('hex'));
    return this.started(new Peer('mlb', name, host, this.lab.spawnIn(host, process.execPath, args, { cwd: REPO_ROOT })), options);
  }

  /** The last events of every peer, for a failure message or MLB_INTEROP_VERBOSE. */
  transcript(lastEvents = 12): string {
    return this.peers
      .map((p) =>
        [`--- ${p.describe()}${p.running ? '' : ' (exited)'}`, ...p.events.slice(-lastEvents).map((e) => JSON.stringify(e))].join('\n'),
      )
      .join('\n');
  }

  private async started(peer: Peer, options: PeerOptions): Promise<Peer> {
    this.peers.push(peer);
    await peer.next('ready', { timeoutMs: START_TIMEOUT_MS });
    if (options.join?.length) await peer.next('joined', { timeoutMs: START_TIMEOUT_MS });
    return peer;
  }
}

/**
 * Polls `probe` until `accept` holds for its value, or fails at the deadline with the last value seen: for
 * conditions the cluster reaches in its own time (convergence, failure detection), asserted as states, not times.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() >= deadline) {
      throw new Error(`${what}: not reached within ${options.timeoutMs} ms; last seen:\n${show(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 150));
  }
}

function show(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v), 1);
}

/** Each peer's view: name -> state (compact, for assertions and failure messages). */
export async function views(peers: readonly Peer[]): Promise<Record<string, Record<string, PeerState>>> {
  const out: Record<string, Record<string, PeerState>> = {};
  await Promise.all(
    peers.map(async (p) => {
      const seen = await p.view();
      out[p.name] = Object.fromEntries([...seen.values()].map((n) => [n.name, n.state]));
    }),
  );
  return out;
}

/** True when every peer sees every peer of `names` in `state` (as far as `peers` go; themselves always alive). */
export function allSee(
  v: Record<string, Record<string, PeerState>>,
  observers: readonly Peer[],
  names: readonly string[],
  state: PeerState,
): boolean {
  return observers.every((o) => names.every((n) => (n === o.name ? v[o.name]?.[n] === 'alive' : v[o.name]?.[n] === state)));
}
