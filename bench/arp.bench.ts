// bench/arp: ARP reply latency and loss of mlb's L2 announcer against the Linux kernel answering for its own
// address (the physical reference), from a client namespace, at 1,000 and 10,000 requests/s.
//
// Lab: a NetnsLab with two hosts on one bridge, client (10.213.0.1) and node (10.213.0.2). On the node, mlb's
// L2Announcer (test/announce/l2/announcer-runner.ts, the L2 lab tests' runner) announces VIP A = 10.213.0.200 on
// eth0, an address no kernel owns; the node's kernel owns K = 10.213.0.2 (its eth0 address) and answers for it.
// On the client, bench/arp/generator.ts sends broadcast ARP requests from a packet socket at a fixed rate, each
// identified by its sender hardware address (echoed in the reply), and times each reply in the same process.
//
// Before measuring: the kernel answers K (once per request, from the node's MAC), nobody answers A until mlb
// announces it, then exactly one reply per request for A, from the node's MAC (the kernel stays silent for A:
// A is on no interface, so arp_ignore's default does not matter). During the runs, a second reply to any
// request (duplicates) would show a second responder.
//
// Runs alternate kernel and mlb at each rate (kernel 1k, mlb 1k, kernel 10k, mlb 10k), ROUNDS times, one at a
// time. Targets, on the rounds pooled: mlb p50 <= 2x the kernel's, mlb p99 <= 1 ms, no loss at 10k/s (a request
// without a reply within 100 ms is lost). Exits 1 when a target is missed, 2 without root or the addon. When the
// machine is overloaded (load average above the core count, CPU steal, or the generator could not hold the rate)
// it says so next to the verdict.
// Run: npm run bench  (or node --expose-gc bench/run.mjs arp); root only.
// BENCH_ARP_SECONDS=s per run (default 4), BENCH_ARP_ROUNDS=n (default 2), BENCH_ARP_RATES=1000,10000.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { nativeAddonStatus } from '../src/native';
import { canUseNetns, type LabHost, type NetnsLab } from '../test/support/netns-lab';
import { JsonChild } from './arp/json-child';
import { destroyLab, installCleanup, newLab, printTable, quantile, sleep } from './gossip/lab-nodes';

const SECONDS = Number(process.env.BENCH_ARP_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ARP_ROUNDS ?? 2);
const RATES = (process.env.BENCH_ARP_RATES ?? '1000,10000').split(',').map(Number);
const TIMEOUT_MS = 100;
const VIP = '10.213.0.200';
/** Answered by bench/arp/floor-responder.ts (informational: the cost of any Node responder on the addon). */
const FLOOR_IP = '10.213.0.201';
const TARGET_P50_RATIO = 2;
const TARGET_P99_US = 1000;
const LOSS_FREE_RATE = 10_000;
/** The generator holds the rate when it reaches this share of it. */
const RATE_TOLERANCE = 0.95;
/** The gratuitous schedule (a burst now, every 1.1 s until 5 s after the change) is over by then. */
const GRATUITOUS_QUIET_MS = 5_600;

const GENERATOR = fileURLToPath(new URL('./arp/generator.ts', import.meta.url));
const ANNOUNCER = fileURLToPath(new URL('../test/announce/l2/announcer-runner.ts', import.meta.url));
const FLOOR = fileURLToPath(new URL('./arp/floor-responder.ts', import.meta.url));
const CORES = cpus().length;
/**
 * CPUs for the generator and the announcer (BENCH_ARP_PIN=0,1; 'off' lets the scheduler place them). Pinned apart by
 * default on a multi-core machine: the client and the node are two machines in the real world, and the generator
 * spins on its core (see generator.ts), so a scheduler that wakes the announcer on the generator's core (it is the
 * waker: the request's softirq runs there) would measure the two processes' contention, not mlb's path.
 */
const PIN =
  (process.env.BENCH_ARP_PIN ?? (CORES >= 2 ? '0,1' : 'off')) === 'off'
    ? undefined
    : ((process.env.BENCH_ARP_PIN ?? '0,1').split(',').map(Number) as [number, number]);

type Who = 'kernel' | 'mlb' | 'floor';
const WHO: readonly Who[] = ['kernel', 'mlb', 'floor'];

interface RunResult {
  readonly target: string;
  readonly rate: number;
  readonly count: number;
  readonly sent: number;
  readonly achievedRate: number;
  readonly queueFull: number;
  readonly biggestBatch: number;
  readonly lagP99Us: number;
  readonly lagMaxUs: number;
  readonly cpuMs: number;
  readonly sendMs: number;
  readonly replies: number;
  readonly late: number;
  readonly duplicates: number;
  readonly stray: number;
  readonly repliers: Record<string, number>;
  readonly latUs: number[];
}

interface Machine {
  readonly load1: number;
  readonly busyPct: number;
  /** CPU used by everything but the generator and the responders (and the kernel work they cause), % of the machine. */
  readonly othersPct: number;
  readonly stealPct: number;
}

interface Run {
  readonly round: number;
  readonly who: Who;
  readonly result: RunResult;
  readonly machine: Machine;
  /** mlb's own counters over the run (mlb runs only). */
  readonly mlb?: { requests: number; responses: number; sendFailures: number; drops: Record<string, number> };
  /** The responder's garbage collections during the run (mlb and floor runs). */
  readonly gc?: { count: number; totalMs: number; maxMs: number; maxKind: string; major: number };
}

function refuse(why: string): never {
  console.error(`bench/arp: ${why}`);
  process.exit(2);
}

/** The aggregate `cpu` line of /proc/stat: [busy, steal, total] jiffies. */
function cpuTimes(): [number, number, number] {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const busy = user + nice + system + irq + softirq;
  return [busy, steal, busy + steal + idle + iowait];
}

/** utime + stime (jiffies) of these processes (/proc/PID/stat fields 14 and 15). */
function processJiffies(pids: readonly number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      sum += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return sum;
}

function fmtUs(us: number): string {
  if (!Number.isFinite(us)) return '-';
  if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`;
  return `${us.toFixed(us < 10 ? 1 : 0)} µs`;
}

function latencyStats(latUs: readonly number[]): { p50: number; p99: number; max: number } {
  const sorted = Array.from(Float64Array.from(latUs).sort());
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.length ? sorted[sorted.length - 1]! : NaN };
}

function lossOf(r: RunResult): number {
  return r.count - r.replies;
}

async function announcerCounters(
  announcer: JsonChild,
): Promise<{ requests: number; responses: number; sendFailures: number; drops: Record<string, number> }> {
  const reply = await announcer.call({ op: 'stats' });
  const stats = reply.stats as {
    requestsReceived: Record<string, number>;
    responsesSent: Record<string, number>;
    sendFailures: number;
    drops: Record<string, number>;
  };
  return {
    requests: stats.requestsReceived[VIP] ?? 0,
    responses: stats.responsesSent[VIP] ?? 0,
    sendFailures: stats.sendFailures,
    drops: stats.drops,
  };
}

async function measure(generator: JsonChild, target: string, rate: number, count: number, tag: number): Promise<RunResult> {
  const expected = (count / rate) * 1000 + TIMEOUT_MS;
  const reply = await generator.call({ op: 'run', target, rate, count, timeoutMs: TIMEOUT_MS, tag }, expected * 3 + 10_000);
  return reply as unknown as RunResult;
}

let tag = 0;
const nextTag = () => (tag = (tag + 1) & 0xff);

/** A short, slow probe: who answers for `target`, how often. */
async function probe(generator: JsonChild, target: string): Promise<RunResult> {
  return measure(generator, target, 200, 20, nextTag());
}

function describeRepliers(r: RunResult): string {
  const entries = Object.entries(r.repliers);
  return entries.length ? entries.map(([mac, n]) => `${mac} x${n}`).join(', ') : 'nobody';
}

async function preflightChecks(generator: JsonChild, announcer: JsonChild, node: LabHost): Promise<string[]> {
  const problems: string[] = [];
  const before = await probe(generator, VIP);
  console.log(
    `check: ${VIP} (A) before mlb announces it: ${before.replies}/${before.count} replies (${describeRepliers(before)}); expected none`,
  );
  if (before.replies + before.late + before.duplicates > 0)
    problems.push(`something answers ${VIP} before mlb announces it: ${describeRepliers(before)}`);

  const kernel = await probe(generator, node.ipv4);
  console.log(`check: ${node.ipv4} (K, the node's kernel): ${kernel.replies}/${kernel.count} replies (${describeRepliers(kernel)})`);
  if (kernel.replies !== kernel.count || kernel.duplicates > 0 || Object.keys(kernel.repliers).some((m) => m !== node.mac)) {
    problems.push(`the kernel should answer ${node.ipv4} once per request from ${node.mac}: ${describeRepliers(kernel)}`);
  }

  await announcer.call({ op: 'reconcile', desired: [{ ip: VIP, interfaces: ['eth0'] }] });
  const mlb = await probe(generator, VIP);
  console.log(`check: ${VIP} (A) announced by mlb: ${mlb.replies}/${mlb.count} replies (${describeRepliers(mlb)})`);
  if (mlb.replies !== mlb.count || mlb.duplicates > 0 || Object.keys(mlb.repliers).some((m) => m !== node.mac)) {
    problems.push(`mlb should answer ${VIP} once per request from ${node.mac}: ${describeRepliers(mlb)}`);
  }
  const counters = await announcerCounters(announcer);
  if (counters.responses !== mlb.count) problems.push(`mlb counted ${counters.responses} replies for ${VIP}, the probe ${mlb.count}`);
  return problems;
}

async function main(lab: NetnsLab): Promise<number> {
  const client = lab.addHost('client');
  const node = lab.addHost('node');
  const [generator, announcer, floor] = await Promise.all([
    JsonChild.start(lab, client, 'generator', GENERATOR, { cpu: PIN?.[0] }),
    JsonChild.start(lab, node, 'announcer', ANNOUNCER, { cpu: PIN?.[1], traceGc: true }),
    JsonChild.start(lab, node, 'floor responder', FLOOR, { cpu: PIN?.[1], args: [FLOOR_IP], traceGc: true }),
  ]);
  const who: Record<Who, string> = { kernel: node.ipv4, mlb: VIP, floor: FLOOR_IP };
  const responder: Partial<Record<Who, JsonChild>> = { mlb: announcer, floor };
  const ourPids = [generator.pid, announcer.pid, floor.pid].filter((pid): pid is number => pid !== undefined);
  console.log(
    `arp: client ${client.ipv4} (${client.mac}) -> node ${node.ipv4} (${node.mac}) over a bridge, node ${process.version}, ${CORES} cores`,
  );
  console.log(
    `kernel reference K = ${node.ipv4} (node eth0); mlb VIP A = ${VIP} (on no interface); broadcast requests, unique sender MAC each;`,
  );
  console.log(
    `a request without a reply within ${TIMEOUT_MS} ms is lost. ${ROUNDS} rounds x rates ${RATES.join(', ')}/s x ${SECONDS} s, kernel and mlb alternating.`,
  );
  console.log(
    PIN
      ? `generator pinned to CPU ${PIN[0]}, announcer to CPU ${PIN[1]} (BENCH_ARP_PIN=off to let the scheduler place them)\n`
      : 'generator and announcer not pinned\n',
  );

  const problems = await preflightChecks(generator, announcer, node);
  const floorProbe = await probe(generator, FLOOR_IP);
  console.log(
    `check: ${FLOOR_IP} (F, the floor responder): ${floorProbe.replies}/${floorProbe.count} replies (${describeRepliers(floorProbe)})`,
  );
  if (floorProbe.replies !== floorProbe.count || floorProbe.duplicates > 0)
    problems.push(`the floor responder should answer ${FLOOR_IP} once per request: ${describeRepliers(floorProbe)}`);
  if (problems.length) {
    for (const p of problems) console.error(`bench/arp: ${p}`);
    return 1;
  }
  const announcedAt = Date.now();
  // Warm-up (JIT on both sides), discarded; then let the gratuitous schedule finish.
  for (const w of WHO) await measure(generator, who[w], Math.max(...RATES), Math.max(...RATES), nextTag());
  await sleep(Math.max(0, GRATUITOUS_QUIET_MS - (Date.now() - announcedAt)));
  console.log('');

  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const rate of RATES) {
      for (const w of WHO) {
        const load1 = loadavg()[0]!;
        const cpu0 = cpuTimes();
        const ours0 = processJiffies(ourPids);
        const before = w === 'mlb' ? await announcerCounters(announcer) : undefined;
        const gcBefore = responder[w]?.gcPauses.length ?? 0;
        const result = await measure(generator, who[w], rate, Math.round(rate * SECONDS), nextTag());
        const after = w === 'mlb' ? await announcerCounters(announcer) : undefined;
        const cpu1 = cpuTimes();
        const ours = processJiffies(ourPids) - ours0;
        const total = Math.max(1, cpu1[2] - cpu0[2]);
        const machine: Machine = {
          load1: Math.max(load1, loadavg()[0]!),
          busyPct: (100 * (cpu1[0] - cpu0[0])) / total,
          othersPct: Math.max(0, (100 * (cpu1[0] - cpu0[0] - ours)) / total),
          stealPct: (100 * (cpu1[1] - cpu0[1])) / total,
        };
        const mlb =
          before && after
            ? {
                requests: after.requests - before.requests,
                responses: after.responses - before.responses,
                sendFailures: after.sendFailures - before.sendFailures,
                drops: Object.fromEntries(
                  Object.entries(after.drops)
                    .map(([k, v]) => [k, v - (before.drops[k] ?? 0)])
                    .filter(([, v]) => (v as number) > 0),
                ),
              }
            : undefined;
        const seen = responder[w]?.gcPauses.slice(gcBefore);
        const worst = seen?.reduce((a, b) => (b.ms > a.ms ? b : a), { kind: '-', ms: 0 });
        const gc =
          seen && worst
            ? {
                count: seen.length,
                totalMs: seen.reduce((a, b) => a + b.ms, 0),
                maxMs: worst.ms,
                maxKind: worst.kind,
                major: seen.filter((g) => !g.kind.startsWith('Scavenge')).length,
              }
            : undefined;
        runs.push({ round, who: w, result, machine, ...(mlb ? { mlb } : {}), ...(gc ? { gc } : {}) });
        const s = latencyStats(result.latUs);
        console.log(
          `round ${round} ${String(rate).padStart(5)}/s ${w.padEnd(6)} sent ${result.sent} at ${Math.round(result.achievedRate)}/s, ` +
            `${result.replies} replies, p50 ${fmtUs(s.p50)} p99 ${fmtUs(s.p99)} max ${fmtUs(s.max)}` +
            `${mlb ? `; mlb saw ${mlb.requests} requests, sent ${mlb.responses} replies, ${mlb.sendFailures} send failures` : ''}` +
            `${gc ? `; ${gc.count} GCs in the responder (${gc.major} major), longest pause ${gc.maxMs.toFixed(2)} ms (${gc.maxKind})` : ''}`,
        );
      }
    }
  }
  console.log('');

  // ---- per run --------------------------------------------------------------------------------------------------
  const header = ['round', 'rate', 'target', 'sent', 'achieved', 'replies', 'loss', 'p50', 'p99', 'max', 'p50 / kernel'];
  const rows = runs.map((run) => {
    const r = run.result;
    const s = latencyStats(r.latUs);
    let ratio = '';
    if (run.who !== 'kernel') {
      const k = runs.find((o) => o.who === 'kernel' && o.round === run.round && o.result.rate === r.rate);
      if (k) ratio = `${(s.p50 / latencyStats(k.result.latUs).p50).toFixed(2)}x`;
    }
    return [
      String(run.round),
      `${r.rate}/s`,
      `${run.who} ${r.target}`,
      String(r.sent),
      `${Math.round(r.achievedRate)}/s`,
      String(r.replies),
      `${((100 * lossOf(r)) / r.count).toFixed(2)} %`,
      fmtUs(s.p50),
      fmtUs(s.p99),
      fmtUs(s.max),
      ratio,
    ];
  });
  printTable(header, rows);

  // ---- pooled over rounds -----------------------------------------------------------------------------------------
  console.log('\npooled over the rounds:\n');
  const pooled = new Map<string, { sent: number; count: number; replies: number; lat: number[]; achieved: number[] }>();
  for (const run of runs) {
    const key = `${run.result.rate}|${run.who}`;
    const p = pooled.get(key) ?? { sent: 0, count: 0, replies: 0, lat: [], achieved: [] };
    p.sent += run.result.sent;
    p.count += run.result.count;
    p.replies += run.result.replies;
    for (const l of run.result.latUs) p.lat.push(l);
    p.achieved.push(run.result.achievedRate);
    pooled.set(key, p);
  }
  const summary = new Map<string, { p50: number; p99: number; max: number; loss: number; minAchieved: number }>();
  for (const [key, p] of pooled)
    summary.set(key, { ...latencyStats(p.lat), loss: p.count - p.replies, minAchieved: Math.min(...p.achieved) });
  printTable(
    ['rate', 'target', 'sent', 'lowest achieved', 'replies', 'loss', 'p50', 'p99', 'max', 'p50 / kernel'],
    [...pooled].map(([key, p]) => {
      const [rate, w] = key.split('|') as [string, Who];
      const s = summary.get(key)!;
      const k = summary.get(`${rate}|kernel`)!;
      return [
        `${rate}/s`,
        `${w} ${who[w]}`,
        String(p.sent),
        `${Math.round(s.minAchieved)}/s`,
        String(p.replies),
        `${s.loss} (${((100 * s.loss) / p.count).toFixed(2)} %)`,
        fmtUs(s.p50),
        fmtUs(s.p99),
        fmtUs(s.max),
        w !== 'kernel' ? `${(s.p50 / k.p50).toFixed(2)}x` : '',
      ];
    }),
  );

  // ---- the generator and the machine ------------------------------------------------------------------------------
  console.log('\nthe generator and the machine during each run (lag: how late a request left against its schedule):\n');
  printTable(
    [
      'round',
      'rate',
      'target',
      'send lag p99',
      'send lag max',
      'biggest batch',
      'queue full',
      'generator CPU',
      'machine busy',
      'others',
      'steal',
      'load1',
      'dup',
      'late',
      'responder GCs: all/major (longest pause)',
      'mlb: requests/replies/send failures',
    ],
    runs.map((run) => {
      const r = run.result;
      return [
        String(run.round),
        `${r.rate}/s`,
        run.who,
        fmtUs(r.lagP99Us),
        fmtUs(r.lagMaxUs),
        String(r.biggestBatch),
        String(r.queueFull),
        `${Math.round((100 * r.cpuMs) / r.sendMs)} %`,
        `${run.machine.busyPct.toFixed(0)} %`,
        `${run.machine.othersPct.toFixed(0)} %`,
        `${run.machine.stealPct.toFixed(1)} %`,
        run.machine.load1.toFixed(2),
        String(r.duplicates),
        String(r.late),
        run.gc ? `${run.gc.count}/${run.gc.major} (${run.gc.maxMs.toFixed(2)} ms ${run.gc.maxKind})` : '',
        run.mlb
          ? `${run.mlb.requests}/${run.mlb.responses}/${run.mlb.sendFailures}${Object.keys(run.mlb.drops).length ? ` drops ${JSON.stringify(run.mlb.drops)}` : ''}`
          : '',
      ];
    }),
  );

  // ---- checks ------------------------------------------------------------------------------------------------------
  const checks: { name: string; value: string; target: string; ok: boolean }[] = [];
  for (const rate of RATES) {
    const m = summary.get(`${rate}|mlb`)!;
    const k = summary.get(`${rate}|kernel`)!;
    checks.push({
      name: `${rate}/s: mlb p50 / kernel p50`,
      value: `${fmtUs(m.p50)} / ${fmtUs(k.p50)} = ${(m.p50 / k.p50).toFixed(2)}x`,
      target: `<= ${TARGET_P50_RATIO}x`,
      ok: m.p50 <= TARGET_P50_RATIO * k.p50,
    });
    checks.push({ name: `${rate}/s: mlb p99`, value: fmtUs(m.p99), target: `<= ${fmtUs(TARGET_P99_US)}`, ok: m.p99 <= TARGET_P99_US });
    if (rate >= LOSS_FREE_RATE) checks.push({ name: `${rate}/s: mlb requests lost`, value: String(m.loss), target: '0', ok: m.loss === 0 });
  }
  const duplicates = runs.reduce((n, r) => n + r.result.duplicates, 0);
  checks.push({ name: 'second replies to one request (two responders)', value: String(duplicates), target: '0', ok: duplicates === 0 });
  const foreign = runs.filter((r) => Object.keys(r.result.repliers).some((m) => m !== node.mac)).length;
  checks.push({ name: `runs with a reply from a MAC other than ${node.mac}`, value: String(foreign), target: '0', ok: foreign === 0 });
  console.log('');
  printTable(
    ['check', 'measured', 'target', ''],
    checks.map((c) => [c.name, c.value, c.target, c.ok ? 'ok' : 'MISSED']),
  );

  const overload: string[] = [];
  for (const run of runs) {
    const r = run.result;
    const at = `round ${run.round} ${r.rate}/s ${run.who}`;
    if (r.achievedRate < RATE_TOLERANCE * r.rate)
      overload.push(`${at}: the generator reached ${Math.round(r.achievedRate)}/s of ${r.rate}/s`);
    // The generator spins on its core (a runnable task all the time): it counts for one in the load average.
    if (run.machine.load1 > CORES + 1)
      overload.push(`${at}: load average ${run.machine.load1.toFixed(2)} > ${CORES} cores + the generator`);
    if (run.machine.othersPct > 50 / CORES)
      overload.push(`${at}: other processes used ${run.machine.othersPct.toFixed(0)} % of the machine (> half a core)`);
    if (r.lagP99Us > 1000) overload.push(`${at}: the generator itself was held up (send lag p99 ${fmtUs(r.lagP99Us)})`);
    if (run.machine.stealPct > 10) overload.push(`${at}: ${run.machine.stealPct.toFixed(0)} % of CPU time stolen by the hypervisor`);
  }
  const missed = checks.some((c) => !c.ok);
  if (overload.length) {
    console.log(`\nMACHINE OVERLOADED during ${overload.length} measurement(s); the numbers are not a clean verdict:`);
    for (const o of overload) console.log(`  - ${o}`);
    console.log(
      missed
        ? 'A target was missed, possibly because of the load: rerun on a quiet machine before trusting the miss.'
        : 'Every target was met even so.',
    );
  }
  const errors = [...generator.logs('error'), ...announcer.logs('error')];
  for (const e of errors.slice(0, 5)) console.log(`child error: ${String(e.msg)}`);
  return missed ? 1 : 0;
}

async function entry(): Promise<number> {
  if (process.getuid?.() !== 0)
    refuse('needs root: it builds network namespaces (ip netns) and opens AF_PACKET sockets. Run it as root (e.g. sudo).');
  const netns = canUseNetns();
  if (!netns.ok) refuse(netns.why);
  const addon = nativeAddonStatus();
  if (!addon.loaded) refuse(`the packet-socket addon is not built (${addon.why}): run npm install / npx node-gyp rebuild`);
  installCleanup('bench/arp');
  const lab = newLab();
  try {
    return await main(lab);
  } finally {
    destroyLab(lab);
  }
}

process.exitCode = await entry();
