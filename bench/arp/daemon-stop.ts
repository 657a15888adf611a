// SIGTERM -> exit of the real daemon holding `vips` VIPs (single node, layer 2; bench/arp/daemon-arp.ts's lab and
// file): starts it, waits until it answers ARP for the last VIP, sends SIGTERM and times the exit; reports the
// exit code and whether mlb0 is empty afterwards.
// Run: sudo LAB_NETNS_PREFIX=mine node --import tsx bench/arp/daemon-stop.ts 1000,10000   (BENCH_ARP_CLI: another build)
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonChild } from './json-child';
import { daemonArpConfig, vipAddress } from './daemon-arp';
import { destroyLab, installCleanup, MLB_CLI, newLab, REPO_ROOT, sleep, tempDir } from '../gossip/lab-nodes';

const GENERATOR = fileURLToPath(new URL('./generator.ts', import.meta.url));
const READY_TIMEOUT_MS = 600_000;
const EXIT_TIMEOUT_MS = 180_000;

export interface DaemonStopResult {
  readonly vips: number;
  readonly stopMs: number;
  readonly exitCode: number | null;
  /** Addresses left on mlb0 after the exit (0: every VIP was withdrawn). */
  readonly leftOnVipInterface: number;
}

export async function measureDaemonStop(vips: number, cli = MLB_CLI, nodeArgs: readonly string[] = []): Promise<DaemonStopResult> {
  const lab = newLab();
  try {
    const client = lab.addHost('client');
    const node = lab.addHost('node');
    lab.execIn(node, 'ip', ['addr', 'add', '10.214.255.254/16', 'dev', 'eth0']);
    const generator = await JsonChild.start(lab, client, 'generator', GENERATOR);
    const dir = tempDir('mlb-bench-stop-');
    const configFile = join(dir, 'mlb.yaml');
    writeFileSync(configFile, daemonArpConfig(vips));
    const args = [...nodeArgs, cli, 'daemon', '--config', configFile, '--node-name', 'node', '--gossip-bind', `${node.ipv4}:7946`];
    const child = lab.spawnIn(
      node,
      process.execPath,
      [...args, '--state-dir', dir, '--control-socket', join(dir, 'mlb.sock'), '--log-level', 'warn'],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const started = Date.now();
    for (let tag = 1; ; tag = (tag + 1) & 0xff) {
      const probe = (await generator.call({
        op: 'run',
        target: vipAddress(vips - 1),
        rate: 100,
        count: 3,
        timeoutMs: 100,
        tag,
      })) as unknown as {
        replies: number;
      };
      if (probe.replies > 0) break;
      if (Date.now() - started > READY_TIMEOUT_MS) throw new Error('the daemon never answered for its last VIP');
      await sleep(500);
    }
    console.error(`${vips} VIPs answered after ${Date.now() - started} ms; SIGTERM`);
    // ip netns exec runs the daemon as its child: signal the daemon itself.
    const pid = execFileSync('ip', ['netns', 'pids', node.netns], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .find((p) => execFileSync('cat', [`/proc/${p}/cmdline`], { encoding: 'utf8' }).includes('daemon'));
    if (pid === undefined) throw new Error('no daemon process in the node namespace');
    const signalled = Date.now();
    process.kill(pid, 'SIGTERM');
    const exitCode = await Promise.race([exited, sleep(EXIT_TIMEOUT_MS).then(() => null)]);
    const stopMs = Date.now() - signalled;
    const left = lab.execIn(node, 'ip', ['-o', 'addr', 'show', 'dev', 'mlb0']).split('\n').filter(Boolean).length;
    return { vips, stopMs, exitCode, leftOnVipInterface: left };
  } finally {
    destroyLab(lab);
  }
}

async function main(): Promise<void> {
  installCleanup('bench/arp/daemon-stop');
  const sizes = (process.argv[2] ?? '1000,10000').split(',').map(Number);
  const nodeArgs = process.env.BENCH_STOP_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  for (const vips of sizes) {
    const r = await measureDaemonStop(vips, process.env.BENCH_ARP_CLI ?? MLB_CLI, nodeArgs);
    console.log(
      `${vips} VIPs: SIGTERM -> exit ${(r.stopMs / 1000).toFixed(2)} s, exit code ${r.exitCode}, ${r.leftOnVipInterface} addresses left on mlb0`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
