/**
 * What the `mlb status` TUI shows, as plain data computed from a snapshot: the header's facts, one row per service
 * IP, the members, the conflicts, each table already cut to the terminal's width. Pure and without Ink, so the
 * components only colour and place these lines, and the tests read them directly. The columns and their cutting
 * are the plain `--once` renderer's (commands/status.ts, through status-cells.ts and text/), so both views read the same.
 */
import type { ControlSnapshot } from '../../daemon/control/control-snapshot';
import { fitColumns } from '../text/fit-columns';
import { formatAge } from '../text/format-age';
import { truncate } from '../text/truncate';
import { MEMBER_HEADER, MEMBER_SHRINK, memberCells, ownerText } from '../status-cells';
import { renderTable } from '../render-table';
import { warmingUpText } from '../warm-up-text';
import { divergenceSummary } from '../config-divergence-text';
import { configProblemBanner } from '../config-problem-lines';

type SnapshotService = ControlSnapshot['services'][number];

/** One line of the service table: a service's IP (a service with two IPs has two rows). */
export interface ServiceRow {
  /** Stable across snapshots, so the selection stays on the same IP when rows move. */
  readonly key: string;
  readonly service: string;
  /** null: the service has no IP (its allocation failed or is pending). */
  readonly ip: string | null;
  readonly protocol: SnapshotService['protocol'];
  /** layer2: the owner; bgp: the announcing nodes; NOBODY when nobody holds it. */
  readonly holders: string;
  readonly nobody: boolean;
  /** How long the holders have held it ("5m"), "-" when nobody. */
  readonly since: string;
  /** "2/3 ok" (nodes passing the service's health check), "-" without a check. */
  readonly health: string;
  readonly healthFailing: boolean;
  /** Another MAC answers for this IP (snapshot.conflicts). */
  readonly conflict: boolean;
  /** The allocator's complaint ("poolExhausted: no available IPs in pool ..."), null when ok. */
  readonly allocationProblem: string | null;
}

/** What an empty cell shows, as in the plain view. */
const NONE = '-';
/** The selection marker column ("> " or two spaces) before each service row. */
export const MARKER_WIDTH = 2;
const SERVICE_HEADER = ['SERVICE', 'IP', 'PROTOCOL', 'OWNER', 'SINCE', 'HEALTH'] as const;
/** Service and owner names give way first, then the IP; protocol, age and health are short already. */
const SERVICE_SHRINK = [[0, 3], [1]] as const;

export function serviceRows(s: ControlSnapshot): ServiceRow[] {
  const conflicted = new Set(s.conflicts.map((c) => c.ip));
  return s.services.flatMap((svc) => {
    const holders = ownerText(svc);
    const nobody = holders === 'NOBODY';
    const since = svc.since === null ? NONE : formatAge(svc.since, s.generatedAt);
    const voters = svc.health.passing.length + svc.health.failing.length;
    const health = svc.health.checked ? `${svc.health.passing.length}/${voters} ok` : NONE;
    const allocationProblem =
      svc.allocation.status === 'ok' ? null : `${svc.allocation.status}${svc.allocation.message ? `: ${svc.allocation.message}` : ''}`;
    const ips: (string | null)[] = svc.ips.length > 0 ? svc.ips : [null];
    return ips.map((ip) => ({
      key: `${svc.service} ${ip ?? NONE} ${svc.protocol}`,
      service: svc.service,
      ip,
      protocol: svc.protocol,
      holders,
      nobody,
      since,
      health,
      healthFailing: svc.health.checked && svc.health.failing.length > 0,
      conflict: ip !== null && conflicted.has(ip),
      allocationProblem,
    }));
  });
}

/**
 * The rows a filter keeps: every word of it (case-insensitive) appears in the row's service, IP, protocol or
 * holders, so "web node-b" finds demo/web while node-b holds it. An empty filter keeps every row.
 */
export function filterRows(rows: readonly ServiceRow[], filter: string): ServiceRow[] {
  const words = filter
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return [...rows];
  return rows.filter((row) => {
    const text = `${row.service} ${row.ip ?? ''} ${row.protocol} ${row.holders}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

export interface FittedTable {
  /** The column titles, aligned with the lines. */
  readonly header: string;
  /** One line per row, in the rows' order; none is wider than the width asked for. */
  readonly lines: readonly string[];
}

/** A table cut to `width` (plus MARKER_WIDTH before each line, which the caller draws). */
export function serviceTable(rows: readonly ServiceRow[], width: number): FittedTable {
  const cells = rows.map((r) => [r.service, r.ip ?? NONE, r.protocol, r.holders, r.since, r.health]);
  return fitTable(SERVICE_HEADER, cells, width - MARKER_WIDTH);
}

/** The members table, with each line's member state (for its colour). */
export interface MemberTable extends FittedTable {
  readonly states: readonly string[];
}

export function memberTable(s: ControlSnapshot, width: number): MemberTable {
  const cells = memberCells(s);
  return { ...fitTable(MEMBER_HEADER, cells, width, MEMBER_SHRINK), states: cells.map((c) => c[1] ?? '') };
}

function fitTable(
  header: readonly string[],
  cells: readonly (readonly string[])[],
  width: number,
  shrink: readonly (readonly number[])[] = SERVICE_SHRINK,
): FittedTable {
  const lines = renderTable(header, fitColumns(header, cells, width, shrink))
    .split('\n')
    .slice(0, cells.length + 1);
  const [title = '', ...rest] = lines.map((line) => truncate(line, Math.max(0, width)));
  return { header: title, lines: rest };
}

/** The header: this node, the cluster, the configuration; each fact with whether it needs attention. */
export interface HeaderModel {
  /** "node-a (mlb 0.1.0, up 2h20m): draining". */
  readonly node: string;
  /** "3/3 members alive". */
  readonly cluster: string;
  /** "healthy", or what is wrong: "1 suspect, 1 dead, 1 conflict". */
  readonly health: string;
  readonly healthy: boolean;
  /** "ok /etc/mlb/mlb.yaml" or "STALE /etc/mlb/mlb.yaml: the last good configuration keeps running". */
  readonly config: string;
  readonly configStale: boolean;
  /**
   * Why the configuration is stale: its first errors (file:line:column), then "and N more errors, M warnings"
   * when anything is left out; empty when ok. Warnings are counted, never listed, so they cannot hide an error.
   */
  readonly configErrors: readonly string[];
  /** Members whose configuration differs, and what this node retains; null when they all agree. */
  readonly configDivergence: string | null;
}

export function headerModel(s: ControlSnapshot): HeaderModel {
  const n = s.node;
  const flags = [n.draining && 'draining', n.warmingUp && warmingUpText(n), n.leaving && 'leaving'].filter(Boolean);
  const alive = s.members.filter((m) => m.state === 'alive').length;
  const health = clusterHealth(s);
  const stale = s.config.state === 'stale';
  return {
    node: `${n.name} (mlb ${n.version}, up ${formatAge(n.startedAt, s.generatedAt)})${flags.length > 0 ? `: ${flags.join(', ')}` : ''}`,
    cluster: `${alive}/${s.members.length} members alive`,
    health: health.problems.length === 0 ? 'healthy' : health.problems.join(', '),
    healthy: health.problems.length === 0,
    config: stale ? `STALE ${s.config.file}: the last good configuration keeps running` : `ok ${s.config.file}`,
    configStale: stale,
    configErrors: stale ? configProblemBanner(s.config, HEADER_CONFIG_ERRORS) : [],
    configDivergence: divergenceSummary(s),
  };
}

/** A stale configuration shows its first errors (and a count of the rest); all are in `mlb status --once` and the daemon's log. */
const HEADER_CONFIG_ERRORS = 2;

/** How many lines the header takes: node, cluster, config, its banner lines, and the disconnection when there is one. */
export function headerHeight(model: HeaderModel, connected: boolean): number {
  return 3 + model.configErrors.length + (model.configDivergence === null ? 0 : 1) + (connected ? 0 : 1);
}

/**
 * What keeps the cluster from being healthy: members memberlist suspects or declared dead (a member that left
 * said goodbye: not a problem), this node slow to answer probes (memberlist's awareness score), conflicts, and
 * service IPs nobody holds.
 */
export function clusterHealth(s: ControlSnapshot): { problems: string[] } {
  const count = (state: string) => s.members.filter((m) => m.state === state).length;
  const unheld = s.services.filter((svc) => svc.ips.length > 0 && ownerText(svc) === 'NOBODY').length;
  const problems = [
    count('suspect') > 0 && `${count('suspect')} suspect`,
    count('dead') > 0 && `${count('dead')} dead`,
    s.node.gossip.healthScore > 0 && `slow to probe (score ${s.node.gossip.healthScore})`,
    s.conflicts.length > 0 && `${s.conflicts.length} conflict${s.conflicts.length > 1 ? 's' : ''}`,
    (s.configAgreement?.divergent.length ?? 0) > 0 && `${s.configAgreement?.divergent.length} config differs`,
    unheld > 0 && `${unheld} unheld`,
  ].filter((p): p is string => typeof p === 'string');
  return { problems };
}

/** One line per conflict: the IP, the other MAC, whose it is, where, which node saw it and when it was last seen. */
export function conflictLines(s: ControlSnapshot, width: number): string[] {
  return s.conflicts.map((c) =>
    truncate(
      `${c.ip} answered by ${c.mac} (${c.node ?? 'not a member'})${c.interface === null ? '' : ` on ${c.interface}`}, seen by ${c.observedBy}, ` +
        `last ${formatAge(c.lastSeen, s.generatedAt)} ago`,
      width,
    ),
  );
}
