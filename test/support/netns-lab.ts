/**
 * A throwaway L2 segment of network namespaces for tests: a "switch" namespace holding a bridge, and one
 * namespace per host with a veth into the bridge, a fixed MAC and a private test address.
 *
 * Rules: names are unique per run (prefix + pid + counter), only namespaces this lab made are
 * ever touched, processes inside are killed before the namespaces are deleted, and nothing routes out.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** LAB_NETNS_PREFIX lets engineers sharing one machine tell their namespaces apart (not MLB_*: mlb reads those as flags). */
export const LAB_PREFIX = process.env.LAB_NETNS_PREFIX ?? 'mlbt';
/** Private test subnet inside the lab only (RFC 1918); nothing outside the namespaces is ever addressed. */
export const LAB_SUBNET_V4 = '10.213.0';
export const LAB_SUBNET_V6 = 'fd00:213::';

let labCounter = 0;

export function canUseNetns(): { ok: true } | { ok: false; why: string } {
  if (process.getuid?.() !== 0) return { ok: false, why: 'network-namespace tests need root' };
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
    return { ok: true };
  } catch {
    return { ok: false, why: 'the ip command (iproute2) cannot manage network namespaces here' };
  }
}

export interface LabHost {
  readonly name: string;
  readonly netns: string;
  readonly ipv4: string;
  readonly ipv6: string;
  readonly mac: string;
  readonly ifname: string;
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export class NetnsLab {
  readonly id: string;
  readonly switchNs: string;
  readonly hosts: LabHost[] = [];
  private readonly children: ChildProcess[] = [];

  constructor() {
    this.id = `${LAB_PREFIX}${process.pid % 100000}x${labCounter++}`;
    this.switchNs = `${this.id}-sw`;
    ip('netns', 'add', this.switchNs);
    ip('-n', this.switchNs, 'link', 'set', 'lo', 'up');
    ip('-n', this.switchNs, 'link', 'add', 'br0', 'type', 'bridge');
    ip('-n', this.switchNs, 'link', 'set', 'br0', 'up');
  }

  /** Adds a host on the segment: namespace, veth pair into the bridge, MAC 02:13:00:00:<n>, .n/24 and ::n/64. */
  addHost(name: string): LabHost {
    const n = this.hosts.length + 1;
    const netns = `${this.id}-${name}`;
    const peer = `v${n}`;
    const hex = n.toString(16).padStart(2, '0');
    const host: LabHost = {
      name,
      netns,
      ipv4: `${LAB_SUBNET_V4}.${n}`,
      ipv6: `${LAB_SUBNET_V6}${n.toString(16)}`,
      mac: `02:13:00:00:00:${hex}`,
      ifname: 'eth0',
    };
    ip('netns', 'add', netns);
    ip('-n', netns, 'link', 'set', 'lo', 'up');
    ip('-n', this.switchNs, 'link', 'add', peer, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns);
    ip('-n', this.switchNs, 'link', 'set', peer, 'master', 'br0', 'up');
    ip('-n', netns, 'link', 'set', 'eth0', 'address', host.mac);
    ip('-n', netns, 'addr', 'add', `${host.ipv4}/24`, 'dev', 'eth0');
    ip('-n', netns, 'addr', 'add', `${host.ipv6}/64`, 'dev', 'eth0', 'nodad');
    ip('-n', netns, 'link', 'set', 'eth0', 'up');
    this.hosts.push(host);
    return host;
  }

  /** Starts a process inside a host's namespace; it is killed by destroy(). */
  spawnIn(host: LabHost, command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    const child = spawn('ip', ['netns', 'exec', host.netns, command, ...args], { stdio: ['pipe', 'pipe', 'pipe'], ...options });
    this.children.push(child);
    return child;
  }

  execIn(host: LabHost, command: string, args: string[]): string {
    return execFileSync('ip', ['netns', 'exec', host.netns, command, ...args], { encoding: 'utf8' });
  }

  /** Cuts a host off the segment, as a powered-off machine would be. */
  unplug(host: LabHost): void {
    ip('-n', host.netns, 'link', 'set', 'eth0', 'down');
  }

  plug(host: LabHost): void {
    ip('-n', host.netns, 'link', 'set', 'eth0', 'up');
  }

  /** Kills every process this lab started and every process left in its namespaces, then deletes them. */
  destroy(): void {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const ns of [...this.hosts.map((h) => h.netns), this.switchNs]) {
      try {
        const pids = execFileSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).split('\n').filter(Boolean);
        for (const pid of pids) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // already gone
          }
        }
        ip('netns', 'del', ns);
      } catch {
        // already removed
      }
    }
  }
}
