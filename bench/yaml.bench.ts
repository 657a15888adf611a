// bench/yaml: parsing the scale bench's configuration file (bench/scale/scale-config.ts: N Services, one pool, 2 MB at
// 10,000) in process. Rows: the text read into YAML documents (the subset reader, block-yaml-subset.ts, with the
// `yaml` package for whatever it does not read), the whole load from text to the validated Snapshot (parseConfig:
// reading every object, cross-checks, the frozen Snapshot), and the `yaml` package alone on the same text, the
// baseline. In CPU time of this process (the machine is shared; wall time beside it). The target is judged on the
// first parse in the process, cold (what `mlb validate` and the daemon's parser worker, a fresh thread per parse,
// pay); the warm rows are the best of N later runs, without a forced GC between them (after one, V8 regrows its heap
// in the next run and that run costs several times more: not what a parse in a running process sees). Exits 1 when the documents row misses its target.
// Run: npm run bench  (or node --expose-gc bench/run.mjs yaml; BENCH_SERVICES=1000 BENCH_REPS=2 for a quick look)
import { loadavg } from 'node:os';
import { Composer, Parser } from 'yaml';
import { parseConfig } from '../src/model';
import { DiagnosticSink } from '../src/model/parse/diagnostic-sink';
import { sourceText, yamlDocuments } from '../src/model/parse/yaml-documents';
import { scaleConfig } from './scale/scale-config';

const SERVICES = Number(process.env.BENCH_SERVICES ?? 10_000);
const REPS = Number(process.env.BENCH_REPS ?? 5);
/** The target for 10,000 Service documents; scaled with the count for other sizes (the parse is linear). */
const TARGET_DOCUMENTS_MS_AT_10K = 300;

interface Time {
  /** This process's CPU time (user + system): what the parse costs, whatever else the machine runs. */
  readonly cpuMs: number;
  readonly wallMs: number;
}

function timed(run: () => void): Time {
  const cpu = process.cpuUsage();
  const start = performance.now();
  run();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

/** The best of REPS runs: the least disturbed by the other processes on the machine. */
function best(run: () => void): Time {
  const times = Array.from({ length: REPS }, () => timed(run));
  return { cpuMs: Math.min(...times.map((t) => t.cpuMs)), wallMs: Math.min(...times.map((t) => t.wallMs)) };
}

const fmt = (t: Time): string => `${t.cpuMs.toFixed(0)} ms CPU (${t.wallMs.toFixed(0)} ms wall)`;

function documentCount(text: string): number {
  let count = 0;
  for (const document of yamlDocuments(text, sourceText('scale.yaml'), new DiagnosticSink())) if (document.root) count++;
  return count;
}

function main(): number {
  const text = scaleConfig(SERVICES);
  const expected = SERVICES + 2;
  let count = 0;
  const cold = timed(() => (count = documentCount(text)));
  if (count !== expected) throw new Error(`expected ${expected} documents`);
  const result = parseConfig(text, 'scale.yaml');
  if (!result.ok || result.snapshot.services.length !== SERVICES) throw new Error('the scale configuration did not parse');
  const target = (TARGET_DOCUMENTS_MS_AT_10K * SERVICES) / 10_000;
  const documents = best(() => documentCount(text));
  const whole = best(() => parseConfig(text, 'scale.yaml'));
  const baseline = best(() => {
    for (const doc of new Composer().compose(new Parser().parse(text))) void doc;
  });
  console.log(
    `yaml: ${SERVICES.toLocaleString('en')} Service documents (${(text.length / 1e6).toFixed(1)} MB), warm: best of ${REPS}, ` +
      `node ${process.version}, load average ${loadavg()[0]?.toFixed(2)}`,
  );
  const ok = cold.cpuMs <= target;
  const rows: [string, string, string, string][] = [
    ['what', 'measured', 'target', ''],
    ['text -> YAML documents, cold (first parse)', fmt(cold), `<= ${target.toFixed(0)} ms`, ok ? 'ok' : 'MISSED'],
    ['text -> YAML documents, warm', fmt(documents), '-', ''],
    ['text -> validated Snapshot (whole load), warm', fmt(whole), '-', ''],
    [
      'baseline: the yaml package alone, warm',
      fmt(baseline),
      '-',
      `x${(baseline.cpuMs / documents.cpuMs).toFixed(1)} the warm documents row's CPU`,
    ],
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]?.length ?? 0)));
  for (const r of rows) console.log(`  ${r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i] ?? 0) : cell)).join('  ')}`);
  return ok ? 0 : 1;
}

process.exitCode = main();
