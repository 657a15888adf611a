/**
 * Where the answer thread's "queued" time goes: the kernel's scheduler events (tracefs) for one thread while the
 * bench asks the daemon at a fixed rate. Each time the thread is woken there are three moments:
 *   waking  sched_waking, in the waker's context: the softirq that queued a request on the thread's socket;
 *   wakeup  sched_wakeup: the thread is on the run queue of its CPU (for a wakeup sent to another CPU, once that
 *           CPU has taken the request: on a virtual machine, once the hypervisor runs that virtual CPU);
 *   running sched_switch to the thread.
 * waking -> wakeup is the way to the other CPU; wakeup -> running is that CPU's scheduler (a real-time thread
 * preempts any ordinary task at once, unless the CPU is inside a section that cannot be preempted). What the
 * CPU was running at `waking` (idle or a task) tells the two cases apart. SCALE_TRACE_WAKEUPS=1 turns it on;
 * root only, tracefs mounted at /sys/kernel/tracing. Parsing is pure; start/stop write tracefs files.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { quantile } from '../gossip/lab-nodes';

const TRACEFS = '/sys/kernel/tracing';
/** SCALE_TRACE_WAKEUPS=1: trace the scheduler while binding and during the first fixed-rate round. */
export const TRACE_WAKEUPS = process.env.SCALE_TRACE_WAKEUPS === '1';
/** The addon's answer thread as the kernel names it (src/native/arp-answer-thread.cc kThreadName). */
export const ANSWER_THREAD_NAME = 'mlb-arp-answer';
/** Per CPU: a 6 s run at 10,000 requests/s writes a few hundred thousand events. */
const BUFFER_KB = 32 * 1024;
const EVENTS = ['sched/sched_waking', 'sched/sched_wakeup', 'sched/sched_switch'];

export function canTraceWakeups(): boolean {
  return existsSync(`${TRACEFS}/events/sched/sched_waking/enable`);
}

function write(file: string, text: string): void {
  writeFileSync(`${TRACEFS}/${file}`, text);
}

/** Clears the buffer and starts recording the scheduler's wakeups and switches (every task: the switches show what ran). */
export function startWakeupTrace(): void {
  write('tracing_on', '0');
  write('buffer_size_kb', String(BUFFER_KB));
  write('trace_clock', 'mono');
  write('trace', '');
  for (const event of EVENTS) write(`events/${event}/enable`, '1');
  write('tracing_on', '1');
}

/** Stops recording and returns the trace's text (the events are turned off again). */
export function stopWakeupTrace(): string {
  write('tracing_on', '0');
  for (const event of EVENTS) write(`events/${event}/enable`, '0');
  const text = readFileSync(`${TRACEFS}/trace`, 'utf8');
  write('trace', '');
  write('buffer_size_kb', '1408');
  return text;
}

export interface Wakeup {
  /** waking -> wakeup, microseconds. */
  readonly toQueueUs: number;
  /** wakeup -> running, microseconds. */
  readonly toRunUs: number;
  readonly cpu: number;
  /** What the thread's CPU ran when the waking happened: 'idle' or a task's name. */
  readonly cpuWas: string;
}

const LINE = /^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (sched_waking|sched_wakeup|sched_switch): (.*)$/;

/** Every complete wakeup (waking, wakeup, running) of the thread named `comm` in a trace's text, in order. */
export function wakeupsOf(trace: string, comm: string): Wakeup[] {
  const running = new Map<number, string>();
  const out: Wakeup[] = [];
  let pending: { waking: number; wakeup?: number; cpu?: number; cpuWas?: string } | undefined;
  for (const text of trace.split('\n')) {
    const m = LINE.exec(text);
    if (!m) continue;
    const cpu = Number(m[3]);
    const at = Number(m[4]) * 1e6;
    const event = m[5]!;
    const fields = m[6]!;
    if (event === 'sched_switch') {
      const next = /next_comm=(.+?) next_pid=(\d+)/.exec(fields);
      if (!next) continue;
      const name = next[2] === '0' ? 'idle' : next[1]!;
      running.set(cpu, name);
      if (next[1] === comm && pending?.wakeup !== undefined && pending.cpu === cpu) {
        out.push({ toQueueUs: pending.wakeup - pending.waking, toRunUs: at - pending.wakeup, cpu, cpuWas: pending.cpuWas ?? 'unknown' });
        pending = undefined;
      }
      continue;
    }
    const who = /comm=(.+?) pid=\d+ prio=-?\d+ target_cpu=(\d+)/.exec(fields);
    if (!who || who[1] !== comm) continue;
    const target = Number(who[2]);
    if (event === 'sched_waking') pending = { waking: at, cpu: target, cpuWas: running.get(target) ?? 'unknown' };
    else if (pending && pending.wakeup === undefined) pending = { ...pending, wakeup: at, cpu: target };
  }
  return out;
}

/** How many of the wakeups took longer than `slowUs` from waking to running. */
export function slowWakeups(wakeups: readonly Wakeup[], slowUs = 1_000): number {
  return wakeups.filter((w) => w.toQueueUs + w.toRunUs > slowUs).length;
}

/** "n wakeups; to the queue p50/p99/max ...; to running ...; of those over 1 ms in all: k with the CPU idle, ..." */
export function describeWakeups(wakeups: readonly Wakeup[], slowUs = 1_000): string {
  if (wakeups.length === 0) return 'no wakeup of the answer thread traced';
  const us = (v: number) => (v >= 1_000 ? `${(v / 1_000).toFixed(2)} ms` : `${Math.round(v)} µs`);
  const spread = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `p50 ${us(quantile(sorted, 0.5))}, p99 ${us(quantile(sorted, 0.99))}, max ${us(sorted.at(-1)!)}`;
  };
  const slow = wakeups.filter((w) => w.toQueueUs + w.toRunUs > slowUs);
  const byWas = new Map<string, number>();
  for (const w of slow) byWas.set(w.cpuWas, (byWas.get(w.cpuWas) ?? 0) + 1);
  const was = [...byWas]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${n} ${name}`)
    .join(', ');
  const slowQueue = slow.filter((w) => w.toQueueUs >= w.toRunUs).length;
  return (
    `${wakeups.length} wakeups; waking -> on the run queue ${spread(wakeups.map((w) => w.toQueueUs))}; ` +
    `run queue -> running ${spread(wakeups.map((w) => w.toRunUs))}; ${slow.length} over ${us(slowUs)} in all` +
    (slow.length ? ` (${slowQueue} mostly before the run queue; the CPU was running: ${was})` : '')
  );
}
