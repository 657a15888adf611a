// ARP reply latency and loss of the REAL daemon (`node dist/mlb.mjs daemon`) holding 1, 1,000 or 10,000 VIPs,
// against the node's kernel answering for its own address, from a client namespace (bench/arp/generator.ts's
// paced sender and matcher). Not a one-VIP test runner: the daemon runs everything it runs in production (the
// election, the VIP binding on mlb0, the self-check, gossip, the control socket), single node, layer 2.
//
// Lab: a NetnsLab with client (10.213.0.1) and node (10.213.0.2) on one bridge; the node's eth0 also holds
// 10.214.255.254/16, the subnet of the VIPs (10.214.1.0 upwards, one pinned Service each), so the daemon picks eth0
// for them as an operator's host would. Once the daemon answers for the last VIP (every one is bound and announced),
// the kernel and mlb are measured one after the other at `rate` for `seconds`, mlb's requests spread at random over
// every VIP it holds (bench/arp.bench.ts drives the lab itself: startDaemonArpLab). `addWhileMeasuring`: that many Services are appended to the file just before mlb's run, so the run
// overlaps a reload binding them (the VIPs held before must still be answered meanwhile).
//
// Use from another bench:  import { measureDaemonArp, startDaemonArpLab } from './arp/daemon-arp';
//                          const r = await measureDaemonArp({ vips: 10_000, rate: 10_000, seconds: 3 });
// Or run it:               sudo LAB_NETNS_PREFIX=mine node --import tsx bench/arp/daemon-arp.ts 1,1000,10000 [rate] [seconds] [addWhileMeasuring]
// BENCH_ARP_CLI=/path/to/other/dist/mlb.mjs measures another build. Needs root, `npm run build` and the addon.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../test/support/netns-lab';
import { destroyLab, MLB_CLI, newLab, quantile, REPO_ROOT, sleep, tempDir } from '../gossip/lab-nodes';
import { JsonChild } from './json-child';

const GENERATOR = fileURLToPath(new URL('./generator.ts', import.meta.url));
/** A request without a reply within this is lost (bench/arp.bench.ts's rule). */
const TIMEOUT_MS = 100;
/** The VIPs' subnet, outside the lab's 10.213.0.0/24; the node's eth0 gets an address in it. */
const VIP_SUBNET_ADDRESS = '10.214.255.254/16';
/** Binding 10,000 VIPs took minutes before netlink batching: the wait for the last VIP's first answer. */
const READY_TIMEOUT_MS = 600_000;
const READY_POLL_MS = 500;
/** How much of the daemon's output is kept to explain a start that never answers. */
const STDERR_KEPT = 4_000;

export interface DaemonArpOptions {
  readonly vips: number;
  /** Requests per second, for both the kernel and mlb. */
  readonly rate: number;
  readonly seconds: number;
  /** Services appended to the file right before mlb's run (a reload binding them during the run); 0 by default. */
  readonly addWhileMeasuring?: number;
  /** CPUs for the generator and the daemon (taskset), as bench/arp pins them; unpinned by default. */
  readonly cpus?: readonly [number, number];
  readonly log?: (line: string) => void;
  /** Another build of mlb to measure (an older dist/mlb.mjs, for a before/after); this tree's by default. */
  readonly cli?: string;
}

export interface ArpRun {
  readonly target: string;
  readonly sent: number;
  readonly replies: number;
  readonly lost: number;
  readonly duplicates: number;
  readonly achievedRate: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly maxUs: number;
}

export interface DaemonArpResult {
  readonly vips: number;
  readonly rate: number;
  /** Daemon start -> the last VIP's first ARP answer. */
  readonly readyMs: number;
  readonly kernel: ArpRun;
  readonly mlb: ArpRun;
  /** mlb p50 / kernel p50. */
  readonly p50Ratio: number;
}

/** The i-th VIP (0-based): 10.214.1.0 upwards, clear of the subnet's first and last addresses. */
export function vipAddress(i: number): string {
  const n = 256 + i;
  return `10.214.${n >> 8}.${n & 0xff}`;
}

/** One pool over the VIP subnet, an L2Advertisement, and `count` Services pinned to vipAddress(from ...). */
export function daemonArpConfig(count: number): string {
  const parts = [
    `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: bench, namespace: metallb-system }
spec:
  addresses: [10.214.1.0-10.214.254.255]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: bench, namespace: metallb-system }
`,
  ];
  for (let i = 0; i < count; i++) {
    parts.push(`apiVersion: v1
kind: Service
metadata:
  name: s${i}
  namespace: bench
  annotations: { metallb.io/loadBalancerIPs: ${vipAddress(i)} }
spec:
  type: LoadBalancer
  ports: [{ port: 80, protocol: TCP }]
`);
  }
  return parts.join('---\n');
}

export interface GeneratorRun {
  /** The address asked for, or "N addresses". */
  readonly target: string;
  readonly sent: number;
  readonly count: number;
  readonly replies: number;
  readonly duplicates: number;
  readonly achievedRate: number;
  readonly lagP99Us: number;
  readonly latUs: number[];
}

/** `count` requests at `rate`, each for one of `targets` (random). */
async function run(generator: JsonChild, targets: readonly string[], rate: number, count: number, tag: number): Promise<GeneratorRun> {
  const expected = (count / rate) * 1000 + TIMEOUT_MS;
  return (await generator.call(
    { op: 'run', targets, rate, count, timeoutMs: TIMEOUT_MS, tag },
    expected * 3 + 10_000,
  )) as unknown as GeneratorRun;
}

function summarize(r: GeneratorRun): ArpRun {
  const sorted = Array.from(Float64Array.from(r.latUs).sort());
  return {
    target: r.target,
    sent: r.sent,
    replies: r.replies,
    lost: r.count - r.replies,
    duplicates: r.duplicates,
    achievedRate: r.achievedRate,
    p50Us: quantile(sorted, 0.5),
    p99Us: quantile(sorted, 0.99),
    maxUs: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}

/** The daemon's process: its exit (if any) and the end of its stderr, for a start that never answers. */
interface DaemonProcess {
  readonly exitCode: () => number | null;
  readonly stderrTail: () => string;
}

function startDaemon(lab: NetnsLab, node: LabHost, configFile: string, cli: string, cpu: number | undefined): DaemonProcess {
  const state = tempDir('mlb-bench-arp-');
  const args = [
    cli,
    'daemon',
    '--config',
    configFile,
    '--node-name',
    'node',
    '--gossip-bind',
    `${node.ipv4}:7946`,
    '--state-dir',
    state,
    '--control-socket',
    join(state, 'mlb.sock'),
    '--log-level',
    'warn',
  ];
  const [command, argv] = cpu === undefined ? [process.execPath, args] : ['taskset', ['-c', String(cpu), process.execPath, ...args]];
  const child = lab.spawnIn(node, command, argv, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let tail = '';
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-STDERR_KEPT));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { exitCode: () => child.exitCode, stderrTail: () => tail };
}

/** A lab whose daemon answers for every VIP it was started with; measure the kernel and mlb, then close(). */
export interface DaemonArpLab {
  readonly vips: number;
  /** Daemon start -> the last VIP's first ARP answer. */
  readonly readyMs: number;
  /** `count` requests at `rate` for the node kernel's own address. */
  kernel(rate: number, count: number): Promise<GeneratorRun>;
  /** `count` requests at `rate`, each for one of the VIPs the daemon holds (picked at random by the generator). */
  mlb(rate: number, count: number): Promise<GeneratorRun>;
  /** Appends `more` Services to the daemon's file (a reload binding them). */
  addServices(more: number): void;
  close(): void;
}

/** Builds a lab and starts the daemon with `vips` VIPs; resolves once it answers for the last one. */
export async function startDaemonArpLab(options: Omit<DaemonArpOptions, 'rate' | 'seconds' | 'addWhileMeasuring'>): Promise<DaemonArpLab> {
  const { vips, cpus, log = () => {}, cli = MLB_CLI } = options;
  const lab = newLab();
  try {
    const client = lab.addHost('client');
    const node = lab.addHost('node');
    lab.execIn(node, 'ip', ['addr', 'add', VIP_SUBNET_ADDRESS, 'dev', 'eth0']);
    const generator = await JsonChild.start(lab, client, 'generator', GENERATOR, cpus ? { cpu: cpus[0] } : {});
    const configFile = join(tempDir('mlb-bench-arp-config-'), 'mlb.yaml');
    writeFileSync(configFile, daemonArpConfig(vips));
    const started = Date.now();
    const daemon = startDaemon(lab, node, configFile, cli, cpus?.[1]);
    let tag = 0;
    const nextTag = () => (tag = (tag + 1) & 0xff);
    const last = vipAddress(vips - 1);
    for (;;) {
      const probe = await run(generator, [last], 100, 3, nextTag());
      if (probe.replies > 0) break;
      if (daemon.exitCode() !== null) throw new Error(`the daemon exited (${daemon.exitCode()}): ${daemon.stderrTail()}`);
      if (Date.now() - started > READY_TIMEOUT_MS)
        throw new Error(`the daemon did not answer for ${last} within ${READY_TIMEOUT_MS} ms: ${daemon.stderrTail()}`);
      await sleep(READY_POLL_MS);
    }
    const readyMs = Date.now() - started;
    log(`daemon with ${vips} VIPs answers for the last one after ${readyMs} ms`);
    const held = Array.from({ length: vips }, (_, i) => vipAddress(i));
    return {
      vips,
      readyMs,
      kernel: (rate, count) => run(generator, [node.ipv4], rate, count, nextTag()),
      mlb: (rate, count) => run(generator, held, rate, count, nextTag()),
      addServices: (more) => writeFileSync(configFile, daemonArpConfig(vips + more)),
      close: () => destroyLab(lab),
    };
  } catch (error) {
    destroyLab(lab);
    throw error;
  }
}

/** Starts a lab (startDaemonArpLab), measures the kernel then mlb once each; tears everything down. */
export async function measureDaemonArp(options: DaemonArpOptions): Promise<DaemonArpResult> {
  const { rate, seconds, addWhileMeasuring = 0 } = options;
  const lab = await startDaemonArpLab(options);
  try {
    const count = Math.round(rate * seconds);
    // Warm-up (the generator's JIT, the bridge's MAC table), discarded.
    await lab.kernel(rate, Math.min(count, rate));
    await lab.mlb(rate, Math.min(count, rate));
    const kernel = summarize(await lab.kernel(rate, count));
    if (addWhileMeasuring > 0) lab.addServices(addWhileMeasuring);
    const mlb = summarize(await lab.mlb(rate, count));
    return { vips: lab.vips, rate, readyMs: lab.readyMs, kernel, mlb, p50Ratio: mlb.p50Us / kernel.p50Us };
  } finally {
    lab.close();
  }
}

function fmtUs(us: number): string {
  if (!Number.isFinite(us)) return '-';
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`;
}

async function main(): Promise<void> {
  const [sizes = '1,1000,10000', rate = '10000', seconds = '3', add = '0'] = process.argv.slice(2);
  const { installCleanup } = await import('../gossip/lab-nodes');
  installCleanup('bench/arp/daemon-arp');
  console.log('VIPs | readiness | who | sent | replies | lost | dup | p50 | p99 | max | p50/kernel');
  for (const vips of sizes.split(',').map(Number)) {
    const r = await measureDaemonArp({
      vips,
      rate: Number(rate),
      seconds: Number(seconds),
      addWhileMeasuring: Number(add),
      log: (l) => console.error(l),
      ...(process.env.BENCH_ARP_CLI ? { cli: process.env.BENCH_ARP_CLI } : {}),
    });
    for (const [who, x] of [
      ['kernel', r.kernel],
      ['mlb', r.mlb],
    ] as const) {
      console.log(
        `${vips} | ${(r.readyMs / 1000).toFixed(1)} s | ${who} ${x.target} | ${x.sent} | ${x.replies} | ${x.lost} | ${x.duplicates} | ` +
          `${fmtUs(x.p50Us)} | ${fmtUs(x.p99Us)} | ${fmtUs(x.maxUs)} | ${who === 'mlb' ? `${r.p50Ratio.toFixed(2)}x` : ''}`,
      );
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
