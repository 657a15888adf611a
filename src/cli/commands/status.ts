/**
 * `mlb status`: who owns what, from the running daemon's snapshot (GET /v1/snapshot). In a terminal it opens the
 * interactive Ink view (tui/), following the daemon's events; --json prints the snapshot itself (the typed,
 * versioned contract scripts use); --once, and any run whose output is not a terminal, prints plain tables that
 * fit the terminal (80 columns when there is none). Rendering is pure (snapshot, width) -> text; the TUI cuts
 * its columns with the same fitColumns.
 */
import type { CommandModule } from 'yargs';
import type { ControlStatus } from '../../daemon/control/control-snapshot';
import { allConfigProblems } from '../config-problem-lines';
import { connectControl, DEFAULT_CONTROL_SOCKET } from '../control-client';
import { CommandError } from '../exit-codes';
import { divergenceLines } from '../config-divergence-text';
import { renderTable } from '../render-table';
import { STATUS_DEFAULT_WIDTH } from '../text/default-width';
import { fitColumns } from '../text/fit-columns';
import { formatAge } from '../text/format-age';
import { truncate } from '../text/truncate';
import { MEMBER_HEADER, MEMBER_SHRINK, memberCells, ownerText } from '../status-cells';
import { warmingUpText } from '../warm-up-text';
import { memberReleasesText } from '../member-releases-text';
import { isStructured, outputFormat, outputOption } from '../output-format';
import { importStatusTui } from './import-status-tui';
import { type ClusterArgs, clusterChoice, clusterOptions } from '../cluster/cluster-options';

interface StatusArgs extends ClusterArgs {
  socket: string;
  once?: boolean;
  json?: boolean;
  output?: string;
  watch?: boolean;
}

/** "election  " : the summary's keys, then their values; continuation lines indent two more. */
const SUMMARY_KEY_WIDTH = 10;
/** What an empty cell shows, so columns stay readable. */
const NONE = '-';

export const statusCommand: CommandModule<object, StatusArgs> = {
  command: 'status',
  describe: 'Show who owns each service IP, the members and their state, from the running daemon (live in a terminal)',
  builder: (y) =>
    y
      .option('socket', { type: 'string', default: DEFAULT_CONTROL_SOCKET, describe: "The daemon's control socket" })
      // No defaults: yargs counts a defaulted flag as given, and --once/--json would always conflict.
      .option('once', { type: 'boolean', describe: 'Print plain tables once and exit (the default when stdout is not a terminal)' })
      .option('json', { type: 'boolean', describe: "Print the daemon's snapshot (apiVersion mlb.io/v1) as JSON" })
      .option('output', outputOption("tables with every cell whole, not cut to the terminal's width"))
      .option('watch', {
        alias: 'w',
        type: 'boolean',
        describe:
          'Print a line per event as it happens (TIME TYPE text; -o json: one JSON object per line), from now on, until interrupted (exit 0) or the daemon stops (exit 1)',
      })
      .options(clusterOptions("Show the cluster's view (services, who announces them, why one is pending, pools, configuration, events)"))
      .conflicts('once', 'json')
      .conflicts('watch', 'once')
      .example('mlb status', 'the live view: up/down select, Enter shows why, / filters, q quits')
      .example('mlb status --once', 'services, owners and members as tables')
      .example("mlb status --json | jq '.services[] | {service, owner}'", 'for a script')
      .example('mlb status --watch -o json | jq -c \'select(.type == "ownerChanged")\'', 'each failover as it happens')
      .example(
        'mlb status --kubeconfig ~/.kube/config',
        'the cluster: which node announces each service, why one is pending, pool usage, events',
      )
      .example('mlb status --kubernetes --json', 'the same from inside the cluster (KUBECONFIG or the pod service account), as JSON'),
  handler: async (args) => {
    const format = outputFormat(args);
    const cluster = clusterChoice(args, { watch: args.watch });
    // The cluster's view, --watch and the JSON/YAML forms load what they need when asked (yaml, the Kubernetes
    // reads): the plain tables, what scripts and `watch mlb status` run, start without them.
    if (cluster) return (await import('../cluster/cluster-status')).statusFromCluster(cluster, format);
    const client = connectControl(args.socket);
    if (args.watch) return (await import('../status-watch')).runStatusWatch(client, format);
    // Read once before anything is drawn: a daemon that cannot be reached fails the command with its reason.
    if (isStructured(format)) {
      const snapshot = await client.getSnapshot();
      (await import('../structured-output')).printStructured(snapshot, format);
      return;
    }
    if (!args.once && format === 'text' && isInteractive()) {
      const snapshot = await client.getSnapshot();
      const { runStatusTui } = await loadStatusTui();
      await runStatusTui(client, snapshot);
      return;
    }
    // The tables show no candidates: one answer without them (GET /v1/status), not the snapshot's pages.
    const status = await client.getStatus();
    process.stdout.write(renderStatus(status, format === 'wide' ? Infinity : process.stdout.columns || STATUS_DEFAULT_WIDTH));
  },
};

/**
 * Ink, React and yoga load here only: every other command starts without them. In the bundle this import is of
 * dist/mlb-tui.mjs beside dist/mlb.mjs (scripts/build.mjs); an install that copied mlb.mjs alone lacks it.
 */
async function loadStatusTui(): Promise<typeof import('../tui/run-status-tui')> {
  try {
    return await importStatusTui();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new CommandError(
      `the live view is missing (${(error as Error).message.split('\n')[0]}): copy mlb-tui.mjs from dist/ beside mlb.mjs, or use mlb status --once`,
      'statusViewMissing',
    );
  }
}

/** The live view needs a terminal to draw on and one to read keys from; a pipe or a script gets --once. */
function isInteractive(): boolean {
  return process.stdout.isTTY === true && process.stdin.isTTY === true;
}

/** The whole --once text: a summary, then services, members and conflicts, every line at most `width` wide. */
export function renderStatus(s: ControlStatus, width: number): string {
  const blocks = [renderSummary(s, width), renderServices(s, width), renderMembers(s, width)];
  if (s.bgp && s.bgp.length > 0) blocks.push(renderBgp(s, width));
  if (s.conflicts.length > 0) blocks.push(renderConflicts(s, width));
  return blocks.map((block) => clipLines(block, width)).join('\n');
}

function renderSummary(s: ControlStatus, width: number): string {
  const alive = s.members.filter((m) => m.state === 'alive').length;
  const n = s.node;
  const flags = [n.draining && 'draining', n.warmingUp && warmingUpText(n), n.leaving && 'leaving'].filter(Boolean);
  const rows: [string, string][] = [
    ['node', `${n.name} (mlb ${n.version}, up ${formatAge(n.startedAt, s.generatedAt)})${flags.length > 0 ? `: ${flags.join(', ')}` : ''}`],
    [
      'cluster',
      `${alive}/${s.members.length} members alive; gossip ${n.gossip.bind} (${n.gossip.profile}${n.gossip.encrypted ? ', encrypted' : ', plain text'})`,
    ],
    ['config', s.config.state === 'ok' ? `ok ${s.config.file}` : `STALE ${s.config.file}: the last good configuration keeps running`],
    ...allConfigProblems(s.config).map((e): [string, string] => ['', `- ${e}`]),
    ...divergenceLines(s).map((line, i): [string, string] => [i === 0 ? 'differs' : '', `- ${line}`]),
    ['election', `mlb inputs (health, drain, warm-up) ${s.mlbOnlyInputs.allowed ? 'on' : 'off'}: ${s.mlbOnlyInputs.reason}`],
  ];
  const releases = memberReleasesText(s);
  if (releases) rows.push(['releases', releases]);
  if (s.allocation.allocator !== null) rows.push(['allocator', `${s.allocation.allocator} (table version ${s.allocation.version})`]);
  return rows.map(([key, value]) => wrap(`${key.padEnd(SUMMARY_KEY_WIDTH)}${value}`, width, SUMMARY_KEY_WIDTH + 2)).join('');
}

function renderServices(s: ControlStatus, width: number): string {
  if (s.services.length === 0) return 'no service has an IP to announce\n';
  const rows: string[][] = [];
  for (const svc of s.services) {
    const owner = ownerText(svc);
    const since = svc.since === null ? NONE : formatAge(svc.since, s.generatedAt);
    const health = svc.health.checked ? `${svc.health.passing.length}/${svc.health.passing.length + svc.health.failing.length} ok` : NONE;
    if (svc.ips.length === 0) rows.push([svc.service, NONE, svc.protocol, owner, since, health]);
    for (const ip of svc.ips) rows.push([svc.service, ip, svc.protocol, owner, since, health]);
  }
  const header = ['SERVICE', 'IP', 'PROTOCOL', 'OWNER', 'SINCE', 'HEALTH'];
  const table = renderTable(header, fitColumns(header, rows, width, [[0, 3], [1]]));
  const problems = s.services
    .filter((svc) => svc.allocation.status !== 'ok')
    .map((svc) => `  ${svc.service}: ${svc.allocation.status}${svc.allocation.message ? `: ${svc.allocation.message}` : ''}`);
  return problems.length === 0 ? table : `${table}allocation problems:\n${problems.join('\n')}\n`;
}

function renderMembers(s: ControlStatus, width: number): string {
  return renderTable(MEMBER_HEADER, fitColumns(MEMBER_HEADER, memberCells(s), width, MEMBER_SHRINK));
}

/** BGP sessions: one row per peer selecting this node, with what it holds from us and BFD's view. */
function renderBgp(s: ControlStatus, width: number): string {
  const rows = (s.bgp ?? []).map((b) => [
    b.peer,
    b.address,
    b.phase,
    b.establishedSince ? formatAge(b.establishedSince, s.generatedAt) : NONE,
    String(b.prefixes),
    b.bfd ?? NONE,
    b.phase === 'Established' ? '' : (b.lastProblem ?? ''),
  ]);
  const header = ['PEER', 'ADDRESS', 'STATE', 'UP', 'PREFIXES', 'BFD', 'LAST PROBLEM'];
  return renderTable(header, fitColumns(header, rows, width, [[6], [0], [2]]));
}

function renderConflicts(s: ControlStatus, width: number): string {
  const rows = s.conflicts.map((c) => [
    c.ip,
    c.mac,
    c.node ?? 'not a member',
    c.interface ?? NONE,
    c.observedBy,
    `${formatAge(c.lastSeen, s.generatedAt)} ago`,
  ]);
  const header = ['IP', 'MAC', 'NODE', 'INTERFACE', 'SEEN BY', 'LAST SEEN'];
  const heading = wrap('CONFLICTS: another MAC answers for an IP a node announces (mlb arping IP shows who)', width, 2);
  return `${heading}${renderTable(header, fitColumns(header, rows, width, [[2, 3, 4], [0]]))}`;
}

/** Breaks text at spaces into lines of at most `width`, continuation lines indented; each line ends in \n. */
function wrap(text: string, width: number, indent: number): string {
  const lines: string[] = [];
  const leading = /^ */.exec(text)?.[0] ?? '';
  let line = leading;
  for (const word of text.slice(leading.length).trimEnd().split(' ')) {
    const candidate = line.trim() === '' ? `${line}${word}` : `${line} ${word}`;
    if (candidate.length <= width || line.trim() === '') {
      line = candidate;
    } else {
      lines.push(line);
      line = `${' '.repeat(indent)}${word}`;
    }
  }
  lines.push(line);
  return lines.map((l) => `${l.trimEnd()}\n`).join('');
}

/** Every line of `text` cut to `width`; the text itself when all fit (the usual case: the tables were fitted). */
function clipLines(text: string, width: number): string {
  let start = 0;
  for (let end = text.indexOf('\n'); start < text.length; end = text.indexOf('\n', start)) {
    const stop = end < 0 ? text.length : end;
    if (stop - start > width) return cutLines(text, width);
    start = stop + 1;
  }
  return text;
}

function cutLines(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => truncate(line, width))
    .join('\n');
}
