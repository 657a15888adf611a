/**
 * `mlb check`'s output in the monitoring-plugin convention Nagios, Icinga, Naemon and Sensu run plugins by: the
 * exit status is the state (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN), the first line of stdout says why, performance
 * data follows a `|`, and any further lines are the long output (Monitoring Plugins Development Guidelines,
 * "Plugin Output" and "Plugin Return Codes"). Pure: verdict and snapshot in, text out.
 */
import type { ControlSnapshot } from '../../daemon/control/control-snapshot';
import type { CheckLevel, CheckVerdict } from './check-verdict';
import { unannouncedIPs } from './check-verdict';

/** The plugin return codes; they differ from mlb's own exit codes (exit-codes.ts), hence a command of their own. */
export const PluginExit = { ok: 0, warning: 1, critical: 2, unknown: 3 } as const;
export type PluginLevel = CheckLevel | 'unknown';

/** Who is speaking, first on the line, as plugins name their service ("DISK OK - ..."). */
const PLUGIN_NAME = 'MLB';

/**
 * Reasons on the first line: a pager or chat message shows about this much, and a hundred unannounced IPs in one
 * line help nobody. --verbose lists every reason, one per line, after it.
 */
export const MAX_REASONS_ON_LINE = 3;

export function pluginExitCode(level: PluginLevel): number {
  return PluginExit[level];
}

/** "MLB CRITICAL - reason; reason; ... and 2 more | perfdata", then with `verbose` one line per reason. */
export function pluginOutput(verdict: CheckVerdict, s: ControlSnapshot, verbose: boolean): string {
  const shown = verdict.reasons.slice(0, MAX_REASONS_ON_LINE).map((r) => oneLine(r.text));
  const more = verdict.reasons.length - shown.length;
  const summary =
    verdict.reasons.length === 0 ? healthySummary(s) : `${shown.join('; ')}${more > 0 ? `; and ${more} more (--verbose lists them)` : ''}`;
  const first = `${PLUGIN_NAME} ${verdict.level.toUpperCase()} - ${summary} | ${perfdata(s)}\n`;
  if (!verbose) return first;
  return first + verdict.reasons.map((r) => `${r.level.toUpperCase()}: ${oneLine(r.text)}\n`).join('');
}

/** UNKNOWN: no verdict could be reached (no daemon, no permission, another API version). */
export function unknownOutput(why: string): string {
  return `${PLUGIN_NAME} UNKNOWN - ${oneLine(why)}\n`;
}

function healthySummary(s: ControlSnapshot): string {
  const ips = new Set(s.services.flatMap((svc) => svc.ips)).size;
  return `${ips} service IP${ips === 1 ? '' : 's'} announced, ${aliveMembers(s)}/${s.members.length} members alive`;
}

/**
 * Counters for graphs, 'label'=value with no unit (the guidelines' format): how many service IPs, how many of
 * them nobody announces, members alive and known, conflicts.
 */
function perfdata(s: ControlSnapshot): string {
  const ips = new Set(s.services.flatMap((svc) => svc.ips)).size;
  return [
    `ips=${ips}`,
    `unannounced=${unannouncedIPs(s).size}`,
    `members_alive=${aliveMembers(s)}`,
    `members=${s.members.length}`,
    `conflicts=${new Set(s.conflicts.map((c) => `${c.ip} ${c.mac}`)).size}`,
  ].join(' ');
}

function aliveMembers(s: ControlSnapshot): number {
  return s.members.filter((m) => m.state === 'alive').length;
}

/** The first line is the status: a message with newlines (or a `|`, which starts perfdata) must not break it. */
function oneLine(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '/')
    .trim();
}
