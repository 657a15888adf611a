/**
 * How often a new split-brain conflict is logged (and emitted as an event) per IP. The first new MAC on an IP is
 * said at once; the ones that follow within CONFLICT_LOG_INTERVAL_MS are only counted, and said in one line when
 * the interval ends ("and N more"). A flood of spoofed replies from random MACs then costs a line per IP every
 * few seconds instead of one per MAC; the metrics keep the exact counts. Pure: the clock comes in.
 */

/**
 * One line per IP per 10 s: a real split brain is seen at once, and a flood still reads as a handful of lines
 * a minute, each saying how many MACs it stands for.
 */
export const CONFLICT_LOG_INTERVAL_MS = 10_000;

interface IpWindow {
  readonly since: number;
  readonly held: number;
}

export type ConflictLogGate = ReadonlyMap<string, IpWindow>;
export const EMPTY_LOG_GATE: ConflictLogGate = new Map();

/** Whether a new conflict on `ip` is logged now ('first' opens a window) or held for the summary. */
export function admitConflictLog(
  gate: ConflictLogGate,
  ip: string,
  now: number,
  intervalMs = CONFLICT_LOG_INTERVAL_MS,
): { gate: ConflictLogGate; log: boolean; reason: 'first' | 'held' } {
  const w = gate.get(ip);
  const next = new Map(gate);
  if (w && now - w.since < intervalMs) {
    next.set(ip, { since: w.since, held: w.held + 1 });
    return { gate: next, log: false, reason: 'held' };
  }
  next.set(ip, { since: now, held: 0 });
  return { gate: next, log: true, reason: 'first' };
}

/**
 * Windows that ended: each IP with how many conflicts were held back in it (only those with some). Its summary
 * opens the IP's next window, so a flood that goes on is one line per interval, not a first line plus a summary.
 */
export function closeWindows(
  gate: ConflictLogGate,
  now: number,
  intervalMs = CONFLICT_LOG_INTERVAL_MS,
): { gate: ConflictLogGate; summaries: { ip: string; held: number }[] } {
  const summaries: { ip: string; held: number }[] = [];
  const next = new Map(gate);
  for (const [ip, w] of gate) {
    if (now - w.since < intervalMs) continue;
    if (w.held === 0) {
      next.delete(ip);
      continue;
    }
    summaries.push({ ip, held: w.held });
    next.set(ip, { since: now, held: 0 });
  }
  return { gate: next, summaries };
}

/** When the next window holding conflicts ends (its summary is due); undefined when none holds any. */
export function nextWindowEnd(gate: ConflictLogGate, intervalMs = CONFLICT_LOG_INTERVAL_MS): number | undefined {
  let next: number | undefined;
  for (const w of gate.values()) if (w.held > 0 && (next === undefined || w.since + intervalMs < next)) next = w.since + intervalMs;
  return next;
}
