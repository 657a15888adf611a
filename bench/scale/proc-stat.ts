/**
 * A process's CPU time and memory from /proc (proc(5)): the parsers are pure (tested in
 * test/bench/scale-bench-parts.test.ts), the readers return undefined once the process is gone.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** utime + stime of /proc/PID/stat, in clock ticks; undefined when the text is not a stat line. */
export function parseCpuTicks(stat: string): number | undefined {
  // The command name (field 2) is in parentheses and may itself hold spaces and ')': the fields after it start
  // after the LAST ')'. Counting from there, state is field 3, utime field 14 and stime field 15.
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  return Number.isFinite(utime) && Number.isFinite(stime) && fields.length >= 13 ? utime + stime : undefined;
}

/** A "Name:   1234 kB" line of /proc/PID/status, in bytes (VmRSS: resident now, VmHWM: the peak so far). */
export function parseStatusBytes(status: string, field: 'VmRSS' | 'VmHWM'): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

export function cpuTicksOf(pid: number): number | undefined {
  const stat = readProc(pid, 'stat');
  return stat === undefined ? undefined : parseCpuTicks(stat);
}

export function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  const status = readProc(pid, 'status');
  return status === undefined ? undefined : parseStatusBytes(status, field);
}

/** Clock ticks per second (USER_HZ), 100 on every Linux this runs on; getconf says for sure. */
export function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

/** One CPU's line of /proc/stat: the ticks stolen by the hypervisor and all ticks (proc(5): steal is field 8). */
export interface CpuTimes {
  readonly steal: number;
  readonly total: number;
}

/** Each "cpuN" line of /proc/stat (not the "cpu" total), by N. */
export function parseCpuTimes(stat: string): Map<number, CpuTimes> {
  const cpus = new Map<number, CpuTimes>();
  for (const line of stat.split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const ticks = m[2]!.trim().split(/\s+/).map(Number);
    // guest and guest_nice (fields 9, 10) are already inside user and nice: left out of the total.
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    cpus.set(Number(m[1]), { steal: ticks[7] ?? 0, total });
  }
  return cpus;
}

/** Each CPU's share of time stolen between two readings, in percent (a CPU without ticks between them is left out). */
export function stealPercent(before: Map<number, CpuTimes>, after: Map<number, CpuTimes>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [cpu, a] of after) {
    const b = before.get(cpu);
    if (!b || a.total <= b.total) continue;
    out.set(cpu, (100 * (a.steal - b.steal)) / (a.total - b.total));
  }
  return out;
}

export function readCpuTimes(): Map<number, CpuTimes> {
  return parseCpuTimes(readFileSync('/proc/stat', 'utf8'));
}
