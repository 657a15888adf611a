// bench/gossip: time to declare a crashed node dead, in a 3-host network-namespace lab, four configurations side
// by side: (a) 3 real Go memberlist nodes with LAN defaults (MetalLB's setting, the baseline), (b) 3 `mlb daemon`
// with --gossip-profile lan, (c) 3 Go memberlist nodes with the timers of mlb's fast profile (probe interval and
// timeout, suspicion multipliers, gossip and push/pull intervals: mechanism against mechanism, since mlb's fast
// profile adds only directPingRetries and extendWhenHeard, which memberlist lacks), (d) 3 `mlb daemon` with
// --gossip-profile fast.
//
// A trial: a fresh lab (3 hosts on one bridge), start the 3 nodes (b and c join a), wait until each has seen the
// other two join, wait a random 0.5-1.5 s (so the crash falls anywhere in the probe schedule), then kill -9 one
// node's process (the same crash for Go and mlb; its link stays up, so its kernel answers the probes' UDP with
// ICMP port unreachable and refuses the TCP ping, as a crashed daemon on a live host would). The victim rotates
// a, b, c. Measured: from the kill (this process's clock) to the moment the *last* survivor reports the node dead,
// using the survivors' own event timestamps (daemon `ts`, Go `t`; ms, same machine clock). Configurations are
// interleaved trial by trial, so background noise on this shared 2-core machine hits them alike. Trials run one
// at a time: parallel labs would compete for the two cores and blur the timers being measured.
//
// Exits 1 when a target is missed: fast median > 1.5 s, mlb lan median > 1.5x Go's, fast < 4x faster than Go
// (or a trial does not detect the crash at all, or a survivor declares a live node dead).
// Run: npm run bench  (or node --expose-gc bench/run.mjs gossip); root only. BENCH_GOSSIP_TRIALS=n (default 10);
// BENCH_GOSSIP_CRASH=unplug|both models a powered-off host instead (its link set down).
import { detectionTime, FAST_CONFIG, LAN_CONFIG, type SwimConfig } from '../src/gossip/swim/config';
import {
  converged,
  destroyLab,
  fmtMs,
  goMemberlistBinary,
  installCleanup,
  newLab,
  preflight,
  printTable,
  quantile,
  sleep,
  startGo,
  startMlb,
  type LabNode,
} from './gossip/lab-nodes';

const TRIALS = Number(process.env.BENCH_GOSSIP_TRIALS ?? 10);
/** kill: kill -9 of the process (default); unplug: its link goes down (a powered-off host); both: the two at once. */
const CRASH = (process.env.BENCH_GOSSIP_CRASH ?? 'kill') as 'kill' | 'unplug' | 'both';
const NODES = 3;
const START_TIMEOUT_MS = 20_000;
const CONVERGE_TIMEOUT_MS = 20_000;
const TARGET_FAST_MEDIAN_MS = 1_500;
const TARGET_LAN_RATIO = 1.5;
const TARGET_FAST_SPEEDUP = 4;

interface Configuration {
  readonly id: 'go' | 'lan' | 'go-fast' | 'fast';
  readonly label: string;
  readonly swim: SwimConfig;
}

const CONFIGURATIONS: readonly Configuration[] = [
  { id: 'go', label: 'Go memberlist 0.2.2, LAN', swim: LAN_CONFIG },
  { id: 'lan', label: 'mlb daemon, profile lan', swim: LAN_CONFIG },
  { id: 'go-fast', label: 'Go memberlist 0.2.2, fast timers', swim: FAST_CONFIG },
  { id: 'fast', label: 'mlb daemon, profile fast', swim: FAST_CONFIG },
];

interface Trial {
  /** Crash to the last survivor's dead event (ms); Infinity when it never came. */
  readonly last: number;
  /** Crash to the first survivor's dead event. */
  readonly first: number;
  readonly victim: string;
  readonly error?: string;
  /** Dead events about nodes that were not crashed. */
  readonly falseDeaths: number;
}

async function trial(config: Configuration, index: number, goBinary: string): Promise<Trial> {
  const lab = newLab();
  const victimIndex = index % NODES;
  const names = ['a', 'b', 'c'].slice(0, NODES);
  let victimName = `node-${names[victimIndex]}`;
  try {
    const hosts = names.map((n) => lab.addHost(n));
    const start = (i: number, join: LabNode[]): LabNode =>
      config.id === 'go' || config.id === 'go-fast'
        ? startGo(lab, hosts[i]!, `node-${names[i]}`, goBinary, join, config.id === 'go-fast' ? config.swim : undefined)
        : startMlb(lab, hosts[i]!, `node-${names[i]}`, { profile: config.id, join });
    const seed = start(0, []);
    await seed.until('ready', () => seed.first('ready') !== undefined, START_TIMEOUT_MS);
    const nodes = [seed, ...names.slice(1).map((_, i) => start(i + 1, [seed]))];
    await converged(nodes, CONVERGE_TIMEOUT_MS);
    await sleep(500 + Math.random() * 1_000);

    const victim = nodes[victimIndex]!;
    victimName = victim.name;
    const survivors = nodes.filter((n) => n !== victim);
    const crashedAt = Date.now();
    if (CRASH !== 'kill') lab.unplug(victim.host);
    if (CRASH !== 'unplug') victim.crash();
    const deadline = 3 * detectionTime(config.swim, NODES).worst;
    let error: string | undefined;
    try {
      await Promise.all(
        survivors.map((s) => s.until(`${victim.name} declared dead`, () => s.first('failed', victim.name) !== undefined, deadline)),
      );
    } catch (e) {
      error = (e as Error).message.split('\n')[0];
    }
    const times = survivors.map((s) => (s.first('failed', victim.name) ?? Infinity) - crashedAt);
    const falseDeaths = survivors.reduce(
      (sum, s) => sum + s.events.filter((e) => e.type === 'failed' && e.member !== victim.name).length,
      0,
    );
    return { last: Math.max(...times), first: Math.min(...times), victim: victim.name, falseDeaths, ...(error ? { error } : {}) };
  } catch (e) {
    return { last: Infinity, first: Infinity, victim: victimName, falseDeaths: 0, error: (e as Error).message.split('\n')[0] };
  } finally {
    destroyLab(lab);
  }
}

function summary(trials: readonly Trial[]) {
  const last = trials.map((t) => t.last).sort((a, b) => a - b);
  const first = trials.map((t) => t.first).sort((a, b) => a - b);
  return { min: last[0]!, median: quantile(last, 0.5), max: last[last.length - 1]!, firstMedian: quantile(first, 0.5) };
}

const CRASH_WORDS = {
  kill: "kill -9 of one node's process (link up)",
  unplug: "one node's link unplugged (process running)",
  both: "kill -9 of one node's process and its link unplugged",
} as const;

async function main(): Promise<number> {
  preflight('bench/gossip', { go: true });
  if (!(CRASH in CRASH_WORDS)) {
    console.error(`bench/gossip: BENCH_GOSSIP_CRASH must be kill, unplug or both, not ${CRASH}`);
    return 2;
  }
  installCleanup('bench/gossip');
  const goBinary = goMemberlistBinary();
  console.log(`gossip: ${NODES} hosts in a netns lab (one bridge), ${CRASH_WORDS[CRASH]}, time until the last survivor`);
  console.log(`declares it dead (the survivors' own event timestamps); ${TRIALS} trials per configuration, interleaved, one at a time.\n`);

  const results = new Map<Configuration['id'], Trial[]>(CONFIGURATIONS.map((c) => [c.id, []]));
  const began = Date.now();
  for (let i = 0; i < TRIALS; i++) {
    const line: string[] = [];
    for (const config of CONFIGURATIONS) {
      const t = await trial(config, i, goBinary);
      results.get(config.id)!.push(t);
      line.push(`${config.id} ${fmtMs(t.last)}${t.error ? ' (FAILED)' : ''}${t.falseDeaths ? ` (${t.falseDeaths} false deaths)` : ''}`);
      if (t.error) console.log(`  trial ${i + 1} ${config.id}: ${t.error}`);
    }
    console.log(`trial ${String(i + 1).padStart(2)}: ${line.join(', ')}   [${((Date.now() - began) / 1000).toFixed(0)} s]`);
  }

  const stats = new Map(CONFIGURATIONS.map((c) => [c.id, summary(results.get(c.id)!)]));
  console.log('\ncrash -> dead at the last survivor (first survivor median beside it); formula = detectionTime(profile, 3)\n');
  printTable(
    [
      'configuration',
      'min',
      'median',
      'max',
      'first survivor (median)',
      'formula typical',
      'formula worst',
      'failed trials',
      'false deaths',
    ],
    CONFIGURATIONS.map((c) => {
      const s = stats.get(c.id)!;
      const f = detectionTime(c.swim, NODES);
      const failed = results.get(c.id)!.filter((t) => t.error).length;
      const falseDeaths = results.get(c.id)!.reduce((sum, t) => sum + t.falseDeaths, 0);
      return [
        c.label,
        fmtMs(s.min),
        fmtMs(s.median),
        fmtMs(s.max),
        fmtMs(s.firstMedian),
        fmtMs(f.typical),
        fmtMs(f.worst),
        String(failed),
        String(falseDeaths),
      ];
    }),
  );

  const go = stats.get('go')!.median;
  const lan = stats.get('lan')!.median;
  const fast = stats.get('fast')!.median;
  const goFast = stats.get('go-fast')!.median;
  const checks = [
    {
      name: 'mlb lan vs Go lan (median ratio)',
      value: `${(lan / go).toFixed(2)}x`,
      target: `<= ${TARGET_LAN_RATIO}x (~1x expected)`,
      ok: lan / go <= TARGET_LAN_RATIO,
    },
    {
      name: 'mlb fast vs Go lan (speed-up)',
      value: `${(go / fast).toFixed(1)}x`,
      target: `>= ${TARGET_FAST_SPEEDUP}x`,
      ok: go / fast >= TARGET_FAST_SPEEDUP,
    },
    {
      name: 'mlb fast vs Go with the same timers (median ratio)',
      value: `${(fast / goFast).toFixed(2)}x`,
      target: `<= ${TARGET_LAN_RATIO}x`,
      ok: fast / goFast <= TARGET_LAN_RATIO,
    },
    { name: 'mlb fast median', value: fmtMs(fast), target: `<= ${fmtMs(TARGET_FAST_MEDIAN_MS)}`, ok: fast <= TARGET_FAST_MEDIAN_MS },
  ];
  const failedTrials = [...results.values()].flat().filter((t) => t.error).length;
  // Go memberlist's false deaths are the baseline's to report (table), not a miss of mlb's.
  const mlbTrials = [...results].filter(([id]) => id === 'lan' || id === 'fast').flatMap(([, trials]) => trials);
  const falseDeaths = mlbTrials.reduce((sum, t) => sum + t.falseDeaths, 0);
  checks.push({ name: 'trials that never saw the crash', value: String(failedTrials), target: '0', ok: failedTrials === 0 });
  checks.push({ name: 'live nodes declared dead by mlb', value: String(falseDeaths), target: '0', ok: falseDeaths === 0 });
  console.log('');
  printTable(
    ['check', 'measured', 'target', ''],
    checks.map((c) => [c.name, c.value, c.target, c.ok ? 'ok' : 'MISSED']),
  );
  console.log(`\ntotal ${((Date.now() - began) / 1000).toFixed(0)} s`);
  return checks.every((c) => c.ok) ? 0 : 1;
}

process.exitCode = await main();
