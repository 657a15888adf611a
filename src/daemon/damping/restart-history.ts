/**
 * When this node's daemon started recently and how each earlier run ended, kept under --state-dir (restarts.json)
 * so flap damping (warm-up-policy.ts) can tell a node crash-looping from one started for the first time in days.
 * A process cannot see its own crash; it can only record, on a graceful exit, that it stopped cleanly. A run
 * without that mark ended by a crash, a kill -9, the OOM killer or a power cut: all the same to damping.
 *
 * The record is pure data with pure updates (withStart, withCleanStop); recordStart and markCleanStop are the
 * tiny store that reads and writes it atomically (state-dir.ts).
 */
import { join } from 'node:path';
import { readJSONState, writeFileAtomic } from '../state-dir';

export const RESTART_HISTORY_FILE = 'restarts.json';
/**
 * Runs kept at most. The policy stops growing the warm-up after 6 starts in its window (30 s x 2^5 passes the
 * 10 min cap), so 64 is ten times what it reads, and a crash loop every second still writes a file of ~5 KiB.
 */
export const RESTART_HISTORY_MAX_RUNS = 64;
/**
 * Runs started longer ago than this are dropped (the one that just ended is always kept, however old: it says how
 * the last run ended). A day is far longer than the policy's window, and enough to say "restarted N times today".
 */
export const RESTART_HISTORY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** One run of the daemon: epoch milliseconds (wall clock: the only clock that survives a restart). */
export interface DaemonRun {
  readonly startedAt: number;
  /** Set by markCleanStop on a graceful exit; absent on the current run and on every run that crashed. */
  readonly stoppedCleanlyAt?: number;
}

/** Oldest first, in the order the starts were recorded; once recordStart ran, the last run is the current one. */
export interface RestartHistory {
  readonly runs: readonly DaemonRun[];
}

export const EMPTY_RESTART_HISTORY: RestartHistory = { runs: [] };

/** Adds a run started at `now`, dropping runs beyond the retention and the count limit (never the previous one). */
export function withStart(history: RestartHistory, now: number): RestartHistory {
  const runs = history.runs;
  const previous = runs[runs.length - 1];
  // Either side of now: a run stamped in the future (the clock was stepped back since) ages out the same way.
  const kept = runs.filter((run) => run === previous || Math.abs(now - run.startedAt) < RESTART_HISTORY_RETENTION_MS);
  return { runs: [...kept, { startedAt: now }].slice(-RESTART_HISTORY_MAX_RUNS) };
}

/** Marks the current (last) run as stopped cleanly at `now`; an empty history stays empty. */
export function withCleanStop(history: RestartHistory, now: number): RestartHistory {
  const current = history.runs[history.runs.length - 1];
  if (!current) return history;
  return { runs: [...history.runs.slice(0, -1), { startedAt: current.startedAt, stoppedCleanlyAt: now }] };
}

// --- the file ---------------------------------------------------------------------------------------------------

interface RestartHistoryFile {
  readonly version: 1;
  readonly runs: readonly { readonly startedAt: string; readonly stoppedCleanlyAt?: string }[];
}

const isTime = (v: unknown): v is string => typeof v === 'string' && Number.isFinite(Date.parse(v));

function isRestartHistoryFile(v: unknown): v is RestartHistoryFile {
  const f = v as RestartHistoryFile;
  return (
    typeof f === 'object' && f !== null && f.version === 1 && Array.isArray(f.runs)
    && f.runs.every((r) => typeof r === 'object' && r !== null && isTime(r.startedAt) && (r.stoppedCleanlyAt === undefined || isTime(r.stoppedCleanlyAt)))
  );
}

function toFile(history: RestartHistory): RestartHistoryFile {
  return {
    version: 1,
    runs: history.runs.map((r) => ({
      startedAt: new Date(r.startedAt).toISOString(),
      ...(r.stoppedCleanlyAt === undefined ? {} : { stoppedCleanlyAt: new Date(r.stoppedCleanlyAt).toISOString() }),
    })),
  };
}

function fromFile(file: RestartHistoryFile): RestartHistory {
  return {
    runs: file.runs.map((r) => ({
      startedAt: Date.parse(r.startedAt),
      ...(r.stoppedCleanlyAt === undefined ? {} : { stoppedCleanlyAt: Date.parse(r.stoppedCleanlyAt) }),
    })),
  };
}

export interface LoadedRestartHistory {
  readonly history: RestartHistory;
  /** Why the file was not used (damaged, unreadable); the history is then empty. */
  readonly problem?: string;
}

/** The history on disk; a missing file is an empty history, a damaged one too, with the problem said. */
export async function loadRestartHistory(stateDir: string): Promise<LoadedRestartHistory> {
  const path = join(stateDir, RESTART_HISTORY_FILE);
  try {
    const file = await readJSONState(path, isRestartHistoryFile);
    return { history: file ? fromFile(file) : EMPTY_RESTART_HISTORY };
  } catch (error) {
    return { history: EMPTY_RESTART_HISTORY, problem: `${path}: ${(error as Error).message}; starting a new restart history` };
  }
}

export async function saveRestartHistory(stateDir: string, history: RestartHistory): Promise<void> {
  await writeFileAtomic(join(stateDir, RESTART_HISTORY_FILE), `${JSON.stringify(toFile(history), null, 2)}\n`);
}

/**
 * Records this run's start and returns the history including it (its last run). Throws only when the file
 * cannot be written; a damaged file is replaced and reported in `problem`.
 */
export async function recordStart(stateDir: string, now: number): Promise<LoadedRestartHistory> {
  const loaded = await loadRestartHistory(stateDir);
  const history = withStart(loaded.history, now);
  await saveRestartHistory(stateDir, history);
  return { history, ...(loaded.problem === undefined ? {} : { problem: loaded.problem }) };
}

/** Called on a graceful exit: the next start will know this run did not crash. */
export async function markCleanStop(stateDir: string, now: number): Promise<RestartHistory> {
  const { history } = await loadRestartHistory(stateDir);
  const stopped = withCleanStop(history, now);
  await saveRestartHistory(stateDir, stopped);
  return stopped;
}
