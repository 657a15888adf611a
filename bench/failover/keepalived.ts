/**
 * keepalived as bench/failover's baseline: one VRRP instance per lab node (keepalived 2.2.7 from Debian), all
 * holding one VIP on eth0, the same segment mlb announces its VIPs on. Two timings (VrrpTiming): what a plain-host
 * operator runs instead of mlb (VRRPv2, advert_int 1, keepalived's defaults), and keepalived at its fastest stable
 * setting (VRRPv3, advert_int 0.1 s); preemption on (keepalived's default), distinct priorities in both.
 *
 * keepalived runs in the foreground (-n) with VRRP only (-P), logging to the console (-l -D) redirected to a file,
 * no D-Bus (off unless the configuration enables it); every instance has its own pid files (-p, -r), which is what
 * lets several run on one machine. It runs in a session of its own, so a crash is a SIGKILL of its process group:
 * the parent and its VRRP child (the process that holds the VIP and sends the advertisements) die at once.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabHost, NetnsLab } from '../../test/support/netns-lab';

export const KEEPALIVED_BINARY = 'keepalived';
/** How often the master advertises, and in which VRRP version (v2 counts whole seconds, v3 centiseconds). */
export interface VrrpTiming {
  readonly version: 2 | 3;
  readonly advertIntS: number;
  /** The bench's name for this timing. */
  readonly label: string;
}

/** One advertisement a second in VRRPv2: keepalived's default and what most configurations keep. */
export const VRRP_DEFAULT: VrrpTiming = Object.freeze({ version: 2, advertIntS: 1, label: 'keepalived, VRRPv2 advert_int 1' });

/**
 * keepalived at its fastest stable setting. VRRPv3 (RFC 5798 section 5.2.7) carries the interval in centiseconds;
 * keepalived 2.2.7 accepts 0.01-255 s (keepalived.conf(5); below 0.01 it refuses the instance). A backup declares
 * the master down after 3 x advert_int + skew (RFC 5798 section 6.1: skew = (256 - priority) x advert_int / 256), so
 * 0.1 s gives ~0.3-0.35 s. 0.01 s would give ~30 ms, shorter than the scheduling delays of a loaded 2-core host:
 * three late advertisements in a row would elect a second master (a false failover), so 0.1 s is the fastest
 * setting that holds on the machines this bench runs on.
 */
export const VRRP_FAST: VrrpTiming = Object.freeze({ version: 3, advertIntS: 0.1, label: 'keepalived, VRRPv3 advert_int 0.1' });
/** Any of 1-255 will do; the lab has one VRRP group. */
export const VIRTUAL_ROUTER_ID = 51;
/** The prefix length of the lab segment: keepalived adds the VIP to eth0 like any address of the subnet. */
const VIP_PREFIX = 24;
/**
 * A backup is ready to take over as VRRP intends once it has heard the master since it became a backup: its
 * master-down timer (3 x advert_int + skew) then counts from the master's last advertisement, not from its own
 * start. One advertisement interval after entering BACKUP, plus slack for this 2-core machine.
 */
const backupReadyAfterMs = (timing: VrrpTiming) => timing.advertIntS * 1000 + BACKUP_READY_SLACK_MS;
const BACKUP_READY_SLACK_MS = 300;
const STATE_LINE = /Entering (BACKUP|MASTER) STATE/;
/** A stopping keepalived sends its priority-0 advert at once and exits about a second later; this is slack. */
const EXIT_TIMEOUT_MS = 5_000;

export interface KeepalivedInstance {
  readonly routerId: string;
  /** 1-254; the highest live one is master (with preemption, also after it comes back). */
  readonly priority: number;
  readonly vip: string;
  readonly timing: VrrpTiming;
}

/** The configuration file of one node's instance. */
export function keepalivedConfig(instance: KeepalivedInstance): string {
  return `global_defs {
  router_id ${instance.routerId}
}
vrrp_instance mlb_bench {
  state BACKUP
  version ${instance.timing.version}
  interface eth0
  virtual_router_id ${VIRTUAL_ROUTER_ID}
  priority ${instance.priority}
  advert_int ${instance.timing.advertIntS}
  virtual_ipaddress {
    ${instance.vip}/${VIP_PREFIX} dev eth0
  }
}
`;
}

export function keepalivedInstalled(): boolean {
  return spawnSync(KEEPALIVED_BINARY, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** One node's keepalived: start, crash, stop, and whether its kernel holds the VIP. */
export class KeepalivedNode {
  private child: ChildProcess | undefined;
  private exit: Promise<void> = Promise.resolve();
  /** Set between the SIGTERM and the new start of restart(): the old run's state says nothing about the new one. */
  private restarting = false;
  /** Where the log is watched from (a start, or a mark), and when (our clock) a transition was first seen after it. */
  private logOffset = 0;
  private stateSeenAt: number | undefined;
  private readonly dir: string;

  constructor(
    private readonly lab: NetnsLab,
    readonly host: LabHost,
    readonly instance: KeepalivedInstance,
    parentDir: string,
  ) {
    this.dir = join(parentDir, `keepalived-${host.name}`);
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.file('keepalived.conf'), keepalivedConfig(instance));
    writeFileSync(this.file('keepalived.log'), '');
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`keepalived on ${this.host.name} is already running`);
    // A crashed instance leaves its pid files; keepalived refuses to start while they name a live process.
    for (const f of ['keepalived.pid', 'vrrp.pid']) rmSync(this.file(f), { force: true });
    this.markLog();
    const log = openSync(this.file('keepalived.log'), 'a');
    const child = this.lab.spawnIn(
      this.host,
      KEEPALIVED_BINARY,
      ['-n', '-l', '-D', '-P', '-f', this.file('keepalived.conf'), '-p', this.file('keepalived.pid'), '-r', this.file('vrrp.pid')],
      { stdio: ['ignore', log, log], detached: true },
    );
    closeSync(log);
    this.child = child;
    this.exit = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** kill -9 of the whole instance (parent and VRRP child): its VIP stays on eth0, nobody removes it. */
  crash(): void {
    if (this.child?.pid !== undefined && this.running) process.kill(-this.child.pid, 'SIGKILL');
  }

  /** SIGTERM: keepalived sends a priority-0 advertisement, removes the VIP, and exits about a second later. */
  terminate(): void {
    if (this.running) this.child!.kill('SIGTERM');
  }

  /** SIGTERM, then a new start once it has exited; readyAsBackup() is false until the new run is ready. */
  async restart(): Promise<void> {
    this.restarting = true;
    try {
      this.terminate();
      await this.exited();
      this.start();
    } finally {
      this.restarting = false;
    }
  }

  /** Resolves when the instance has exited (at once when it is not running). */
  async exited(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.exit,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`keepalived on ${this.host.name} did not exit within ${EXIT_TIMEOUT_MS} ms`)),
          EXIT_TIMEOUT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  }

  /** From now on, only a transition logged after this call counts (e.g. FAULT -> BACKUP when its link returns). */
  markLog(): void {
    this.logOffset = statSync(this.file('keepalived.log')).size;
    this.stateSeenAt = undefined;
  }

  /** How long ago (ms) a BACKUP or MASTER transition was first seen since the last start or mark; undefined: none yet. */
  inStateFor(now: number): number | undefined {
    if (this.restarting || !this.running) return undefined;
    if (this.stateSeenAt === undefined) {
      const log = readFileSync(this.file('keepalived.log')).subarray(this.logOffset).toString('utf8');
      if (STATE_LINE.test(log)) this.stateSeenAt = now;
    }
    return this.stateSeenAt === undefined ? undefined : now - this.stateSeenAt;
  }

  /**
   * Whether this instance, as a backup, would take over the way VRRP intends: a BACKUP (or MASTER) transition
   * seen at least backupReadyAfterMs ago. Polled; the poll interval is the resolution.
   */
  readyAsBackup(now: number): boolean {
    return (this.inStateFor(now) ?? -1) >= backupReadyAfterMs(this.instance.timing);
  }

  /** Whether eth0 carries the VIP (keepalived is master, or crashed as master). */
  holdsVip(): boolean {
    const out = execFileSync('ip', ['-n', this.host.netns, '-j', 'addr', 'show', 'dev', 'eth0'], { encoding: 'utf8' });
    const links = JSON.parse(out) as { addr_info?: { local?: string }[] }[];
    return links.some((l) => l.addr_info?.some((a) => a.local === this.instance.vip));
  }

  /** What a crashed master leaves behind: the VIP on eth0, answered by the kernel for ever. */
  removeLeftoverVip(): void {
    if (this.holdsVip()) execFileSync('ip', ['-n', this.host.netns, 'addr', 'del', `${this.instance.vip}/${VIP_PREFIX}`, 'dev', 'eth0']);
  }

  /** The last lines keepalived logged (it logs state transitions with -D), for a trial that went oddly. */
  logTail(lines: number): string {
    return readFileSync(this.file('keepalived.log'), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  }

  private file(name: string): string {
    return join(this.dir, name);
  }
}
