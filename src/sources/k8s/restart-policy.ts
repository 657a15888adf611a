/**
 * When a watch of the Kubernetes API starts again, as numbers. @kubernetes/client-node 1.4.0's ListWatch stops for
 * good on any error (a dropped connection, a refused one, a 500 or 403), has no client timeout (a half-open
 * connection hangs it silently), and re-watches at once after a clean close; so the wrapper (resource-watch.ts)
 * restarts it itself, waits between attempts, and watches for silence. Pure: the randomness is passed in.
 */
import type { Randomness } from '../../runtime/runtime';

/** The first wait after a failure: soon enough that a blip is bridged, far enough apart not to hammer. */
export const MIN_RESTART_DELAY_MS = 1_000;
/** The longest wait between attempts (client-go's reflector backs off to 30 s as well). */
export const MAX_RESTART_DELAY_MS = 30_000;
/**
 * The server ends each watch after this many seconds (timeoutSeconds, chosen per watch in [min, max]): a stream
 * never lives forever behind a proxy that forgot it, and the watches of many speakers do not end together
 * (kubectl and client-go pick 5-10 min the same way).
 */
const WATCH_TIMEOUT_MIN_S = 300;
const WATCH_TIMEOUT_MAX_S = 600;
/**
 * A watch that heard nothing (no event, no bookmark) for this long is taken for a half-open connection and
 * restarted. The API server sends bookmarks (allowWatchBookmarks) about once a minute, so a live quiet watch is
 * well inside it; restarting a watch that was merely quiet costs one request and resumes from the same version.
 */
const WATCH_SILENCE_LIMIT_MS = 150_000;
/** How often the silence is looked at; the limit is reached at most this late. */
export const WATCHDOG_CHECK_MS = 15_000;
/** A watch open this long, or one that delivered a line, was healthy: the next failure starts the backoff anew. */
export const HEALTHY_WATCH_MS = 30_000;
/**
 * Watch requests of one resource start at least this far apart. A server (or proxy) that answers a watch with an
 * empty 200 makes 1.4.0's ListWatch re-watch at once, forever; this bounds that loop to one request a second.
 */
const MIN_WATCH_SPACING_MS = 1_000;
/** A list or a watch's response headers not there after this long: the request is given up and retried. */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The wait before attempt `failures` + 1: exponential from MIN to MAX, with the upper half jittered so that the
 * speakers of a cluster that lost the API server together do not come back together.
 */
export function restartDelayMs(failures: number, random: Randomness): number {
  const exponent = Math.max(0, failures - 1);
  const ceiling = Math.min(MAX_RESTART_DELAY_MS, MIN_RESTART_DELAY_MS * 2 ** Math.min(exponent, 16));
  return Math.max(MIN_RESTART_DELAY_MS, Math.round(ceiling / 2 + random.random() * (ceiling / 2)));
}

/** timeoutSeconds for the watches of one resource. */
export function watchTimeoutSeconds(random: Randomness): number {
  return WATCH_TIMEOUT_MIN_S + random.randomInt(WATCH_TIMEOUT_MAX_S - WATCH_TIMEOUT_MIN_S + 1);
}

/** Whether an open watch has been silent too long. */
export function watchIsSilent(now: number, lastContact: number, limitMs = WATCH_SILENCE_LIMIT_MS): boolean {
  return now - lastContact >= limitMs;
}

/** How long a new watch request must wait so that it starts MIN_WATCH_SPACING_MS after the previous one. */
export function watchSpacingDelayMs(now: number, previousStart: number | undefined): number {
  if (previousStart === undefined) return 0;
  return Math.max(0, previousStart + MIN_WATCH_SPACING_MS - now);
}

/** The path a resource is watched at: its collection, with the query of the file comment (survives client-node's URL building). */
export function watchPath(collection: string, timeoutSeconds: number): string {
  return `${collection}?allowWatchBookmarks=true&timeoutSeconds=${timeoutSeconds}`;
}
