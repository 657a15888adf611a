// bench/gossip-soak: does the fast profile stay quiet under stress? 3 `mlb daemon --gossip-profile fast
// --log-level debug` in a netns lab, for --minutes (default 10):
//   - node-c starved of CPU: its daemon is pinned to one CPU (taskset -c 1) together with --hogs (default 2)
//     busy-loop shells (`sh -c 'while :; do :; done'`) at nice -5, i.e. 3x node-c's CFS weight each, so node-c
//     gets about 1/7 of that CPU whenever it wants to run and waits behind the hogs at every wake-up.
//     node-a and node-b are pinned to CPU 0, away from the hogs.
//     Sessions: the kernel's autogroup scheduling (kernel.sched_autogroup_enabled=1 here) shares CPU between
//     sessions before tasks, and a session's weight on a CPU shrinks with the load it has on the others. So each
//     daemon and each hog runs in a session of its own (setsid), and each hog's session gets nice -5 too
//     (/proc/PID/autogroup): otherwise hogs sharing a session with node-a/node-b would starve those as well
//     (seen in a first version: node-a waited as long per wake-up as node-c).
//   - --loss percent (default 5) random loss on every host: nftables in each namespace, input hook,
//     `iifname eth0 counter` then `iifname eth0 numgen random mod 100 < 5 counter drop`.
// Evidence that the stress is real, printed at the end: the nft counters (packets in, dropped), the kernel's
// schedstat of each daemon's threads together (run-queue wait per wake-up, CPU used) and the probe round
// trips the daemons log (debug `probeAcked` rtt), each for a 20 s baseline without stress and for the soak.
// Counted during the soak: false suspicions (gossip debug lines with reason "suspect"; none of the nodes
// crashes, so every one is false), refutations, failed probes, false deaths (memberFailed) and false failovers
// (suspectConfirmed: the election gave up on a live node before its death). Exit 1 on any false suspicion,
// death or failover, on a daemon exiting, or when the measured loss is not near the configured one.
//
// --services N (default 0: examples/plain-host.yaml, not announced): the daemons read a file of N pinned services
// instead (bench/scale's, each host given an address in their subnet) and announce them: every node elects, binds
// and answers ARP for its share, so the soak runs with the decisions of a full node (a full recomputation at every
// membership change). The soak starts once every node binds and announces exactly its share; the daemons'
// slowDecision warnings (a decision held the event loop past the probe timeout, when peers may start suspecting)
// are counted and printed, and at the end every node must still hold its share. A client on the segment (no loss
// rule, no CPU pinning) asks ARP for random VIPs all along (bench/arp's generator, ARP_RATE a second), and the
// answers and losses are printed per phase.
//
// Not part of `npm run bench`. Run as root: node --import tsx bench/gossip-soak.ts [--minutes 10] [--loss 5] [--hogs 2] [--nice -5]
// [--profile fast|fast-failover] [--services N]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { FAST_CONFIG } from '../src/gossip/swim/config';
import {
  converged,
  destroyLab,
  fmtMs,
  installCleanup,
  newLab,
  preflight,
  printTable,
  quantile,
  sleep,
  startMlb,
  tempDir,
  type LabNode,
} from './gossip/lab-nodes';
import { MAX_SERVICES, scaleConfig, vipsOf, vipSubnetAddress } from './scale/scale-config';
import { ARP_TIMEOUT_MS, ArpLoad } from './scale/arp-load';
import { arpStats } from './scale/arp-samples';
import { sharesNotHeldBecause, waitForShares, type ControlledNode } from './scale/shares-reader';
import { describeShares, type Shares } from './scale/vip-shares';
import type { LabHost, NetnsLab } from '../test/support/netns-lab';

const TOOL = 'bench/gossip-soak';
const { values: flags } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    loss: { type: 'string', default: '5' },
    hogs: { type: 'string', default: '2' },
    nice: { type: 'string', default: '-5' },
    baseline: { type: 'string', default: '20' },
    profile: { type: 'string', default: 'fast' },
    services: { type: 'string', default: '0' },
  },
  strict: true,
});
const MINUTES = Number(flags.minutes);
const LOSS = Number(flags.loss);
const HOGS = Number(flags.hogs);
const NICE = Number(flags.nice);
const BASELINE_S = Number(flags.baseline);
const SERVICES = Number(flags.services);
/** fast (the plain-host default) or fast-failover (VIPs move at a confirmed suspicion: counted as false failovers). */
const PROFILE = flags.profile as 'fast' | 'fast-failover';
if (PROFILE !== 'fast' && PROFILE !== 'fast-failover') {
  console.error(`bench/gossip-soak: --profile must be fast or fast-failover, not ${flags.profile}`);
  process.exit(2);
}
if (![MINUTES, LOSS, HOGS, NICE, BASELINE_S].every(Number.isFinite) || MINUTES <= 0 || LOSS < 0 || LOSS > 100 || HOGS < 0) {
  console.error(`${TOOL}: bad arguments (--minutes > 0, --loss 0..100, --hogs >= 0, --nice N, --baseline seconds)`);
  process.exit(2);
}
if (!Number.isInteger(SERVICES) || SERVICES < 0 || SERVICES > MAX_SERVICES) {
  console.error(`${TOOL}: --services must be a whole number from 0 to ${MAX_SERVICES}, not ${flags.services}`);
  process.exit(2);
}
/**
 * Time for every node to hold its share after the start: one idle node binds 10,000 in about 9 s (docs/scale.md);
 * three daemons starting together on two cores, one of them beside nothing yet but the others, take longer.
 */
const SHARES_TIMEOUT_MS = 30_000 + SERVICES * 10;
/** Each look at the shares reads every node's status and `local` lists: every 500 ms keeps that a small load. */
const SHARES_POLL_MS = 500;
/** The client's ARP requests a second with services: a segment with clients, far below what costs a node CPU. */
const ARP_RATE = 100;
/** One generator run; each is counted in the phase it started in. */
const ARP_RUN_S = 5;
const HOG_CPU = 1;
const CALM_CPU = 0;
const STARVED = 'node-c';
const NFT_TABLE = 'mlbsoak';

type Phase = 'baseline' | 'soak';

/** Everything counted from the daemons' lines, per phase. */
class Tally {
  /** observer -> suspected -> suspect lines (the observer started or relayed a suspicion of that node). */
  readonly suspectLines = new Map<string, Map<string, number>>();
  /** Suspicions an observer started itself (from == observer): its own failed probe. */
  readonly suspicionsStarted = new Map<string, number>();
  readonly refutes = new Map<string, number>();
  readonly probeFailed = new Map<string, number>();
  readonly probeTcpOnly = new Map<string, number>();
  readonly suspicionTimeouts = new Map<string, number>();
  readonly deaths: string[] = [];
  readonly failovers: string[] = [];
  readonly rejoins: string[] = [];
  /** slowDecision warnings: the node that logged it and how long its decision held the event loop (ms). */
  readonly slowDecisions: { node: string; tookMs: number }[] = [];
  /** The client's ARP runs: latencies in µs (NaN: no answer). */
  readonly arpLatenciesUs: number[] = [];
  /** "observer>target" -> round trips (ms) of probes answered by the direct ping, before indirect pings went out. */
  readonly rtts = new Map<string, number[]>();
  /** "observer>target" -> probes answered only after indirect pings went out (the direct ping or its ack was late or lost). */
  readonly indirectAcks = new Map<string, number>();
  maxHealth = 0;

  static bump(map: Map<string, number>, key: string, by = 1): void {
    map.set(key, (map.get(key) ?? 0) + by);
  }

  total(map: Map<string, number>): number {
    return [...map.values()].reduce((a, b) => a + b, 0);
  }

  suspectLinesAbout(node: string): number {
    return [...this.suspectLines.values()].reduce((sum, m) => sum + (m.get(node) ?? 0), 0);
  }
}

const tallies: Record<Phase, Tally> = { baseline: new Tally(), soak: new Tally() };
let phase: Phase | 'setup' = 'setup';
/** slowDecision warnings before the baseline: the start, while every node binds its share. */
const setupSlowDecisions: Tally['slowDecisions'] = [];

/** How much of a prober's own story is printed beside a suspicion it started: a probe round and its extension. */
const STORY_MS = 1_500;
/** Each node's gossip lines of the last STORY_MS: what the prober saw before it suspected. */
const recentLines = new Map<string, Record<string, unknown>[]>();
/** Printed at the end: for each suspicion started, the prober's lines about the target before it. */
const stories: string[] = [];

function remember(node: LabNode, record: Record<string, unknown>): Record<string, unknown>[] {
  const lines = recentLines.get(node.name) ?? [];
  recentLines.set(node.name, lines);
  const now = typeof record.ts === 'string' ? Date.parse(record.ts) : Date.now();
  lines.push(record);
  while (lines.length > 0 && now - Date.parse(String(lines[0]!.ts)) > STORY_MS) lines.shift();
  return lines;
}

function story(node: LabNode, suspected: string, lines: Record<string, unknown>[]): string {
  const mentions = lines.filter((l) => JSON.stringify(l).includes(suspected));
  return [
    `${node.name} suspected ${suspected}; its lines about it in the ${STORY_MS} ms before:`,
    ...mentions.map(
      (l) =>
        `    ${String(l.ts)} ${String(l.reason ?? l.event)}: ${String(l.msg ?? '')} ${JSON.stringify(
          Object.fromEntries(
            Object.entries(l).filter(([k]) => !['ts', 'reason', 'event', 'msg', 'level', 'time', 'pid', 'hostname', 'node'].includes(k)),
          ),
        )}`,
    ),
  ].join('\n');
}

function observe(node: LabNode, record: Record<string, unknown>): void {
  if (record.event === 'slowDecision') {
    const slow = { node: node.name, tookMs: typeof record.tookMs === 'number' ? record.tookMs : NaN };
    (phase === 'setup' ? setupSlowDecisions : tallies[phase].slowDecisions).push(slow);
  }
  if (phase === 'setup') return;
  const tally = tallies[phase];
  const msg = typeof record.msg === 'string' ? record.msg : '';
  const recent = record.event === 'gossip' ? remember(node, record) : [];
  if (record.event === 'memberFailed') tally.deaths.push(`${node.name} declared ${String(record.member)} dead at ${String(record.ts)}`);
  // The election moved a live node's IPs away on a confirmed suspicion (src/daemon/suspect-owners.ts).
  if (record.event === 'suspectConfirmed') tally.failovers.push(`${node.name} gave up on ${String(record.member)} at ${String(record.ts)}`);
  if (record.event === 'memberJoined') tally.rejoins.push(`${node.name} saw ${String(record.member)} (re)join at ${String(record.ts)}`);
  if (record.event !== 'gossip') return;
  switch (record.reason) {
    case 'suspect': {
      const m = /^suspect (\S+) \(from: (\S+)\)/.exec(msg);
      if (!m) return;
      const [, suspected, from] = m as unknown as [string, string, string];
      if (!tally.suspectLines.has(node.name)) tally.suspectLines.set(node.name, new Map());
      Tally.bump(tally.suspectLines.get(node.name)!, suspected);
      if (from === node.name) {
        Tally.bump(tally.suspicionsStarted, `${node.name}>${suspected}`);
        if (phase === 'soak') stories.push(story(node, suspected, recent));
      }
      return;
    }
    case 'refute':
      Tally.bump(tally.refutes, node.name);
      return;
    case 'probeFailed':
      Tally.bump(tally.probeFailed, node.name);
      if (typeof record.health === 'number') tally.maxHealth = Math.max(tally.maxHealth, record.health);
      return;
    case 'probeTcpOnly':
      Tally.bump(tally.probeTcpOnly, node.name);
      return;
    case 'suspicionTimeout':
      Tally.bump(tally.suspicionTimeouts, node.name);
      return;
    case 'probeAcked': {
      const target = /^ack from (\S+)/.exec(msg)?.[1];
      if (!target || typeof record.rtt !== 'number') return;
      const key = `${node.name}>${target}`;
      if (record.indirect === true) {
        Tally.bump(tally.indirectAcks, key);
        return;
      }
      if (!tally.rtts.has(key)) tally.rtts.set(key, []);
      tally.rtts.get(key)!.push(record.rtt);
      return;
    }
    default:
  }
}

// ---- stress ----------------------------------------------------------------------------------------------------

function nft(lab: NetnsLab, host: LabHost, ...args: string[]): string {
  return lab.execIn(host, 'nft', args);
}

function addLoss(lab: NetnsLab, host: LabHost): void {
  nft(lab, host, 'add', 'table', 'inet', NFT_TABLE);
  nft(lab, host, 'add', 'chain', 'inet', NFT_TABLE, 'in', '{ type filter hook input priority 0; }');
  nft(lab, host, 'add', 'rule', 'inet', NFT_TABLE, 'in', 'iifname', 'eth0', 'counter');
  nft(
    lab,
    host,
    'add',
    'rule',
    'inet',
    NFT_TABLE,
    'in',
    'iifname',
    'eth0',
    'numgen',
    'random',
    'mod',
    '100',
    '<',
    String(LOSS),
    'counter',
    'drop',
  );
}

/** [packets that reached the input hook on eth0, packets the random rule dropped]. */
function lossCounters(lab: NetnsLab, host: LabHost): [number, number] {
  const text = nft(lab, host, 'list', 'chain', 'inet', NFT_TABLE, 'in');
  const counts = [...text.matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
  return [counts[0] ?? 0, counts[1] ?? 0];
}

/**
 * The kernel's scheduler statistics of a process, its threads together: ns on CPU, ns waiting in the run queue,
 * time slices. All threads, not the main one: the daemon answers probes on its gossip thread, and its main thread
 * may be idle (and so rarely wait) while that one waits behind the hogs.
 */
function schedstat(pid: number): { run: number; wait: number; slices: number } | undefined {
  try {
    const sum = { run: 0, wait: 0, slices: 0 };
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const [run, wait, slices] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
      sum.run += run!;
      sum.wait += wait!;
      sum.slices += slices!;
    }
    return sum;
  } catch {
    return undefined;
  }
}

type Sched = NonNullable<ReturnType<typeof schedstat>>;

function schedDelta(a: Sched | undefined, b: Sched | undefined, seconds: number) {
  if (!a || !b || b.slices === a.slices) return undefined;
  return {
    cpuPct: ((b.run - a.run) / 1e9 / seconds) * 100,
    waitPerSliceMs: (b.wait - a.wait) / 1e6 / (b.slices - a.slices),
    waitPct: ((b.wait - a.wait) / 1e9 / seconds) * 100,
  };
}

/** The nice value of the task's session (autogroup), when the kernel groups by session; else nothing to do. */
function setAutogroupNice(pid: number, nice: number): void {
  const file = `/proc/${pid}/autogroup`;
  if (!existsSync(file)) return;
  writeFileSync(file, String(nice));
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Sub-millisecond ARP answers, in ms with two decimals. */
const fmtUs = (us: number) => (Number.isFinite(us) ? `${(us / 1_000).toFixed(2)} ms` : '-');

/** "3 (node-a 1, node-b 0, node-c 2; longest 412 ms)": slowDecision warnings, per node. */
function describeSlow(slow: Tally['slowDecisions'], names: readonly string[]): string {
  const longest = Math.max(0, ...slow.map((s) => s.tookMs).filter(Number.isFinite));
  const perNode = names.map((n) => `${n} ${slow.filter((s) => s.node === n).length}`).join(', ');
  return `${slow.length} (${perNode}${slow.length > 0 ? `; longest ${fmtMs(longest)}` : ''})`;
}

// ---- main --------------------------------------------------------------------------------------------------------

function rttRow(label: string, key: string, p: Phase): string[] {
  const values = [...(tallies[p].rtts.get(key) ?? [])].sort((a, b) => a - b);
  const late = tallies[p].indirectAcks.get(key) ?? 0;
  return [
    label,
    p,
    String(values.length),
    fmtMs(quantile(values, 0.5)),
    fmtMs(quantile(values, 0.9)),
    fmtMs(quantile(values, 0.99)),
    fmtMs(values[values.length - 1] ?? NaN),
    `${late} (${((late / Math.max(1, late + values.length)) * 100).toFixed(1)}%)`,
  ];
}

async function main(): Promise<number> {
  preflight(TOOL);
  installCleanup(TOOL);
  const lab = newLab();
  const hosts = ['a', 'b', 'c'].map((n) => lab.addHost(n));
  const client = SERVICES > 0 ? lab.addHost('client') : undefined;
  const cpuOf = (name: string) => (name === STARVED ? HOG_CPU : CALM_CPU);
  // With services: their file, and every host in their subnet so the daemons answer for them on eth0.
  const servicesFile = SERVICES > 0 ? join(tempDir('mlb-soak-'), 'mlb.yaml') : undefined;
  if (servicesFile) {
    writeFileSync(servicesFile, scaleConfig(SERVICES));
    hosts.forEach((host, i) => lab.execIn(host, 'ip', ['addr', 'add', vipSubnetAddress(i + 1), 'dev', 'eth0']));
  }
  const start = (i: number, join: LabNode[]) =>
    startMlb(lab, hosts[i]!, `node-${hosts[i]!.name}`, {
      profile: PROFILE,
      logLevel: 'debug',
      join,
      cpu: cpuOf(`node-${hosts[i]!.name}`),
      ownSession: true,
      ...(servicesFile ? { config: servicesFile, announce: true } : {}),
    });
  const seed = start(0, []);
  await seed.until('ready', () => seed.first('ready') !== undefined, 20_000);
  const nodes = [seed, start(1, [seed]), start(2, [seed])];
  for (const n of nodes) n.onRecord = (r) => observe(n, r);
  await converged(nodes, 20_000);
  const controlled: ControlledNode[] = nodes.map((n) => ({ name: n.name, socket: n.controlSocket! }));
  let shares: Shares | undefined;
  if (SERVICES > 0) {
    const began = Date.now();
    shares = await waitForShares(vipsOf(SERVICES), controlled, {
      timeoutMs: SHARES_TIMEOUT_MS,
      pollMs: SHARES_POLL_MS,
      check: () => {
        const exited = nodes.find((n) => !n.running);
        if (exited) throw new Error(`${exited.describe()} exited while the nodes took their shares`);
      },
    });
    console.log(
      `${SERVICES} pinned services, each node binding and announcing its share (${describeShares(
        shares,
        nodes.map((n) => n.name),
      )}) ` +
        `${((Date.now() - began) / 1000).toFixed(1)} s after the three converged; slowDecision warnings so far: ${describeSlow(
          setupSlowDecisions,
          nodes.map((n) => n.name),
        )}`,
    );
  }
  const starved = nodes.find((n) => n.name === STARVED)!;
  // ARP from the client in runs, each counted in the phase it started in, until arpStop is set.
  let arpStop = false;
  const arpLoop = client
    ? (async () => {
        const load = await ArpLoad.start(lab, client, undefined);
        const vips = vipsOf(SERVICES);
        while (!arpStop) {
          const startedIn = phase;
          const run = await load.run(vips, ARP_RATE, ARP_RATE * ARP_RUN_S, { spin: false });
          if (startedIn !== 'setup') tallies[startedIn].arpLatenciesUs.push(...run.log.latUs);
        }
        load.stop();
      })().catch((error: Error) => console.error(`${TOOL}: the client's ARP load stopped: ${error.message}`))
    : undefined;
  console.log(`machine: ${cpus().length} CPUs, loadavg ${loadavg()} before the stress (other users' load included)`);
  console.log(
    `${TOOL}: 3 mlb daemons (profile ${PROFILE}, debug logs${SERVICES > 0 ? `, ${SERVICES} services announced` : ''}) in lab ${lab.id}; node-a, node-b on CPU ${CALM_CPU}, ${STARVED} on CPU ${HOG_CPU}`,
  );

  // Baseline: no loss, no hogs.
  phase = 'baseline';
  let sched0 = new Map(nodes.map((n) => [n.name, schedstat(n.pid)]));
  await sleep(BASELINE_S * 1000);
  const baselineSched = new Map(nodes.map((n) => [n.name, schedDelta(sched0.get(n.name), schedstat(n.pid), BASELINE_S)]));

  // Stress on.
  for (const host of hosts) addLoss(lab, host);
  const hogs = Array.from({ length: HOGS }, () =>
    lab.spawnIn(starved.host, 'nice', ['-n', String(NICE), 'taskset', '-c', String(HOG_CPU), 'sh', '-c', 'while :; do :; done'], {
      stdio: 'ignore',
      detached: true,
    }),
  );
  await sleep(200);
  for (const hog of hogs) {
    if (hog.exitCode !== null) throw new Error(`a CPU hog exited at once (code ${hog.exitCode}): cannot saturate CPU ${HOG_CPU}`);
    setAutogroupNice(hog.pid!, NICE);
  }
  console.log(
    `stress on: ${LOSS}% input loss on every host (nftables), ${HOGS} busy loops at nice ${NICE} pinned with ${STARVED} to CPU ${HOG_CPU}`,
  );
  console.log(`soaking ${MINUTES} min ...`);
  phase = 'soak';
  sched0 = new Map(nodes.map((n) => [n.name, schedstat(n.pid)]));
  const hogSched0 = hogs.map((h) => schedstat(h.pid!));
  const began = Date.now();
  const end = began + MINUTES * 60_000;
  let exited: string | undefined;
  while (Date.now() < end) {
    await sleep(Math.min(60_000, end - Date.now()));
    exited = nodes.find((n) => !n.running)?.describe();
    const t = tallies.soak;
    const [inSum, dropSum] = hosts.map((h) => lossCounters(lab, h)).reduce(([a, b], [c, d]) => [a + c, b + d], [0, 0]);
    console.log(
      `  ${((Date.now() - began) / 60_000).toFixed(1)} min: suspicions started ${t.total(t.suspicionsStarted)}, ` +
        `suspect lines ${[...t.suspectLines.values()].reduce((s, m) => s + [...m.values()].reduce((a, b) => a + b, 0), 0)}, ` +
        `refutes ${t.total(t.refutes)}, false deaths ${t.deaths.length}, ` +
        `${SERVICES > 0 ? `slowDecision ${t.slowDecisions.length}, ` : ''}loss ${((dropSum / Math.max(1, inSum)) * 100).toFixed(1)}% of ${inSum} packets, loadavg ${loadavg()}`,
    );
    if (exited) break;
  }
  const seconds = (Date.now() - began) / 1000;
  const soakSched = new Map(nodes.map((n) => [n.name, schedDelta(sched0.get(n.name), schedstat(n.pid), seconds)]));
  const hogSched = hogs.map((h, i) => schedDelta(hogSched0[i], schedstat(h.pid!), seconds));
  phase = 'setup';
  arpStop = true;
  await arpLoop;
  const loss = hosts.map((h) => ({ host: h, counters: lossCounters(lab, h) }));
  // Still every VIP bound and announced by its node, as at the start (no node died, so no share moved for good).
  const sharesAtEnd = shares && !exited ? await sharesNotHeldBecause(shares, controlled) : undefined;
  destroyLab(lab);

  // ---- report ----
  const t = tallies.soak;
  console.log(
    `\n== soak: ${(seconds / 60).toFixed(1)} min, profile ${PROFILE} (probe ${FAST_CONFIG.probeInterval} ms, timeout ${FAST_CONFIG.probeTimeout} ms, ` +
      `suspicion ${FAST_CONFIG.suspicionMult}x/${FAST_CONFIG.suspicionMaxTimeoutMult}x)\n`,
  );
  console.log('packet loss (nftables counters, input on eth0):');
  printTable(
    ['host', 'packets in', 'dropped', 'loss'],
    loss.map(({ host, counters: [seen, dropped] }) => [
      `node-${host.name}`,
      String(seen),
      String(dropped),
      `${((dropped / Math.max(1, seen)) * 100).toFixed(2)}%`,
    ]),
  );
  const seenAll = loss.reduce((s, l) => s + l.counters[0], 0);
  const droppedAll = loss.reduce((s, l) => s + l.counters[1], 0);
  const measuredLoss = (droppedAll / Math.max(1, seenAll)) * 100;
  console.log(`all: ${droppedAll} of ${seenAll} dropped = ${measuredLoss.toFixed(2)}% (configured ${LOSS}%)\n`);

  console.log(`CPU starvation (kernel schedstat of each daemon's event-loop thread; hogs: ${HOGS} x nice ${NICE} on CPU ${HOG_CPU}):`);
  const schedRows: string[][] = [];
  for (const n of nodes) {
    for (const [p, d] of [
      ['baseline', baselineSched.get(n.name)],
      ['soak', soakSched.get(n.name)],
    ] as const) {
      schedRows.push([
        n.name,
        p,
        d ? `${d.cpuPct.toFixed(2)}%` : '-',
        d ? `${d.waitPct.toFixed(2)}%` : '-',
        d ? `${d.waitPerSliceMs.toFixed(2)} ms` : '-',
      ]);
    }
  }
  hogSched.forEach((d, i) =>
    schedRows.push([
      `hog ${i + 1}`,
      'soak',
      d ? `${d.cpuPct.toFixed(1)}%` : '-',
      d ? `${d.waitPct.toFixed(2)}%` : '-',
      d ? `${d.waitPerSliceMs.toFixed(2)} ms` : '-',
    ]),
  );
  printTable(['process (all threads)', 'phase', 'CPU used', 'time runnable but waiting', 'wait per wake-up (mean)'], schedRows);

  console.log("\nprobe round trips (debug probeAcked rtt of direct acks, i.e. within the 100 ms probe timeout; both ends' scheduling");
  console.log('delay is in them; "after indirect" = acks that came only after indirect pings went out: late or lost direct ping/ack):');
  const pairs: [string, string][] = [
    ['node-a>node-c', 'a probes starved c'],
    ['node-b>node-c', 'b probes starved c'],
    ['node-c>node-a', 'starved c probes a'],
    ['node-c>node-b', 'starved c probes b'],
    ['node-a>node-b', 'a probes b'],
    ['node-b>node-a', 'b probes a'],
  ];
  printTable(
    ['pair', 'phase', 'direct acks', 'p50', 'p90', 'p99', 'max', 'after indirect'],
    pairs.flatMap(([key, label]) => [rttRow(`${key} (${label})`, key, 'baseline'), rttRow(`${key} (${label})`, key, 'soak')]),
  );

  console.log('\nsuspicions during the soak (nobody crashed: every one is false):');
  const names = nodes.map((n) => n.name);
  printTable(
    ['about', 'suspicions started (by a, b, c)', 'suspect lines (all nodes)', 'refutations by it'],
    names.map((about) => [
      about,
      names.map((o) => String(t.suspicionsStarted.get(`${o}>${about}`) ?? 0)).join(' / '),
      String(t.suspectLinesAbout(about)),
      String(t.refutes.get(about) ?? 0),
    ]),
  );
  console.log(
    `failed probes (a/b/c): ${names.map((n) => t.probeFailed.get(n) ?? 0).join(' / ')}; rescued by TCP ping only: ` +
      `${names.map((n) => t.probeTcpOnly.get(n) ?? 0).join(' / ')}; suspicion timeouts: ${t.total(t.suspicionTimeouts)}; max health score ${t.maxHealth}`,
  );
  console.log(
    `baseline (${BASELINE_S} s, no stress): suspicions started ${tallies.baseline.total(tallies.baseline.suspicionsStarted)}, false deaths ${tallies.baseline.deaths.length}`,
  );
  if (SERVICES > 0) {
    console.log(`\nARP from a client for random VIPs (${ARP_RATE}/s; lost: no answer within ${ARP_TIMEOUT_MS} ms):`);
    printTable(
      ['phase', 'requests', 'answered', 'lost', 'p50', 'p99'],
      (['baseline', 'soak'] as const).map((p) => {
        const a = arpStats(tallies[p].arpLatenciesUs, ARP_TIMEOUT_MS * 1_000);
        return [p, String(a.requests), String(a.answered), String(a.lost), fmtUs(a.p50Us), fmtUs(a.p99Us)];
      }),
    );
  }
  if (SERVICES > 0)
    console.log(
      `slowDecision warnings (a decision held the event loop past the ${FAST_CONFIG.probeTimeout} ms probe timeout): ` +
        `soak ${describeSlow(t.slowDecisions, names)}; baseline ${describeSlow(tallies.baseline.slowDecisions, names)}; ` +
        `start ${describeSlow(setupSlowDecisions, names)}`,
    );

  const starvedSoak = soakSched.get(STARVED);
  const calmSoak = soakSched.get('node-a');
  const starvedBase = baselineSched.get(STARVED);
  // Starved = waits per wake-up several times longer than before the stress and than a node away from the hogs.
  const starvedOk =
    starvedSoak &&
    calmSoak &&
    starvedBase &&
    starvedSoak.waitPerSliceMs > 3 * Math.max(0.05, calmSoak.waitPerSliceMs) &&
    starvedSoak.waitPerSliceMs > 3 * Math.max(0.05, starvedBase.waitPerSliceMs);
  const lossOk = LOSS === 0 || Math.abs(measuredLoss - LOSS) <= Math.max(1.5, LOSS * 0.3);
  const falseDeaths = t.deaths.length + tallies.baseline.deaths.length;
  const falseFailovers = t.failovers.length + tallies.baseline.failovers.length;
  console.log('');
  printTable(
    ['result', 'value', ''],
    [
      [
        'false suspicions (started)',
        String(t.total(t.suspicionsStarted)),
        t.total(t.suspicionsStarted) === 0 ? 'ok' : 'FAILED (the target: none in 10 minutes)',
      ],
      [
        'false suspect lines (all nodes)',
        String([...t.suspectLines.values()].reduce((s, m) => s + [...m.values()].reduce((a, b) => a + b, 0), 0)),
        '',
      ],
      ['false deaths', String(falseDeaths), falseDeaths === 0 ? 'ok' : 'FAILED'],
      ['false failovers (confirmed suspicions of a silent node)', String(falseFailovers), falseFailovers === 0 ? 'ok' : 'FAILED'],
      ['measured loss', `${measuredLoss.toFixed(2)}%`, lossOk ? 'ok' : 'FAILED (the loss rule is not doing its job)'],
      [
        `${STARVED} starved (wait per wake-up: soak / its baseline / node-a soak)`,
        starvedSoak && calmSoak && starvedBase
          ? `${starvedSoak.waitPerSliceMs.toFixed(2)} / ${starvedBase.waitPerSliceMs.toFixed(2)} / ${calmSoak.waitPerSliceMs.toFixed(2)} ms`
          : '-',
        starvedOk ? 'ok' : 'WARNING: not clearly starved',
      ],
      ['daemons alive to the end', exited ? `no: ${exited}` : 'yes', exited ? 'FAILED' : 'ok'],
      ...(SERVICES > 0
        ? [
            ['slowDecision warnings during the soak', String(t.slowDecisions.length), ''],
            [
              `every node still binds and announces its share of the ${SERVICES} services`,
              exited ? '-' : (sharesAtEnd ?? 'yes'),
              exited || sharesAtEnd ? 'FAILED' : 'ok',
            ],
          ]
        : []),
    ],
  );
  for (const d of [...tallies.baseline.deaths, ...t.deaths]) console.log(`  false death: ${d}`);
  for (const f of [...tallies.baseline.failovers, ...t.failovers]) console.log(`  false failover: ${f}`);
  for (const r of t.rejoins) console.log(`  rejoin: ${r}`);
  for (const s of stories) console.log(`\n${s}`);
  const falseSuspicions = t.total(t.suspicionsStarted) + tallies.baseline.total(tallies.baseline.suspicionsStarted);
  return falseSuspicions === 0 && falseDeaths === 0 && falseFailovers === 0 && lossOk && !exited && !sharesAtEnd ? 0 : 1;
}

process.exitCode = await main();
