/**
 * How one decision's owner changes are logged. Pure.
 *
 * A move (an IP handed over, taken from a gone holder, left without one) is always a line of its own at info: it
 * is what an operator searches the logs for. A first holder is not a move: this node has only just learned who
 * holds an IP, for every service at start and for each one a reload adds. Past FIRST_HOLDER_INFO_LINES of those
 * in one decision, the rest go to debug and one info line counts them by holder, so a daemon starting with 10,000
 * services writes a few dozen lines instead of 10,000 (each about 80 µs, written synchronously, inside the
 * decision). The event stream (`mlb status --watch`) still gets every change.
 */
import type { Logger } from 'pino';
import type { OwnerChange } from './owner-history';
import type { OwnerChangeReport } from './speaker-plan';

/** First-holder changes of one decision logged one by one at info; the rest are counted in one line. */
export const FIRST_HOLDER_INFO_LINES = 20;

export interface FirstHolderSummary {
  /** First-holder changes logged at debug only. */
  readonly services: number;
  /** Holder (a BGP outcome's several holders joined by ",") -> how many of them it took. */
  readonly byHolder: Readonly<Record<string, number>>;
  readonly message: string;
}

export interface OwnerChangeLog {
  /** Logged one by one at info, in the decision's order. */
  readonly info: readonly OwnerChangeReport[];
  /** Logged one by one at debug. */
  readonly debug: readonly OwnerChangeReport[];
  readonly summary?: FirstHolderSummary;
}

export function ownerChangeLog(reports: readonly OwnerChangeReport[], limit = FIRST_HOLDER_INFO_LINES): OwnerChangeLog {
  const info: OwnerChangeReport[] = [];
  const debug: OwnerChangeReport[] = [];
  let firstHolders = 0;
  for (const report of reports) {
    if (report.change.unheldReason !== 'firstHolder' || firstHolders++ < limit) info.push(report);
    else debug.push(report);
  }
  if (debug.length === 0) return { info, debug };
  const byHolder: Record<string, number> = {};
  for (const { change } of debug) {
    const holder = change.to.join(',');
    byHolder[holder] = (byHolder[holder] ?? 0) + 1;
  }
  const counts = Object.entries(byHolder)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([holder, n]) => `${holder} ${n}`)
    .join(', ');
  const message = `${debug.length} more services got their first holder (${counts}); each is logged at debug level, and \`mlb status\` shows every owner`;
  return { info, debug, summary: { services: debug.length, byHolder, message } };
}

/** Writes one decision's owner changes as ownerChangeLog sorts them (event ownerChanged, and firstHolders). */
export function logOwnerChanges(logger: Logger, reports: readonly OwnerChangeReport[]): void {
  const lines = ownerChangeLog(reports);
  for (const { change, message } of lines.info) logger.info(ownerChangeFields(change), message);
  if (lines.summary) {
    const { services, byHolder, message } = lines.summary;
    logger.info({ event: 'firstHolders', services, byHolder }, message);
  }
  if (lines.debug.length > 0 && logger.isLevelEnabled('debug')) {
    for (const { change, message } of lines.debug) logger.debug(ownerChangeFields(change), message);
  }
}

function ownerChangeFields({ service, protocol, ips, from, to, unheldMs, unheldReason, detectionMs }: OwnerChange) {
  return { event: 'ownerChanged', service, protocol, ips, from, to, unheldMs, reason: unheldReason, detectionMs };
}
