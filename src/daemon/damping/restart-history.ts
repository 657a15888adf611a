/**
 * How this node's earlier daemon runs ended, kept under --state-dir (restarts.json) so flap damping
 * (warm-up-policy.ts) can tell a node crash-looping from one restarted on purpose.
 *
 * What counts is an unclean end of a daemon that was running. "Running" starts when the daemon has loaded its
 * configuration, is listening for gossip and its first join attempt is over: from then on it may own IPs, so its
 * end moves them. A start that never gets there (a configuration refused, a port taken) moved nothing and is not
 * recorded at all. A graceful exit (SIGTERM) hands every IP over without a gap and is recorded as a clean stop.
 *
 * A process cannot record its own crash, so the run is recorded when it starts running ("running since"), a
 * graceful exit adds the clean stop, and the next start that finds neither a clean stop nor an earlier notice on
 * the last run notes that it ended uncleanly (a crash, kill -9, the OOM killer, a power cut), at that start's time.
 * Refused starts in between find the end already noted, so one crash is counted once however many starts follow.
 *
 * The record is pure data with pure updates (withUncleanEndNoticed, withRunning, withCleanStop); the load and save
 * functions read and write it atomically through the StateFiles seam (the --state-dir path, or the node's store).
 */
import type { StateFiles } from '../../runtime/state-files';
import { asStateFiles } from '../directory-state-files';
import { isAnyJSON, readStateFileJSON } from '../state-dir';

export const RESTART_HISTORY_FILE = 'restarts.json';
/**
 * Runs kept at most. The policy stops growing the warm-up after 6 unclean ends in its window (30 s x 2^5 passes
 * the 10 min cap), so 64 is ten times what it reads, and a crash loop every second still writes a file of ~8 KiB.
 */
export const RESTART_HISTORY_MAX_RUNS = 64;
/**
 * Runs whose last event (running since, clean stop, unclean end noticed) is longer ago than this are dropped (the
 * last run is always kept, however old: it says how the last run ended). A day is far longer than the policy's
 * window, and enough to say "crashed N times today".
 */
export const RESTART_HISTORY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** One run of the daemon that got running: epoch milliseconds (wall clock: the only clock that survives a restart). */
export interface DaemonRun {
  /** When it started serving (the shell's markRunning). */
  readonly runningSince: number;
  /** Set on a graceful exit. */
  readonly stoppedCleanlyAt?: number;
  /** Set by the first later start that found no clean stop: the run ended uncleanly before this time. */
  readonly uncleanEndNoticedAt?: number;
}

/** Oldest first, in the order they got running. */
export interface RestartHistory {
  readonly runs: readonly DaemonRun[];
}

export const EMPTY_RESTART_HISTORY: RestartHistory = { runs: [] };

/** How a run ended, as far as the history knows: still 'open' until a clean stop or a later start says. */
export function runEnd(run: DaemonRun): 'clean' | 'unclean' | 'open' {
  if (run.stoppedCleanlyAt !== undefined) return 'clean';
  return run.uncleanEndNoticedAt === undefined ? 'open' : 'unclean';
}

/**
 * At a start: the last run neither stopped cleanly nor was noticed ending: it ended uncleanly, noticed `now`.
 * Returns the same object when there is nothing to notice.
 */
export function withUncleanEndNoticed(history: RestartHistory, now: number): RestartHistory {
  const last = history.runs[history.runs.length - 1];
  if (!last || runEnd(last) !== 'open') return history;
  return { runs: [...history.runs.slice(0, -1), { ...last, uncleanEndNoticedAt: now }] };
}

/** This run started serving at `now`: appended, dropping runs beyond the retention and the count limit. */
export function withRunning(history: RestartHistory, now: number): RestartHistory {
  const runs = history.runs;
  const last = runs[runs.length - 1];
  // Either side of now: a run stamped in the future (the clock was stepped back since) ages out the same way.
  const kept = runs.filter((run) => run === last || Math.abs(now - lastEventOf(run)) < RESTART_HISTORY_RETENTION_MS);
  return { runs: [...kept, { runningSince: now }].slice(-RESTART_HISTORY_MAX_RUNS) };
}

/**
 * Marks the run that started serving at `runningSince` (this process's) as stopped cleanly at `now`. Nothing else
 * is touched: a process that never got running has no run to mark, and must not mark an earlier one clean.
 */
export function withCleanStop(history: RestartHistory, runningSince: number, now: number): RestartHistory {
  const last = history.runs[history.runs.length - 1];
  if (!last || last.runningSince !== runningSince || runEnd(last) !== 'open') return history;
  return { runs: [...history.runs.slice(0, -1), { runningSince, stoppedCleanlyAt: now }] };
}

function lastEventOf(run: DaemonRun): number {
  return Math.max(run.runningSince, run.stoppedCleanlyAt ?? -Infinity, run.uncleanEndNoticedAt ?? -Infinity);
}

// --- the file ---------------------------------------------------------------------------------------------------

/**
 * Version 2: only runs that got running, each with how it ended. Version 1 (earlier mlb) recorded every start,
 * refused ones included, as a run: it cannot tell those from crashes, so it is replaced (see loadRestartHistory).
 */
interface RestartHistoryFile {
  readonly version: 2;
  readonly runs: readonly { readonly runningSince: string; readonly stoppedCleanlyAt?: string; readonly uncleanEndNoticedAt?: string }[];
}

const isTime = (v: unknown): v is string => typeof v === 'string' && Number.isFinite(Date.parse(v));
const isOptionalTime = (v: unknown): boolean => v === undefined || isTime(v);

function isRestartHistoryFile(v: unknown): v is RestartHistoryFile {
  const f = v as RestartHistoryFile;
  return (
    typeof f === 'object' &&
    f !== null &&
    f.version === 2 &&
    Array.isArray(f.runs) &&
    f.runs.every(
      (r) =>
        typeof r === 'object' &&
        r !== null &&
        isTime(r.runningSince) &&
        isOptionalTime(r.stoppedCleanlyAt) &&
        isOptionalTime(r.uncleanEndNoticedAt),
    )
  );
}

const isVersion1 = (v: unknown): boolean => typeof v === 'object' && v !== null && (v as { version?: unknown }).version === 1;

const iso = (ms: number): string => new Date(ms).toISOString();
const epoch = (text: string | undefined): number | undefined => (text === undefined ? undefined : Date.parse(text));

function toFile(history: RestartHistory): RestartHistoryFile {
  return {
    version: 2,
    runs: history.runs.map((r) => ({
      runningSince: iso(r.runningSince),
      ...(r.stoppedCleanlyAt === undefined ? {} : { stoppedCleanlyAt: iso(r.stoppedCleanlyAt) }),
      ...(r.uncleanEndNoticedAt === undefined ? {} : { uncleanEndNoticedAt: iso(r.uncleanEndNoticedAt) }),
    })),
  };
}

function fromFile(file: RestartHistoryFile): RestartHistory {
  return {
    runs: file.runs.map((r) => {
      const stoppedCleanlyAt = epoch(r.stoppedCleanlyAt);
      const uncleanEndNoticedAt = epoch(r.uncleanEndNoticedAt);
      return {
        runningSince: Date.parse(r.runningSince),
        ...(stoppedCleanlyAt === undefined ? {} : { stoppedCleanlyAt }),
        ...(uncleanEndNoticedAt === undefined ? {} : { uncleanEndNoticedAt }),
      };
    }),
  };
}

export interface LoadedRestartHistory {
  readonly history: RestartHistory;
  /** Why the file was not used (damaged, unreadable, an older format); the history is then empty. */
  readonly problem?: string;
}

/** The history on disk; a missing file is an empty history, an unusable one too, with the problem said. */
export async function loadRestartHistory(state: string | StateFiles): Promise<LoadedRestartHistory> {
  const files = asStateFiles(state);
  const path = files.pathOf(RESTART_HISTORY_FILE);
  try {
    const file = await readStateFileJSON(files, RESTART_HISTORY_FILE, isAnyJSON);
    if (file === undefined) return { history: EMPTY_RESTART_HISTORY };
    if (isRestartHistoryFile(file)) return { history: fromFile(file) };
    if (isVersion1(file)) {
      return {
        history: EMPTY_RESTART_HISTORY,
        problem: `${path} is from an earlier mlb that counted refused starts as crashes; starting a new restart history`,
      };
    }
    return { history: EMPTY_RESTART_HISTORY, problem: `${path} does not hold what mlb wrote there; starting a new restart history` };
  } catch (error) {
    return { history: EMPTY_RESTART_HISTORY, problem: `${path}: ${(error as Error).message}; starting a new restart history` };
  }
}

export async function saveRestartHistory(state: string | StateFiles, history: RestartHistory): Promise<void> {
  await asStateFiles(state).writeAtomic(RESTART_HISTORY_FILE, `${JSON.stringify(toFile(history), null, 2)}\n`);
}

/** The daemon started serving at `now`: from here an end without recordCleanStop is an unclean end. */
export async function recordRunning(state: string | StateFiles, now: number): Promise<RestartHistory> {
  const history = withRunning((await loadRestartHistory(state)).history, now);
  await saveRestartHistory(state, history);
  return history;
}

/** A graceful exit of the run recorded running at `runningSince`. */
export async function recordCleanStop(state: string | StateFiles, runningSince: number, now: number): Promise<RestartHistory> {
  const history = withCleanStop((await loadRestartHistory(state)).history, runningSince, now);
  await saveRestartHistory(state, history);
  return history;
}
