/**
 * The demo's sentences, from facts to text: one line per step, plain words, times in seconds. Pure, so what a user
 * reads is tested without a lab; demo.ts decides what happened, this file only says it.
 */
import { DEFAULT_LAB_DIR, DEFAULT_LAB_NAME, type LabHostPlan, type LabPlan } from './lab-plan';
import type { Failover } from './probe-samples';
import type { NeighbourEntry } from './service-ownership';

/** "[  12.3 s] ": the time since the demo started, right-aligned so the lines read as a column. */
export function timestamp(elapsedMs: number): string {
  return `[${seconds(elapsedMs).padStart(6)} s]`;
}

/** Milliseconds as seconds with two decimals below 10 s ("1.24"), one above ("12.3"). */
export function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return s < 10 ? s.toFixed(2) : s.toFixed(1);
}

function hostSummary(host: LabHostPlan): string {
  return `${host.name} ${host.ipv4} ${host.mac}`;
}

export function labSummary(plan: LabPlan, elapsedMs: number): string {
  return `lab up in ${seconds(elapsedMs)} s: ${plan.nodes.map(hostSummary).join(', ')}; client ${plan.client.ipv4}`;
}

/** "the client's ARP entry points at 02:..:12 (node-2)", or why it cannot say. */
export function neighbourText(entry: (NeighbourEntry & { host?: string }) | undefined, family: 4 | 6 = 4): string {
  const table = family === 4 ? 'ARP' : 'neighbour';
  if (!entry?.mac) return `the client has no ${table} entry for it${entry ? ` (${entry.state.join(',') || 'no state'})` : ''}`;
  return `the client's ${table} entry points at ${entry.mac}${entry.host ? ` (${entry.host})` : ' (no lab host has that MAC)'}`;
}

/**
 * The failover as the client saw it: who answers now, how long after the act the new owner first answered, and
 * how long the client went without an answer.
 */
export function failoverText(f: Failover, actAt: number): string {
  const moved = `answers come from ${f.to} ${seconds(f.firstNewAnswer - actAt)} s later`;
  const gap =
    f.gapMs === undefined
      ? `${f.from} never answered before`
      : f.failedRequests === 0
        ? `the client lost no request (${seconds(f.gapMs)} s between ${f.from}'s last answer and ${f.to}'s first)`
        : `the client went ${seconds(f.gapMs)} s without an answer (${f.failedRequests} requests failed)`;
  const flap =
    f.oldAnswersAfter > 0 ? `; ${f.from} still answered ${f.oldAnswersAfter} more times after that (two owners for a moment)` : '';
  return `${moved}: ${gap}${flap}`;
}

/** A log file's last lines, indented, for a failed step; the daemon's JSON lines shortened to time, level, message. */
export function logExcerpt(title: string, text: string, lines: number): string[] {
  const tail = text
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '')
    .slice(-lines);
  return [`${title}:`, ...(tail.length > 0 ? tail.map((l) => `    ${readableLogLine(l)}`) : ['    (empty)'])];
}

/** `{"level":"info","ts":"...T10:23:24.018Z",...,"msg":"joined"}` -> `10:23:24.018 info joined`; other text as is. */
export function readableLogLine(line: string): string {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  const e = entry as { level?: unknown; ts?: unknown; msg?: unknown } | null;
  if (typeof e !== 'object' || e === null || typeof e.msg !== 'string') return line;
  const time = typeof e.ts === 'string' ? (/T([0-9:.]+)/.exec(e.ts)?.[1] ?? e.ts) : '';
  return [time, typeof e.level === 'string' ? e.level : '', e.msg].filter((p) => p !== '').join(' ');
}

/** The command that removes this lab, with only the flags that differ from the defaults. */
export function downCommandText(plan: Pick<LabPlan, 'name' | 'dir'>): string {
  return `mlb lab down${plan.name === DEFAULT_LAB_NAME ? '' : ` --name ${plan.name}`}${plan.dir === DEFAULT_LAB_DIR ? '' : ` --dir ${plan.dir}`}`;
}
