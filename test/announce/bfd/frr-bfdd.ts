/**
 * FRR's bfdd alone in a lab namespace (one directory per instance owned by user frr, its own pid
 * file, vty socket and control socket), configured with `bfd / peer X local-address Y` blocks, queried through
 * vtysh as JSON. Stopped by its pid file (the lab's destroy() kills whatever is left).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LabHost, NetnsLab } from '../../support/netns-lab';

export const BFDD = '/usr/lib/frr/bfdd';

export interface FrrPeerConfig {
  readonly peer: string;
  readonly local: string;
  readonly receiveInterval: number;
  readonly transmitInterval: number;
  readonly detectMultiplier: number;
  readonly passive?: boolean;
}

/** One entry of `show bfd peers json` (the fields the tests read). */
export interface FrrBfdPeer {
  readonly peer: string;
  readonly local: string;
  readonly status: 'up' | 'down' | 'init' | 'shutdown';
  readonly diagnostic: string;
  readonly 'remote-diagnostic': string;
  readonly 'remote-id': number;
  readonly 'remote-receive-interval': number;
  readonly 'remote-transmit-interval': number;
  readonly 'remote-detect-multiplier': number;
}

function frrIds(): { uid: number; gid: number } | undefined {
  const r = spawnSync('id', ['-u', 'frr'], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', 'frr'], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) return undefined;
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/** Why bfdd cannot run here, or undefined when it can. */
export function bfddMissing(): string | undefined {
  if (spawnSync('test', ['-x', BFDD]).status !== 0) return `${BFDD} (apt-get install frr)`;
  if (spawnSync('sh', ['-c', 'command -v vtysh'], { stdio: 'ignore' }).status !== 0) return 'vtysh (frr)';
  if (!frrIds()) return 'the frr user (frr package)';
  return undefined;
}

export class FrrBfdd {
  private constructor(
    readonly host: LabHost,
    readonly dir: string,
  ) {}

  static start(lab: NetnsLab, host: LabHost, peers: readonly FrrPeerConfig[]): FrrBfdd {
    const ids = frrIds()!;
    const dir = mkdtempSync(join(tmpdir(), 'mlb-bfdd-'));
    const blocks = peers.map((p) =>
      [
        ` peer ${p.peer} local-address ${p.local}`,
        `  receive-interval ${p.receiveInterval}`,
        `  transmit-interval ${p.transmitInterval}`,
        `  detect-multiplier ${p.detectMultiplier}`,
        ...(p.passive ? ['  passive-mode'] : []),
        ' !',
      ].join('\n'),
    );
    const conf = ['frr defaults traditional', `log file ${dir}/bfdd.log`, 'bfd', ...blocks, '!', ''].join('\n');
    writeFileSync(join(dir, 'frr.conf'), conf);
    chownSync(dir, ids.uid, ids.gid);
    chownSync(join(dir, 'frr.conf'), ids.uid, ids.gid);
    lab.execIn(host, BFDD, [
      '-d',
      '-f',
      `${dir}/frr.conf`,
      '-i',
      `${dir}/bfdd.pid`,
      '-z',
      `${dir}/zserv.api`,
      '--vty_socket',
      dir,
      '--bfdctl',
      `${dir}/bfdd.sock`,
    ]);
    return new FrrBfdd(host, dir);
  }

  peers(): FrrBfdPeer[] {
    const out = execFileSync('ip', ['netns', 'exec', this.host.netns, 'vtysh', '--vty_socket', this.dir, '-c', 'show bfd peers json'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    return JSON.parse(out) as FrrBfdPeer[];
  }

  peer(address: string): FrrBfdPeer | undefined {
    return this.peers().find((p) => p.peer === address);
  }

  /** SIGKILL, as a crashed router. */
  kill(): void {
    try {
      process.kill(Number(readFileSync(join(this.dir, 'bfdd.pid'), 'utf8').trim()), 'SIGKILL');
    } catch {
      // already gone
    }
  }

  log(): string {
    try {
      return readFileSync(join(this.dir, 'bfdd.log'), 'utf8');
    } catch {
      return '';
    }
  }

  destroy(): void {
    this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
