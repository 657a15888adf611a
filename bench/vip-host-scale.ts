/**
 * The host side of a daemon holding many VIPs, measured on the real daemon (dist/mlb.mjs daemon) alone in a
 * network namespace, layer 2, one node: the time from start until every VIP is on mlb0, and the CPU it uses
 * over 30 s idle afterwards (/proc/PID/stat utime+stime). Not a test: it prints numbers.
 *
 * Usage: MLB_COMMIT=dev npm run build && npx tsx bench/vip-host-scale.ts [services ...]   (default 1000 10000)
 *        VIP_BENCH_BUNDLE=/path/to/old/dist/mlb.mjs measures another build the same way.
 * Needs root and iproute2. The VIPs are drawn from 10.214.0.0/18, a private range given to the lab host's eth0
 * too, so the L2 announcer has an interface in their subnet.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../test/daemon/run-daemon';
import { NetnsLab } from '../test/support/netns-lab';

/** The window the idle CPU is averaged over. */
const IDLE_WINDOW_MS = 30_000;
/** Give up waiting for the VIPs after this long (the old binder needed up to 268 s at 10,000). */
const BIND_TIMEOUT_MS = 400_000;
/** How often mlb0's addresses are counted while waiting. */
const POLL_MS = 100;
/** USER_HZ: /proc/PID/stat counts CPU time in clock ticks of 1/100 s on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

function config(services: number): string {
  const docs = [
    `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: scale, namespace: metallb-system }
spec:
  addresses: [10.214.0.1-10.214.63.254]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: scale, namespace: metallb-system }`,
  ];
  for (let i = 0; i < services; i++) {
    docs.push(`apiVersion: v1
kind: Service
metadata: { name: svc-${i}, namespace: scale }
spec:
  type: LoadBalancer
  ports: [{ port: 80, protocol: TCP }]`);
  }
  return `${docs.join('\n---\n')}\n`;
}

function boundCount(netns: string): number {
  try {
    const out = execFileSync('ip', ['-n', netns, '-4', '-o', 'addr', 'show', 'dev', 'mlb0'], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\n').filter((l) => l.includes('inet ')).length;
  } catch {
    return 0;
  }
}

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after "pid (comm) ".
  return Number(fields[11]) + Number(fields[12]);
}

/** VIP_BENCH_BUNDLE (not MLB_*: the daemon reads those as flags): another build to measure (a copy of dist/ from before a change); default dist/mlb.mjs. */
const BUNDLE = process.env.VIP_BENCH_BUNDLE;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(services: number): Promise<void> {
  const lab = new NetnsLab();
  const dir = mkdtempSync(join(tmpdir(), 'mlb-vip-scale-'));
  try {
    const host = lab.addHost('node-1');
    execFileSync('ip', ['-n', host.netns, 'addr', 'add', '10.214.0.0/18', 'dev', 'eth0']);
    const file = join(dir, 'mlb.yaml');
    writeFileSync(file, config(services));
    const started = performance.now();
    const daemon = startDaemon(
      [
        ...['--config', file, '--node-name', 'node-1', '--gossip-bind', `${host.ipv4}:7946`],
        ...['--state-dir', join(dir, 'state'), '--control-socket', join(dir, 'mlb.sock')],
      ],
      host.netns,
      [],
      ...(BUNDLE ? [BUNDLE] : []),
    );
    const pid = daemon.child.pid!;
    let bound = 0;
    let exited = false;
    void daemon.exited().then(() => (exited = true));
    while ((bound = boundCount(host.netns)) < services && !exited && performance.now() - started < BIND_TIMEOUT_MS) await sleep(POLL_MS);
    if (exited)
      throw new Error(
        `the daemon exited: ${daemon.stderr.join('')}${daemon.lines
          .filter((l) => l.event !== 'serviceAnnounced')
          .slice(-8)
          .map((l) => JSON.stringify(l))
          .join('\n')}`,
      );
    const bindMs = performance.now() - started;
    const before = cpuTicks(pid);
    await sleep(IDLE_WINDOW_MS);
    const idleCpu = ((cpuTicks(pid) - before) / CLOCK_TICKS_PER_SECOND / (IDLE_WINDOW_MS / 1000)) * 100;
    const ok = bound >= services;
    console.log(
      `${String(services).padStart(6)} services: ${ok ? `every VIP on mlb0 after ${(bindMs / 1000).toFixed(2)} s` : `only ${bound} on mlb0 after ${(bindMs / 1000).toFixed(0)} s`}` +
        `, idle CPU ${idleCpu.toFixed(1)} % of a core over ${IDLE_WINDOW_MS / 1000} s`,
    );
    if (process.env.VIP_BENCH_TRACE) {
      const firstAndLast = new Map<string, [string, string, number]>();
      for (const l of daemon.lines) {
        const e = String(l.event);
        const was = firstAndLast.get(e);
        firstAndLast.set(e, [was?.[0] ?? String(l.ts), String(l.ts), (was?.[2] ?? 0) + 1]);
      }
      for (const [e, [a, b, n]] of firstAndLast) console.log(`        ${e} x${n}: ${a} .. ${b}`);
    }
    const trouble = new Map<string, number>();
    for (const l of daemon.lines)
      if (l.level === 'warn' || l.level === 'error') trouble.set(String(l.event), (trouble.get(String(l.event)) ?? 0) + 1);
    if (trouble.size > 0) console.log(`        warnings and errors: ${[...trouble].map(([e, n]) => `${e} x${n}`).join(', ')}`);
    daemon.child.kill('SIGKILL');
    await daemon.exited();
  } finally {
    lab.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

const sizes = process.argv.slice(2).map(Number);
for (const n of sizes.length > 0 ? sizes : [1000, 10000]) await measure(n);
