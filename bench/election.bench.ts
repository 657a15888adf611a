// bench/election: 10,000 services x 1,000 nodes, mlb's ElectionIndex against a MetalLB-shaped baseline in the
// same process. (a) a cold election of everything; (b) one node leaving. The baseline is slow (it hashes
// inside the sort comparator and recomputes every service on every change), so it runs on a sample of the
// services and its per-operation time is scaled linearly to all of them (its cost is per service).
// Exits 1 when a target is missed. Run: npm run bench  (or node --expose-gc bench/run.mjs election)
import { ElectionIndex } from '../src/election';
import { serviceKey } from '../src/model';
import { makeCluster, prng } from './election/cluster';
import { naiveElectAll } from './election/naive-metallb';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 10_000);
const NODES = Number(process.env.BENCH_NODES ?? 1_000);
/** Services the baseline elects per measurement (scaled to SERVICES). */
const BASELINE_SAMPLE = Number(process.env.BENCH_BASELINE_SAMPLE ?? 100);
/** Cold elections of mlb measured (the best is kept). */
const COLD_REPS = Number(process.env.BENCH_COLD_REPS ?? 2);
/** Distinct nodes made to leave (and rejoin) for the incremental measurement. */
const LEAVES = 50;
const TARGET_COLD = 5;
const TARGET_LEAVE = 100;

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const now = () => performance.now();

function fmt(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

function main(): number {
  const cluster = makeCluster(NODES, SERVICES);
  const live = new Set(cluster.nodeNames);
  const random = prng(7);
  // A random sample keeps the mix of policies (one service in ten is ETP Local) of the whole set.
  const picked = new Set<number>();
  while (picked.size < Math.min(BASELINE_SAMPLE, SERVICES)) picked.add(Math.floor(random() * SERVICES));
  const sample = [...picked].sort((a, b) => a - b).map((i) => cluster.services[i]!);
  const scale = SERVICES / sample.length;

  // (a) cold election
  let index = new ElectionIndex(cluster.config);
  let coldMs = Infinity;
  for (let r = 0; r < COLD_REPS; r++) {
    gc();
    const fresh = new ElectionIndex(cluster.config);
    const t0 = now();
    fresh.elect(cluster.services, live);
    coldMs = Math.min(coldMs, now() - t0);
    index = fresh;
  }
  gc();
  let t0 = now();
  const naiveCold = naiveElectAll(cluster.config, sample, live);
  const naiveColdMs = (now() - t0) * scale;

  const winners = new Map(index.outcomes().map((o) => [o.service, o.winner]));
  for (const [svc, winner] of naiveCold) {
    if (winners.get(svc) !== winner) throw new Error(`baseline and mlb disagree on ${svc}: ${winner} vs ${winners.get(svc)}`);
  }

  // (b) one node leaves (and rejoins, untimed for the baseline)
  const leavers = new Set<string>();
  while (leavers.size < Math.min(LEAVES, NODES)) leavers.add(cluster.nodeNames[Math.floor(random() * NODES)]!);
  let leaveMs = 0;
  let joinMs = 0;
  let changed = 0;
  gc();
  for (const node of leavers) {
    t0 = now();
    changed += index.applyMembership({ kind: 'leave', node }).length;
    leaveMs += now() - t0;
    t0 = now();
    index.applyMembership({ kind: 'join', node });
    joinMs += now() - t0;
  }
  leaveMs /= leavers.size;
  joinMs /= leavers.size;

  const leaver = [...leavers][0]!;
  const without = new Set(live);
  without.delete(leaver);
  gc();
  t0 = now();
  const naiveAfter = naiveElectAll(cluster.config, sample, without);
  const naiveLeaveMs = (now() - t0) * scale;
  index.applyMembership({ kind: 'leave', node: leaver });
  const after = new Map(index.outcomes().map((o) => [o.service, o.winner]));
  for (const s of sample) {
    const key = serviceKey(s.service);
    if (after.get(key) !== naiveAfter.get(key)) throw new Error(`after ${leaver} left, baseline and mlb disagree on ${key}`);
  }

  const rows = [
    { name: 'cold election (all services)', mlb: coldMs, base: naiveColdMs, target: TARGET_COLD },
    { name: 'one-node leave', mlb: leaveMs, base: naiveLeaveMs, target: TARGET_LEAVE },
    { name: 'one-node join (info)', mlb: joinMs, base: naiveLeaveMs, target: 0 },
  ];
  console.log(`election: ${SERVICES.toLocaleString('en')} services x ${NODES.toLocaleString('en')} nodes, layer2, node ${process.version}`);
  console.log(`baseline: MetalLB-shaped full recompute, measured on ${sample.length} services and scaled x${scale}`);
  console.log(
    `one-node changes: ${leavers.size} nodes left and rejoined; ${(changed / leavers.size).toFixed(1)} IPs re-elected per leave\n`,
  );
  const header = ['case', 'mlb per op', 'baseline per op', 'ratio', 'target', ''];
  const table = rows.map((r) => {
    const ratio = r.base / r.mlb;
    const ok = r.target === 0 || ratio >= r.target;
    return [
      r.name,
      fmt(r.mlb),
      fmt(r.base),
      `${ratio >= 100 ? Math.round(ratio).toLocaleString('en') : ratio.toFixed(1)}x`,
      r.target ? `>= ${r.target}x` : '-',
      r.target === 0 ? '' : ok ? 'ok' : 'MISSED',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  for (const row of [header, ...table])
    console.log(
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  return table.some((row) => row[5] === 'MISSED') ? 1 : 0;
}

process.exitCode = main();
