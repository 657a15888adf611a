/**
 * What a reload's parse of a large file costs with and without the reused document readings (model/parse/
 * document-cache.ts), warm, in one process: a file of N Services (bench/scale's scaleConfig), then edited
 * (one Service appended; a port changed in the middle, lines unchanged; a Service inserted in the middle,
 * every later line shifted). Each edit is parsed fresh (parseConfig) and reusing the readings of the file before
 * it (parseConfigReusing), interleaved, after warm-up; medians, with reading and the checks after it apart.
 *
 *   node --import tsx scripts/profile/parse-reuse.ts [services=10000] [runs=15]
 *
 * Not a test: it prints wall times, which depend on the machine (and on what else runs on it).
 */
import { isDeepStrictEqual } from 'node:util';
import { scaleConfig } from '../../bench/scale/scale-config';
import { type DocumentCache, parseConfig, parseConfigReusing } from '../../src/model';
import { DiagnosticSink } from '../../src/model/parse/diagnostic-sink';
import { finishParse } from '../../src/model/parse/parse-config';
import { emptyParsedObjects } from '../../src/model/parse/parsed-objects';
import { readDocumentsReusing } from '../../src/model/parse/read-documents';
import { sourceText } from '../../src/model/parse/yaml-documents';

const services = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 15);
/** Runs before timing: the parser's code optimised, as in a daemon that has loaded the file once. */
const WARM_UP = 4;
const FILE = 'mlb.yaml';

const base = scaleConfig(services);
const extraService = (name: string): string =>
  `---\napiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: scale\nspec:\n  type: LoadBalancer\n  ports: [{ port: 80, protocol: TCP }]\n`;
const middle = base.indexOf(`name: svc-${String(Math.ceil(services / 2)).padStart(5, '0')}\n`);
const middleDocument = base.lastIndexOf('---\n', middle);
const edits: Record<string, string> = {
  'append one Service': base + extraService('added'),
  'change a port in the middle (lines kept)': base.slice(0, middle) + base.slice(middle).replace('port: 80,', 'port: 81,'),
  'insert a Service in the middle (lines shift)': base.slice(0, middleDocument) + extraService('inserted') + base.slice(middleDocument),
};

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const ms = (value: number): string => `${value.toFixed(1).padStart(7)} ms`;

/** The wall time of `run`, and (cpu) the process's CPU time over it: steadier than wall time on a shared machine. */
function timed<T>(run: () => T, cpu?: number[]): [T, number] {
  const start = performance.now();
  const used = process.cpuUsage();
  const value = run();
  const { user, system } = process.cpuUsage(used);
  cpu?.push((user + system) / 1000);
  return [value, performance.now() - start];
}

/** parseConfigReusing's two steps, timed apart. */
function reusingInSteps(text: string, previous: DocumentCache): { read: number; finish: number } {
  const sink = new DiagnosticSink();
  const parsed = emptyParsedObjects();
  const [, read] = timed(() => readDocumentsReusing(text, sourceText(FILE), sink, parsed, previous));
  const [, finish] = timed(() => finishParse(parsed, sink));
  return { read, finish };
}

const { documents: before } = parseConfigReusing(base, FILE, {}, undefined);
console.log(`${services} Services, ${(base.length / 1e6).toFixed(1)} MB; median of ${runs} runs after ${WARM_UP} warm-up runs`);
for (const [name, text] of Object.entries(edits)) {
  const fresh: number[] = [];
  const reusing: number[] = [];
  const freshCpu: number[] = [];
  const reusingCpu: number[] = [];
  const steps: { read: number; finish: number }[] = [];
  for (let i = 0; i < WARM_UP + runs; i++) {
    const warm = i >= WARM_UP;
    const [expected, freshMs] = timed(() => parseConfig(text, FILE), warm ? freshCpu : undefined);
    const [got, reusingMs] = timed(() => parseConfigReusing(text, FILE, {}, before), warm ? reusingCpu : undefined);
    if (i === 0 && !isDeepStrictEqual(got.result, expected)) throw new Error(`${name}: the reusing parse differs from the fresh one`);
    const step = reusingInSteps(text, before);
    if (!warm) continue;
    fresh.push(freshMs);
    reusing.push(reusingMs);
    steps.push(step);
  }
  const reused = parseConfigReusing(text, FILE, {}, before).documents.documents;
  console.log(`\n${name}:`);
  console.log(
    `  fresh parseConfig      ${ms(median(fresh))}   (min ${ms(Math.min(...fresh))}, max ${ms(Math.max(...fresh))}; CPU ${ms(median(freshCpu))})`,
  );
  console.log(
    `  reusing the readings   ${ms(median(reusing))}   (min ${ms(Math.min(...reusing))}, max ${ms(Math.max(...reusing))}; CPU ${ms(median(reusingCpu))})`,
  );
  console.log(`    of which reading     ${ms(median(steps.map((s) => s.read)))}`);
  console.log(`    of which finishParse ${ms(median(steps.map((s) => s.finish)))}`);
  console.log(`  documents kept for the next parse: ${reused.size}`);
}
