/**
 * The daemon's own account of its ARP answers: the answer thread's two stages (mlb_arp_fast_path_answer_seconds,
 * src/native/arp-answer-times.h), read from its metrics endpoint inside the node's namespace. The client's
 * latency is the kernel's way in, these two stages, and the kernel's way back; the kernel's own address shares the
 * ways in and back, so a slow client-seen answer whose stages were quick is the machine's, not the daemon's.
 * Parsing and quantiles are pure; scrapeAnswerTimes runs curl in the namespace.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { LabHost } from '../../test/support/netns-lab';
import { formatValue } from './scale-rows';

const run = promisify(execFile);

export const ANSWER_TIMES_METRIC = 'mlb_arp_fast_path_answer_seconds';
/** The daemon serves its metrics on the namespace's loopback only: the bench reads them with curl in there. */
export const METRICS_BIND = '127.0.0.1:7472';
const SCRAPE_TIMEOUT_MS = 10_000;

/** One stage's cumulative buckets as scraped: [upper bound in seconds (Infinity last), count up to it]. */
export type StageBuckets = readonly (readonly [le: number, cumulative: number])[];

export interface AnswerTimes {
  readonly queued: StageBuckets;
  readonly answering: StageBuckets;
}

/** The stages' buckets from a Prometheus exposition; undefined when the daemon has no such series (nothing answered). */
export function parseAnswerTimes(exposition: string): AnswerTimes | undefined {
  const stages = new Map<string, [number, number][]>();
  const line = new RegExp(`^${ANSWER_TIMES_METRIC}_bucket\\{(.*)\\} (\\S+)$`);
  for (const text of exposition.split('\n')) {
    const m = line.exec(text);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const le = labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.le);
    const list = stages.get(labels.stage ?? '') ?? [];
    list.push([le, Number(m[2])]);
    stages.set(labels.stage ?? '', list);
  }
  const queued = stages.get('queued');
  const answering = stages.get('answering');
  if (!queued || !answering) return undefined;
  const sorted = (b: [number, number][]) => b.sort((x, y) => x[0] - y[0]);
  return { queued: sorted(queued), answering: sorted(answering) };
}

/** What was counted between two scrapes of the same daemon (`before` undefined: since it started). */
export function answerTimesSince(now: AnswerTimes, before: AnswerTimes | undefined): AnswerTimes {
  const minus = (a: StageBuckets, b: StageBuckets | undefined): StageBuckets =>
    a.map(([le, n], i) => [le, n - (b?.[i]?.[1] ?? 0)] as const);
  return { queued: minus(now.queued, before?.queued), answering: minus(now.answering, before?.answering) };
}

/** The upper bound of the bucket the q-quantile falls in (seconds); undefined with no observation. */
export function quantileBound(buckets: StageBuckets, q: number): number | undefined {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return undefined;
  return buckets.find(([, n]) => n >= q * total)?.[0];
}

/** "n answers; queued p50 <= 20 us, p99 <= 50 us; answering p50 <= 10 us, p99 <= 20 us" (bounds of buckets). */
export function describeAnswerTimes(times: AnswerTimes): string {
  const bound = (s: StageBuckets, q: number) => {
    const b = quantileBound(s, q);
    return b === undefined ? '-' : b === Number.POSITIVE_INFINITY ? '> the last bucket' : `<= ${formatValue(b * 1e6, 'us')}`;
  };
  const stage = (name: string, s: StageBuckets) => `${name} p50 ${bound(s, 0.5)}, p99 ${bound(s, 0.99)}`;
  return `${times.answering.at(-1)?.[1] ?? 0} answers; ${stage('queued', times.queued)}; ${stage('answering', times.answering)}`;
}

/** Reads the daemon's answer times from its metrics endpoint (started with --metrics-bind METRICS_BIND). */
export async function scrapeAnswerTimes(host: LabHost): Promise<AnswerTimes | undefined> {
  try {
    const { stdout } = await run('ip', ['netns', 'exec', host.netns, 'curl', '-sf', `http://${METRICS_BIND}/metrics`], {
      timeout: SCRAPE_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    return parseAnswerTimes(stdout);
  } catch {
    return undefined;
  }
}
