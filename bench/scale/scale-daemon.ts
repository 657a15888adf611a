/**
 * The daemon bench/scale measures: `mlb daemon` from dist/mlb.mjs (test/daemon/run-daemon.ts, as the e2e tests
 * start it) in the node's namespace, single node, layer 2, with what it holds sampled from outside: its resident
 * memory every RSS_SAMPLE_MS from /proc, its CPU time on demand, and the addresses on its VIP interface as
 * `ip -br addr show mlb0` prints them (what an operator would look at).
 */
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LabHost } from '../../test/support/netns-lab';
import { startDaemon, type RunningDaemon } from '../../test/daemon/run-daemon';
import { GOSSIP_PORT } from '../gossip/lab-nodes';
import { METRICS_BIND } from './answer-times';
import { cpuTicksOf, memoryOf } from './proc-stat';
import { parseBriefAddresses } from './scale-config';

const run = promisify(execFile);

/** Often enough to catch a reload's peak (a reload of 10,000 services takes seconds), cheap (one small file read). */
const RSS_SAMPLE_MS = 200;
const VIP_INTERFACE = 'mlb0';
/** `ip -br addr show` of 10,000 addresses is about 170 kB. */
const IP_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface RssSample {
  readonly t: number;
  readonly bytes: number;
}

export class ScaleDaemon {
  readonly rss: RssSample[] = [];
  readonly socket: string;
  private readonly sampler: NodeJS.Timeout;

  private constructor(
    readonly daemon: RunningDaemon,
    readonly host: LabHost,
    /** Epoch ms just before the process was spawned. */
    readonly startedAt: number,
    socket: string,
  ) {
    this.socket = socket;
    this.sampler = setInterval(() => this.sample(), RSS_SAMPLE_MS);
    this.sampler.unref();
    daemon.child.once('exit', () => clearInterval(this.sampler));
  }

  /** `bundle`: another mlb to run (startDaemon's), e.g. a script that runs dist/mlb.mjs under a profiler. */
  static start(host: LabHost, config: string, dir: string, bundle?: string): ScaleDaemon {
    const socket = join(dir, 'mlb.sock');
    const args = [
      '--config',
      config,
      '--node-name',
      'node',
      '--gossip-bind',
      `${host.ipv4}:${GOSSIP_PORT}`,
      '--state-dir',
      join(dir, 'state'),
      '--control-socket',
      socket,
      // The answer thread's own times come from here (answer-times.ts): the namespace's loopback only.
      '--metrics-bind',
      METRICS_BIND,
    ];
    const startedAt = Date.now();
    // In a session of its own (setsid), as under systemd: with kernel.sched_autogroup_enabled, CFS shares CPU
    // time between sessions first, and in the bench's session the daemon would share one session's share with the
    // bench itself (bench/gossip/lab-nodes.ts ownSession, bench/arp/json-child.ts say the same). setsid execs in
    // place (the child is no group leader), so the child's pid stays the daemon's.
    const daemon = startDaemon(args, host.netns, ['setsid'], bundle);
    return new ScaleDaemon(daemon, host, startedAt, socket);
  }

  get pid(): number {
    return this.daemon.child.pid!;
  }

  get running(): boolean {
    return this.daemon.child.exitCode === null && this.daemon.child.signalCode === null;
  }

  /** How it ended, with the end of its stderr, for a row that could not be measured because it did. */
  describeExit(): string {
    const end = this.daemon.child.exitCode ?? this.daemon.child.signalCode;
    const stderr = this.daemon.stderr.join('').trim().slice(-300);
    return `daemon exited (${String(end)})${stderr ? `: ${stderr}` : ''}`;
  }

  /** The largest sample taken in [from, to] (epoch ms). */
  rssMax(from = 0, to = Infinity): number | undefined {
    let max: number | undefined;
    for (const s of this.rss) if (s.t >= from && s.t <= to && (max === undefined || s.bytes > max)) max = s.bytes;
    return max;
  }

  /** The median of the samples in [from, to]: what it settled at, one GC's swing either way left out. */
  rssMedian(from: number, to = Infinity): number | undefined {
    const values = this.rss
      .filter((s) => s.t >= from && s.t <= to)
      .map((s) => s.bytes)
      .sort((a, b) => a - b);
    return values.length ? values[Math.floor(values.length / 2)] : undefined;
  }

  /**
   * Moves every thread of the daemon to these CPUs (taskset -a -p -c), e.g. "1" for the ARP runs, apart from the
   * generator's core (as bench/arp pins them), and back to all of them after.
   */
  pin(cpus: string): void {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(this.pid)], { stdio: 'ignore' });
  }

  cpuTicks(): number | undefined {
    return cpuTicksOf(this.pid);
  }

  /** The IPv4 addresses on mlb0 now; empty while the interface does not exist. */
  async vipsBound(): Promise<string[]> {
    try {
      const { stdout } = await run('ip', ['-n', this.host.netns, '-br', '-4', 'addr', 'show', 'dev', VIP_INTERFACE], {
        maxBuffer: IP_OUTPUT_BYTES,
      });
      return parseBriefAddresses(stdout);
    } catch {
      return [];
    }
  }

  /** Whether one address is on mlb0 (the kernel filters: a short answer however many are bound). */
  async isBound(vip: string): Promise<boolean> {
    try {
      const { stdout } = await run('ip', ['-n', this.host.netns, '-br', '-4', 'addr', 'show', 'dev', VIP_INTERFACE, 'to', `${vip}/32`]);
      return parseBriefAddresses(stdout).includes(vip);
    } catch {
      return false;
    }
  }

  /** How many log lines so far carry this event. */
  countEvents(event: string): number {
    let n = 0;
    for (const line of this.daemon.lines) if (line.event === event) n++;
    return n;
  }

  /** SIGTERM, then the time until the process exited; undefined when it had not after timeoutMs (then SIGKILL). */
  async terminate(timeoutMs: number): Promise<number | undefined> {
    if (!this.running) return undefined;
    const at = performance.now();
    const exited = this.daemon.exited().then(() => performance.now() - at);
    this.daemon.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    const ms = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (ms === undefined) {
      this.daemon.child.kill('SIGKILL');
      await this.daemon.exited();
    }
    return ms;
  }

  private sample(): void {
    const bytes = memoryOf(this.pid, 'VmRSS');
    if (bytes !== undefined) this.rss.push({ t: Date.now(), bytes });
  }
}
