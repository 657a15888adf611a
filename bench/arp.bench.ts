// bench/arp: ARP reply latency and loss of the real daemon (`mlb daemon` from dist/mlb.mjs, as users run it, single
// node, layer 2) holding 1, 1,000 and 10,000 VIPs, against the Linux kernel answering for its own address (the
// physical reference), from a client namespace, at 1,000 and 10,000 requests/s.
//
// Lab (bench/arp/daemon-arp.ts): client (10.213.0.1) and node (10.213.0.2) on one bridge; the daemon holds one
// pinned Service per VIP (10.214.1.0 upwards, on the node's eth0 subnet 10.214.0.0/16); the kernel owns K =
// 10.213.0.2. bench/arp/generator.ts sends broadcast ARP requests from a packet socket at a fixed rate, each
// identified by its sender hardware address (echoed in the reply), and times each reply in the same process. mlb's
// requests are spread at random over every VIP the daemon holds (a cache miss can be for any of them), the
// kernel's all ask for K.
//
// Per VIP count: a fresh lab and daemon; measuring starts once it answers for the last VIP and its gratuitous
// schedule is over; one discarded warm-up per responder; then kernel and mlb alternate at each rate, ROUNDS times.
// Targets, on the rounds pooled, at every size and rate: mlb p50 <= 2x the kernel's, mlb p99 <= 1 ms, no request
// lost (no reply within 100 ms). Exits 1 when a target is missed, 2 without root or the addon. When the machine is
// overloaded (load average above the cores + the generator, or the generator could not hold its rate or schedule)
// it says so next to the verdict.
//
// This replaces a bench of mlb's L2Announcer alone in a test runner with one VIP: the daemon around it (election,
// binding, self-check, gossip, control socket) is what users run, and what the scale issue found slow.
// Run: npm run bench  (or node --expose-gc bench/run.mjs arp); root only, after npm run build.
// BENCH_ARP_VIPS=1,1000,10000  BENCH_ARP_RATES=1000,10000  BENCH_ARP_SECONDS=s per run (default 4)
// BENCH_ARP_ROUNDS=n (default 2)  BENCH_ARP_PIN=0,1 (generator, daemon; 'off' lets the scheduler place them).
import { cpus, loadavg } from 'node:os';
import { nativeAddonStatus } from '../src/native';
import { canUseNetns } from '../test/support/netns-lab';
import { arpRows, fmtUs, pool, type ArpRow, type ArpSample } from './arp/arp-rows';
import { startDaemonArpLab } from './arp/daemon-arp';
import { installCleanup, printTable, sleep } from './gossip/lab-nodes';

const list = (text: string) => text.split(',').map(Number);
const VIPS = list(process.env.BENCH_ARP_VIPS ?? '1,1000,10000');
const RATES = list(process.env.BENCH_ARP_RATES ?? '1000,10000');
const SECONDS = Number(process.env.BENCH_ARP_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ARP_ROUNDS ?? 2);
const CORES = cpus().length;
/**
 * The generator pinned to one CPU and the daemon to another (by default on a multi-core machine): the client and
 * the node are two machines in the real world, and the generator spins on its core (generator.ts), so a daemon
 * woken on the generator's core would measure the two processes' contention, not mlb's path.
 */
const PIN_TEXT = process.env.BENCH_ARP_PIN ?? (CORES >= 2 ? '0,1' : 'off');
const PIN = PIN_TEXT === 'off' ? undefined : (list(PIN_TEXT) as unknown as readonly [number, number]);
/** The gratuitous schedule (a burst now, every 1.1 s until 5 s after the change) is over by then. */
const GRATUITOUS_QUIET_MS = 5_600;
/** The generator holds the rate when it reaches this share of it. */
const RATE_TOLERANCE = 0.95;
/** A generator whose sends are this late (p99) against their schedule was held up: it measured the machine. */
const LAG_LIMIT_US = 1_000;

function refuse(why: string): never {
  console.error(`bench/arp: ${why}`);
  process.exit(2);
}

interface Measured {
  readonly vips: number;
  readonly rate: number;
  readonly readyMs: number;
  readonly kernel: ArpSample[];
  readonly mlb: ArpSample[];
  readonly load1: number;
}

async function measureSize(vips: number): Promise<Measured[]> {
  const lab = await startDaemonArpLab({ vips, ...(PIN ? { cpus: PIN } : {}), log: (l) => console.log(l) });
  try {
    await sleep(GRATUITOUS_QUIET_MS);
    const top = Math.max(...RATES);
    const warmKernel = await lab.kernel(top, top);
    const warmMlb = await lab.mlb(top, top);
    console.log(
      `${vips} VIPs: warm-up (discarded): kernel ${warmKernel.replies}/${warmKernel.count}, mlb ${warmMlb.replies}/${warmMlb.count} answered`,
    );
    const out = RATES.map((rate) => ({ vips, rate, readyMs: lab.readyMs, kernel: [] as ArpSample[], mlb: [] as ArpSample[], load1: 0 }));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const m of out) {
        const count = Math.round(m.rate * SECONDS);
        const load1 = loadavg()[0]!;
        const kernel = await lab.kernel(m.rate, count);
        const mlb = await lab.mlb(m.rate, count);
        m.kernel.push(kernel);
        m.mlb.push(mlb);
        m.load1 = Math.max(m.load1, load1, loadavg()[0]!);
        console.log(
          `${vips} VIPs round ${round} ${m.rate}/s: kernel ${kernel.replies}/${kernel.count} at ${Math.round(kernel.achievedRate)}/s ` +
            `(send lag p99 ${fmtUs(kernel.lagP99Us)}), mlb over ${mlb.target} ${mlb.replies}/${mlb.count} at ` +
            `${Math.round(mlb.achievedRate)}/s (send lag p99 ${fmtUs(mlb.lagP99Us)}); load ${m.load1.toFixed(2)}`,
        );
      }
    }
    return out;
  } finally {
    lab.close();
  }
}

/** Why a measurement says more about the machine than about mlb (empty: a clean one). */
function overloadOf(m: Measured): string[] {
  const why: string[] = [];
  const at = `${m.vips} VIPs ${m.rate}/s`;
  for (const [who, runs] of [
    ['kernel', m.kernel],
    ['mlb', m.mlb],
  ] as const) {
    const p = pool(runs);
    if (p.lowestRate < RATE_TOLERANCE * m.rate) why.push(`${at} ${who}: the generator reached ${Math.round(p.lowestRate)}/s`);
    if (p.worstLagP99Us > LAG_LIMIT_US) why.push(`${at} ${who}: the generator was held up (send lag p99 ${fmtUs(p.worstLagP99Us)})`);
  }
  // The generator spins on its core (a runnable task all the time): it counts for one in the load average.
  if (m.load1 > CORES + 1) why.push(`${at}: load average ${m.load1.toFixed(2)} > ${CORES} cores + the generator`);
  return why;
}

async function main(): Promise<number> {
  console.log(
    `arp: the real daemon (dist/mlb.mjs) holding ${VIPS.join(', ')} VIPs against the node's kernel, ${ROUNDS} rounds x ` +
      `${RATES.join(', ')}/s x ${SECONDS} s, node ${process.version}, ${CORES} cores, load average ${loadavg()[0]!.toFixed(2)}`,
  );
  console.log(PIN ? `generator pinned to CPU ${PIN[0]}, daemon to CPU ${PIN[1]} (BENCH_ARP_PIN=off: unpinned)\n` : 'unpinned\n');
  const measured: Measured[] = [];
  for (const vips of VIPS) measured.push(...(await measureSize(vips)));

  console.log('\npooled over the rounds (kernel: its own address; mlb: requests spread over every VIP it holds):\n');
  const rows: ArpRow[] = measured.flatMap((m) => arpRows(m.vips, m.rate, pool(m.mlb), pool(m.kernel)));
  printTable(
    ['what', 'mlb', 'baseline (kernel)', 'ratio', 'target', 'ok'],
    rows.map((r) => [r.what, r.mlb, r.kernel, r.ratio, r.target, r.ok ? 'ok' : 'MISSED']),
  );
  console.log('\nreadiness (daemon start -> the last VIP answered), information:');
  for (const m of measured.filter((x) => x.rate === RATES[0]))
    console.log(`  ${m.vips.toLocaleString('en')} VIPs: ${(m.readyMs / 1000).toFixed(1)} s`);
  const duplicates = measured.reduce((n, m) => n + pool(m.mlb).duplicates + pool(m.kernel).duplicates, 0);
  if (duplicates > 0) console.log(`\n${duplicates} requests got a second reply: two responders on the bridge`);

  const missed = rows.some((r) => !r.ok) || duplicates > 0;
  const overload = measured.flatMap(overloadOf);
  if (overload.length) {
    console.log(`\nMACHINE OVERLOADED during ${overload.length} measurement(s); the numbers are not a clean verdict:`);
    for (const o of overload) console.log(`  - ${o}`);
    console.log(
      missed
        ? 'A target was missed, possibly because of the load: rerun on a quiet machine before trusting the miss.'
        : 'Every target was met even so.',
    );
  }
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
  return main();
}

process.exitCode = await entry();
