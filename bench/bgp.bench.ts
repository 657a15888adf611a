// bench/bgp: mlb's BGP convergence and withdrawal times, in network namespaces with FRR 8.4 as the router (a
// passive peer group, RFC 8212 policies, a /32-only prefix list, BFD 300 ms x 3).
//  1. 10,000 /32 prefixes, from the same starting line for both speakers: a session FRR sees Established and
//     idle (no routes yet). mlb's clock starts when the 10,000 services appear in its running daemon's file (the
//     path users run: the file watch, YAML, allocation, election, the speaker); GoBGP 3's when its injection of
//     the same set starts. Both end when the same FRR holds them all: its BGP table, then the kernel through
//     zebra (the kernel is the target's end point). GoBGP is loaded at its fastest: one MRT table dump through
//     `gobgp mrt inject global` (one gRPC stream for every route); the other way, one `gobgp global rib add`
//     process per route, is priced on the first trial (CLI_SAMPLE_ROUTES of them) and printed beside it.
//     Information, not held to a target: mlb from a daemon start with the 10,000 services already in its file
//     (the clock at the spawn, so it includes the session's set-up, which GoBGP's clock does not), and mlb's
//     speaker alone fed the routes directly once Established (bench/bgp/speaker-only.ts: no file, no allocation).
//  2. A crashed node's routes: the time until FRR drops them after the node's link goes down, with BFD (300 ms x 3)
//     against the 90 s hold time MetalLB's native speaker leaves a dead node's routes for.
// Targets: from the file edit no slower than GoBGP from its injection (kernel); withdrawal <= 1 s. Medians of
// BENCH_BGP_TRIALS (default 3). Run as root: node --expose-gc bench/run.mjs bgp   BENCH_BGP_PREFIXES (default 10,000).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NetnsLab, type LabHost } from '../test/support/netns-lab';
import { routerLabSkipReason, startFrr, waitFor, type FrrRouter } from '../test/support/routers';
import { startDaemon, type RunningDaemon } from '../test/daemon/run-daemon';
import { hostRoutes } from './bgp/mrt-table-dump';
import { printTable } from './gossip/lab-nodes';
import { speakerOnlyTrial } from './bgp/speaker-only';
import {
  CLI_SAMPLE_ROUTES,
  DEFAULT_PREFIXES,
  FIRST_PREFIX,
  gobgpBaseline,
  NODE_ASN,
  ROUTER_ASN,
  startBenchFrr,
  timeUntilFrrHolds,
} from './bgp/gobgp-baseline';

const PREFIXES = Number(process.env.BENCH_BGP_PREFIXES ?? DEFAULT_PREFIXES);
const TRIALS = Number(process.env.BENCH_BGP_TRIALS ?? 3);
/** MetalLB's native speaker's default hold time: how long a dead node's routes stay without BFD. */
const HOLD_TIME_MS = 90_000;
const WITHDRAW_TARGET_MS = 1_000;
const SESSION_TIMEOUT_MS = 30_000;
/** A daemon starting with 10,000 services reads them before it dials: up to a minute on a loaded machine. */
const START_SESSION_TIMEOUT_MS = 120_000;

function baseConfig(router: LabHost, bfd: boolean): string {
  return `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: bench, namespace: metallb-system }
spec: { addresses: [10.214.0.0/16] }
---
apiVersion: metallb.io/v1beta1
kind: BGPAdvertisement
metadata: { name: bench, namespace: metallb-system }
spec: { communities: ['65000:100'] }
---
apiVersion: metallb.io/v1beta1
kind: BFDProfile
metadata: { name: fast, namespace: metallb-system }
spec: { receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3 }
---
apiVersion: metallb.io/v1beta2
kind: BGPPeer
metadata: { name: router, namespace: metallb-system }
spec: { myASN: ${NODE_ASN}, peerASN: ${ROUTER_ASN}, peerAddress: ${router.ipv4}${bfd ? ', bfdProfile: fast' : ''} }
`;
}

function services(count: number): string {
  return hostRoutes(count, FIRST_PREFIX)
    .map(
      (prefix, i) => `---
apiVersion: v1
kind: Service
metadata: { name: s${i}, namespace: bench, annotations: { metallb.io/loadBalancerIPs: ${prefix.split('/')[0]} } }
spec: { type: LoadBalancer, ports: [{ port: 80, protocol: TCP }] }
`,
    )
    .join('');
}

interface MlbLab {
  readonly lab: NetnsLab;
  readonly node: LabHost;
  readonly frr: FrrRouter;
  readonly daemon: RunningDaemon;
  readonly configFile: string;
  /** Epoch ms just before the daemon was spawned. */
  readonly startedAt: number;
  close(): void;
}

async function mlbLab(bfd: boolean, initialServices: number, sessionTimeoutMs = SESSION_TIMEOUT_MS): Promise<MlbLab> {
  const lab = new NetnsLab();
  const dir = mkdtempSync(join(tmpdir(), 'mlb-bench-bgp-'));
  let frr: FrrRouter | undefined;
  let daemon: RunningDaemon | undefined;
  const close = () => {
    daemon?.child.kill('SIGKILL');
    frr?.stop();
    lab.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const node = lab.addHost('node1');
    const router = lab.addHost('router');
    frr = bfd
      ? await startFrr(lab, router, {
          asn: ROUTER_ASN,
          routerId: router.ipv4,
          prefixList32Only: true,
          neighbors: [{ address: node.ipv4, asn: NODE_ASN, bfdProfile: 'fast' }],
          bfd: { profile: 'fast', receiveMs: 300, transmitMs: 300, multiplier: 3 },
        })
      : await startBenchFrr(lab, router, [node.ipv4]);
    const configFile = join(dir, 'mlb.yaml');
    writeFileSync(configFile, baseConfig(router, bfd) + services(initialServices));
    const startedAt = Date.now();
    daemon = startDaemon(
      [
        '--config',
        configFile,
        '--node-name',
        'node1',
        '--gossip-bind',
        `${node.ipv4}:7946`,
        '--state-dir',
        join(dir, 'state'),
        '--control-socket',
        join(dir, 'mlb.sock'),
        '--log-level',
        'info',
      ],
      node.netns,
    );
    const f = frr;
    await waitFor("mlb's session with FRR", () => f.bgpSummary().peers.some((p) => p.established), sessionTimeoutMs);
    return { lab, node, frr, daemon, configFile, startedAt, close };
  } catch (error) {
    close();
    throw error;
  }
}

async function mlbTrial(): Promise<{ bgpMs: number; fibMs: number }> {
  const l = await mlbLab(false, 0);
  try {
    const text =
      baseConfig(
        l.lab.hosts.find((h) => h.name === 'router')!,
        false,
      ) + services(PREFIXES);
    const since = Date.now();
    writeFileSync(l.configFile, text);
    return await timeUntilFrrHolds(l.frr, PREFIXES, { since });
  } finally {
    l.close();
  }
}

/**
 * A daemon start with the services already in its file: the clock starts at the spawn (information: it includes
 * connecting and the OPEN exchange, which GoBGP's clock leaves out).
 */
async function mlbDaemonStartTrial(): Promise<{ bgpMs: number; fibMs: number }> {
  const l = await mlbLab(false, PREFIXES, START_SESSION_TIMEOUT_MS);
  try {
    return await timeUntilFrrHolds(l.frr, PREFIXES, { since: l.startedAt });
  } finally {
    l.close();
  }
}

async function withdrawalTrial(): Promise<number> {
  const l = await mlbLab(true, 1);
  try {
    await waitFor('the route in FRR', () => l.frr.zebraBgpCounts(4).fib >= 1, 20_000);
    await waitFor('BFD up', () => l.frr.bfdPeers().some((p) => p.status === 'up'), 20_000);
    const since = Date.now();
    l.lab.unplug(l.node);
    await waitFor('the route gone', () => l.frr.zebraBgpCounts(4).rib === 0, HOLD_TIME_MS + 10_000, 20);
    return Date.now() - since;
  } finally {
    l.close();
  }
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

interface Times {
  readonly bgpMs: number;
  readonly fibMs: number;
}

/** TRIALS runs, each printed as it ends (a later trial that fails leaves the earlier ones on record). */
async function trials(what: string, run: () => Promise<Times>): Promise<Times[]> {
  const out: Times[] = [];
  for (let i = 0; i < TRIALS; i++) {
    const t = await run();
    console.log(`${what}, trial ${i + 1}: FRR's BGP table ${t.bgpMs} ms, its kernel ${t.fibMs} ms (load ${loadavg()[0]!.toFixed(2)})`);
    out.push(t);
  }
  return out;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const medianOf = (ts: readonly Times[], key: keyof Times) => median(ts.map((t) => t[key]));
const all = (ts: readonly Times[]) => ts.map((t) => secs(t.fibMs)).join(', ');

async function main(): Promise<number> {
  const skip = routerLabSkipReason(['frr', 'gobgp']);
  if (skip) {
    console.log(`bench/bgp: skipped: ${skip}`);
    return 0;
  }
  const load0 = loadavg()[0]!;
  console.log(
    `bench/bgp: ${PREFIXES} /32 prefixes into FRR 8.4, ${TRIALS} trials each (medians); then BFD withdrawal; load average ${load0.toFixed(2)}`,
  );
  const gobgp = await gobgpBaseline(PREFIXES, TRIALS);
  console.log(`GoBGP from its MRT injection: kernel ${all(gobgp)}`);
  const edit = await trials('mlb from the file edit', mlbTrial);
  const start = await trials('mlb from a daemon start', mlbDaemonStartTrial);
  const speaker = await trials("mlb's speaker only", () => speakerOnlyTrial(PREFIXES));
  const withdrawals: number[] = [];
  for (let i = 0; i < TRIALS; i++) withdrawals.push(await withdrawalTrial());
  const g = { bgp: medianOf(gobgp, 'bgpMs'), fib: medianOf(gobgp, 'fibMs') };
  const w = median(withdrawals);
  const cli = gobgp.find((t) => t.cliMsPerRoute !== undefined)?.cliMsPerRoute;

  console.log(`
kernel times of every trial: GoBGP ${all(gobgp)}; mlb from the edit ${all(edit)}; from a start ${all(start)}; speaker only ${all(speaker)}`);
  if (cli !== undefined)
    console.log(
      `GoBGP's other way in, one \`gobgp global rib add\` per route: ${cli.toFixed(1)} ms per route (${CLI_SAMPLE_ROUTES} timed), ` +
        `~${secs(cli * PREFIXES)} for ${PREFIXES} before any BGP, against ${secs(g.fib)} in FRR's kernel by MRT injection: the bench injects`,
    );
  console.log('');
  const ratio = (m: number, b: number) => `${(m / b).toFixed(2)}x`;
  const rows: { what: string; mlb: number; base: number; baseText: string; target: string; ok: boolean | undefined }[] = [
    {
      what: `${PREFIXES} routes in FRR's kernel: mlb from the file edit, GoBGP from its MRT injection`,
      mlb: medianOf(edit, 'fibMs'),
      base: g.fib,
      baseText: secs(g.fib),
      target: '<= 1x',
      ok: medianOf(edit, 'fibMs') <= g.fib,
    },
    {
      what: `  the same, in FRR's BGP table (info)`,
      mlb: medianOf(edit, 'bgpMs'),
      base: g.bgp,
      baseText: secs(g.bgp),
      target: '-',
      ok: undefined,
    },
    {
      what: `mlb from a daemon start with them in the file, to FRR's kernel (info: includes the session set-up)`,
      mlb: medianOf(start, 'fibMs'),
      base: g.fib,
      baseText: secs(g.fib),
      target: '-',
      ok: undefined,
    },
    {
      what: `mlb's speaker only, fed the routes once Established, to FRR's kernel (info)`,
      mlb: medianOf(speaker, 'fibMs'),
      base: g.fib,
      baseText: secs(g.fib),
      target: '-',
      ok: undefined,
    },
    {
      what: `crashed node's route dropped by FRR: mlb with BFD 300 ms x 3, baseline MetalLB's 90 s hold time`,
      mlb: w,
      base: HOLD_TIME_MS,
      baseText: `${secs(HOLD_TIME_MS)} (hold time)`,
      target: `<= ${secs(WITHDRAW_TARGET_MS)}`,
      ok: w <= WITHDRAW_TARGET_MS,
    },
  ];
  printTable(
    ['what (medians)', 'mlb', 'baseline', 'ratio', 'target', 'ok'],
    rows.map((r) => [r.what, secs(r.mlb), r.baseText, ratio(r.mlb, r.base), r.target, r.ok === undefined ? '' : r.ok ? 'ok' : 'MISSED']),
  );
  console.log('  (from the file edit includes reading the 2 MB YAML of 10,000 Service documents with source positions)');
  console.log(`load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`);
  const ok = rows.every((r) => r.ok !== false);
  console.log(ok ? 'targets met' : 'TARGET MISSED');
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`bench/bgp: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
