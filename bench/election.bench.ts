// bench/election: 10,000 services x 1,000 nodes, mlb's ElectionIndex against a MetalLB-shaped baseline in the
// same process. (a) a cold election of everything; (b) one node leaving. Both are timed best-of-N (N =
// BENCH_ELECTION_REPS, default 5), after a warm-up, so neither side pays for the JIT or a GC the other skipped.
// The baseline (bench/election/naive-metallb.ts) recomputes every service on every change, sorting the nodes with
// a hash in the comparator: O(services x nodes log nodes), about a minute per change at full size. Its warmed cost
// per service is estimated first; it is measured at full size when that fits the time budget (BENCH_ELECTION_
// BUDGET_S, default 150 s for the baseline), else at the sizes that do (bench/election/baseline-sizes.ts), and its
// full-size time is the largest measured size's cost per service times 10,000, with the scaling printed to show
// that this is linear. Exits 1 when a target is missed. Run: npm run bench  (or node --expose-gc bench/run.mjs election)
// BENCH_SERVICES, BENCH_NODES shrink the cluster for development.
import { loadavg } from 'node:os';
import { ElectionIndex, type ServiceElectionInput } from '../src/election';
import { baselineAt, planBaselineSizes, scalingOf, type SizePoint } from './election/baseline-sizes';
import { makeCluster, prng } from './election/cluster';
import { naiveElectAll } from './election/naive-metallb';
import { printTable } from './gossip/lab-nodes';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 10_000);
const NODES = Number(process.env.BENCH_NODES ?? 1_000);
/** Best-of-N for every timed case, both sides. */
const REPS = Number(process.env.BENCH_ELECTION_REPS ?? 5);
/** Seconds the baseline may take in all (a full-size best-of-5 of both cases is ~10 min on a 2-core VM). */
const BASELINE_BUDGET_S = Number(process.env.BENCH_ELECTION_BUDGET_S ?? 150);
/** Services the baseline elects to warm up (JIT) and to estimate its cost per service. */
const WARMUP_SERVICES = 50;
const WARMUP_ROUNDS = 3;
/** Distinct nodes made to leave (and rejoin) in each of mlb's incremental rounds. */
const LEAVES = 50;
/** The baseline's two cases (cold, leave) per size. */
const BASELINE_CASES = 2;
const TARGET_COLD = 5;
const TARGET_LEAVE = 100;

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const now = () => performance.now();

function fmt(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

function fmtRatio(ratio: number): string {
  return `${ratio >= 100 ? Math.round(ratio).toLocaleString('en') : ratio.toFixed(1)}x`;
}

/** The best of `reps` timings of `run` (a GC before each, so none pays for the previous one's garbage). */
function bestOf(reps: number, run: () => void): number {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    gc();
    const t0 = now();
    run();
    best = Math.min(best, now() - t0);
  }
  return best;
}

function main(): number {
  const load0 = loadavg()[0]!;
  const cluster = makeCluster(NODES, SERVICES);
  const live = new Set(cluster.nodeNames);
  const random = prng(7);
  // One random order of the services; each baseline size is a prefix of it, so the sizes nest and each keeps the
  // mix of policies (one service in ten is ETP Local) of the whole set.
  const order = [...cluster.services];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const sampleOf = (n: number): ServiceElectionInput[] => order.slice(0, n);
  const picked = new Set<string>();
  while (picked.size < Math.min(LEAVES, NODES)) picked.add(cluster.nodeNames[Math.floor(random() * NODES)]!);
  const leavers = [...picked];
  const leaver = leavers[0]!;
  const without = new Set(live);
  without.delete(leaver);

  // ---- mlb: best-of-N cold elections; best-of-N rounds of LEAVES one-node leaves (and rejoins) ----------------------
  let index = new ElectionIndex(cluster.config);
  const coldMs = bestOf(REPS, () => {
    index = new ElectionIndex(cluster.config);
    index.elect(cluster.services, live);
  });
  let leaveMs = Infinity;
  let joinMs = Infinity;
  let changed = 0;
  for (let r = 0; r < REPS; r++) {
    gc();
    let leave = 0;
    let join = 0;
    changed = 0;
    for (const node of leavers) {
      let t0 = now();
      changed += index.applyMembership({ kind: 'leave', node }).length;
      leave += now() - t0;
      t0 = now();
      index.applyMembership({ kind: 'join', node });
      join += now() - t0;
    }
    leaveMs = Math.min(leaveMs, leave / leavers.length);
    joinMs = Math.min(joinMs, join / leavers.length);
  }

  // ---- the baseline: warm up, estimate, plan the sizes, best-of-N at each ---------------------------------------------
  const warm = sampleOf(Math.min(WARMUP_SERVICES, SERVICES));
  for (let r = 0; r < WARMUP_ROUNDS; r++) naiveElectAll(cluster.config, warm, live);
  const perServiceMs = bestOf(WARMUP_ROUNDS, () => naiveElectAll(cluster.config, warm, live)) / warm.length;
  const plan = planBaselineSizes(SERVICES, perServiceMs, BASELINE_CASES * REPS, BASELINE_BUDGET_S);
  console.log(
    `election: ${SERVICES.toLocaleString('en')} services x ${NODES.toLocaleString('en')} nodes, layer2, node ${process.version}, ` +
      `best of ${REPS} for both, load average ${load0.toFixed(2)} at the start`,
  );
  console.log(
    `baseline: MetalLB-shaped full recompute, warmed on ${warm.length} services: ${fmt(perServiceMs)} per service, so ~${plan.fullEstimateS.toFixed(0)} s ` +
      `for both cases best-of-${REPS} at full size; budget ${BASELINE_BUDGET_S} s (BENCH_ELECTION_BUDGET_S): ` +
      (plan.full ? 'measured at full size' : `measured at ${plan.sizes.join(', ')} services, scaled to ${SERVICES.toLocaleString('en')}`),
  );
  const coldPoints: SizePoint[] = [];
  const leavePoints: SizePoint[] = [];
  let largest = new Map<string, string | null>();
  let largestAfter = new Map<string, string | null>();
  for (const size of plan.sizes) {
    const sample = sampleOf(size);
    coldPoints.push({ size, ms: bestOf(REPS, () => (largest = naiveElectAll(cluster.config, sample, live))) });
    leavePoints.push({ size, ms: bestOf(REPS, () => (largestAfter = naiveElectAll(cluster.config, sample, without))) });
  }

  // Both sides must elect the same winners, before and after the leave, or the comparison means nothing.
  const winners = new Map(index.outcomes().map((o) => [o.service, o.winner]));
  for (const [svc, winner] of largest)
    if (winners.get(svc) !== winner) throw new Error(`baseline and mlb disagree on ${svc}: ${winner} vs ${winners.get(svc)}`);
  index.applyMembership({ kind: 'leave', node: leaver });
  const after = new Map(index.outcomes().map((o) => [o.service, o.winner]));
  for (const [svc, winner] of largestAfter)
    if (after.get(svc) !== winner) throw new Error(`after ${leaver} left, baseline and mlb disagree on ${svc}`);

  const baseCold = baselineAt(SERVICES, coldPoints);
  const baseLeave = baselineAt(SERVICES, leavePoints);
  const how = baseCold.measured ? 'measured' : `scaled from ${plan.sizes[plan.sizes.length - 1]}`;
  console.log(
    `one-node changes: ${leavers.length} nodes left and rejoined per round; ${(changed / leavers.length).toFixed(1)} IPs re-elected per leave\n`,
  );
  console.log('the baseline at each size measured (best of each; per service flat = linear in services):');
  const scaling = { cold: scalingOf(coldPoints), leave: scalingOf(leavePoints) };
  printTable(
    ['services', 'cold', 'per service', 'one-node leave', 'per service'],
    plan.sizes.map((size, i) => [
      size.toLocaleString('en'),
      fmt(coldPoints[i]!.ms),
      fmt(scaling.cold.perServiceMs[i]!),
      fmt(leavePoints[i]!.ms),
      fmt(scaling.leave.perServiceMs[i]!),
    ]),
  );
  if (plan.sizes.length > 1)
    console.log(
      `log-log slope (time vs services): cold ${scaling.cold.exponent.toFixed(2)}, leave ${scaling.leave.exponent.toFixed(2)} (1.00 = linear)`,
    );
  console.log('');

  const rows = [
    { name: 'cold election (all services)', mlb: coldMs, base: baseCold.ms, target: TARGET_COLD },
    { name: 'one-node leave', mlb: leaveMs, base: baseLeave.ms, target: TARGET_LEAVE },
    { name: 'one-node join (info)', mlb: joinMs, base: baseLeave.ms, target: 0 },
  ];
  const table = rows.map((r) => {
    const ratio = r.base / r.mlb;
    const ok = r.target === 0 || ratio >= r.target;
    return [
      r.name,
      fmt(r.mlb),
      `${fmt(r.base)} (${how})`,
      fmtRatio(ratio),
      r.target ? `>= ${r.target}x` : '-',
      r.target === 0 ? '' : ok ? 'ok' : 'MISSED',
    ];
  });
  printTable([`what (best of ${REPS})`, 'mlb per op', 'baseline per op', 'ratio', 'target', 'ok'], table);
  console.log(`load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`);
  return table.some((row) => row[5] === 'MISSED') ? 1 : 0;
}

process.exitCode = main();
