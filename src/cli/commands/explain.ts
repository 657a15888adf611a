import type { CommandModule } from 'yargs';
import { formatIP, parseIP } from '../../ip';
import { errorsFirst, formatDiagnostic } from '../../model';
import type { Explanation } from '../../election';
import { readConfig } from '../config-input';
import { allocate, electOffline } from '../offline-cluster';
import { CommandError, UsageError } from '../exit-codes';
import { candidateText } from '../reason-text';
import { renderTable } from '../render-table';
import { connectControl, DEFAULT_CONTROL_SOCKET } from '../control-client';
import { reportUnannounced } from '../unannounced-explanations';
import { configOption, singleConfig } from '../config-argument';
import { isStructured, type OutputFormat, outputFormat, outputOption, printStructured } from '../output-format';
import { type ClusterArgs, clusterChoice, clusterOptions } from '../cluster/cluster-options';
import { explainFromCluster } from '../cluster/cluster-explain';

interface ExplainArgs extends ClusterArgs {
  targets: string[];
  config?: string;
  socket?: string;
  nodes?: string;
  json: boolean;
  output?: string;
  'ignore-exclude-lb': boolean;
}

export const explainCommand: CommandModule<object, ExplainArgs> = {
  command: 'explain [targets..]',
  describe: "Show who announces each service IP, and every other node's reason",
  builder: (y) =>
    y
      .positional('targets', {
        type: 'string',
        array: true,
        default: [],
        describe: 'Service IPs (any spelling) or namespace/name; none: all',
      })
      .option(
        'config',
        configOption(
          'Elect offline from this YAML file (metallb.io objects, v1 Services, v1 Nodes), a directory of *.yaml files, or - (standard input); without it, ask the running daemon',
        ),
      )
      .option('socket', {
        type: 'string',
        describe: `The running daemon's control socket (default ${DEFAULT_CONTROL_SOCKET}); its live election, health and drain included`,
      })
      .option('nodes', {
        type: 'string',
        describe: 'Comma-separated live nodes (default: every v1 Node in the file). Labels and conditions come from the Node documents.',
      })
      .option('ignore-exclude-lb', {
        type: 'boolean',
        default: false,
        describe: "As MetalLB's speaker flag: let nodes labelled exclude-from-external-load-balancers announce",
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print [{service, ip, protocol, winner, announcing, candidates}] as JSON',
      })
      .option('output', outputOption('the same as the default text, which never cuts a column'))
      .options(clusterOptions('Elect'))
      .example('mlb explain', 'every service IP, as the daemon on this host sees it now')
      .example('mlb explain --kubeconfig ~/.kube/config demo/web', 'which node answers for demo/web and why, or why it is pending')
      .example('mlb explain --config examples/plain-host.yaml --nodes node-a,node-b,node-c', 'every service IP, offline')
      .example('mlb explain demo/web 192.168.10.210 --config examples/plain-host.yaml --json', 'two of them, for a script')
      .epilogue(
        'Candidates are ranked by sha256(node + "#" + ip) as MetalLB does; in layer 2 the first eligible node answers, ' +
          'in BGP every eligible node announces. Offline (--config) every live node counts as serving every service. ' +
          'From the daemon, each reason names the node it is about; a failing health check says since when and its ' +
          'last result (HTTP 503, connection refused, timed out) as that node reported it in gossip. ' +
          'Exits 1 when nobody announces an IP asked about (with no target: any IP), after printing why, or when a target names no service.',
      ),
  handler: async (args) => {
    outputFormat(args);
    const cluster = clusterChoice(args, { config: args.config, nodes: args.nodes });
    if (cluster) {
      const options = { ignoreExcludeLB: args['ignore-exclude-lb'], format: outputFormat(args) };
      return explainFromCluster(cluster, args.targets, options, { select: selectExplanations, print: printExplanations });
    }
    if (singleConfig(args.config) === undefined) return explainFromDaemon(args);
    if (args.socket !== undefined) {
      throw new UsageError(
        '--config (elect offline from a file) and --socket (ask the daemon) exclude each other; MLB_SOCKET counts as --socket',
      );
    }
    const config = singleConfig(args.config) as string;
    const loaded = await readConfig(config);
    if (!loaded.snapshot) {
      for (const d of errorsFirst(loaded.diagnostics)) process.stderr.write(`${formatDiagnostic(d)}\n`);
      throw new CommandError(`${config} is invalid: run "mlb validate --config ${config}" for details`, 'configInvalid');
    }
    const liveNodes = args.nodes !== undefined ? splitNodes(args.nodes) : loaded.snapshot.nodes.map((n) => n.meta.name);
    if (liveNodes.length === 0) {
      throw new UsageError('no nodes to elect from: pass --nodes a,b,c or add v1 Node documents to the file');
    }
    const election = electOffline(loaded.snapshot, allocate(loaded.snapshot), liveNodes, {
      ignoreExcludeLB: args['ignore-exclude-lb'],
    });
    const selected = selectExplanations(election.explanations, args.targets, 'in this configuration');
    if (!isStructured(outputFormat(args))) {
      for (const name of election.undocumentedNodes) {
        process.stderr.write(`note: node ${name} has no v1 Node document in ${config}: taken as unlabelled\n`);
      }
    }
    printExplanations(selected, outputFormat(args));
  },
};

/** The daemon's live explanations (GET /v1/explain), selected and printed exactly as the offline ones. */
async function explainFromDaemon(args: ExplainArgs): Promise<void> {
  for (const flag of ['nodes', 'ignore-exclude-lb'] as const) {
    if (args[flag] !== undefined && args[flag] !== false) {
      throw new UsageError(`--${flag} only applies offline, with --config; the daemon elects from its live members`);
    }
  }
  const all = await connectControl(args.socket ?? DEFAULT_CONTROL_SOCKET).getExplain();
  printExplanations(selectExplanations(all, args.targets, 'the daemon knows'), outputFormat(args));
}

function printExplanations(selected: readonly Explanation[], format: OutputFormat): void {
  if (isStructured(format)) {
    printStructured(selected, format, contractFields);
  } else {
    if (selected.length === 0) process.stdout.write('no service has an IP to announce\n');
    process.stdout.write(selected.map(renderExplanation).join('\n'));
  }
  reportUnannounced(selected);
}

function splitNodes(text: string): string[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return [...new Set(names)];
}

/** Keeps the explanations a target names; a target that names nothing is an error, not silence. */
function selectExplanations(all: readonly Explanation[], targets: readonly string[], where: string): Explanation[] {
  if (targets.length === 0) return [...all];
  const selected = new Set<Explanation>();
  for (const target of targets) {
    const ip = parseIP(target);
    const matches = ip
      ? all.filter((e) => e.ip === formatIP(ip))
      : all.filter((e) => e.service === target || e.service === `default/${target}`);
    if (matches.length === 0) {
      const known = [...new Set(all.map((e) => `${e.service} ${e.ip}`))].join(', ') || 'none';
      const what = ip ? `no service has the IP ${formatIP(ip)}` : `no service is named ${JSON.stringify(target)}`;
      throw new CommandError(`${what}; service IPs ${where}: ${known}`, 'targetNotFound');
    }
    for (const m of matches) selected.add(m);
  }
  return all.filter((e) => selected.has(e));
}

/** JSON.stringify replacer: bigint-free contract fields plus the optional BGP detail. */
function contractFields(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

function renderExplanation(e: Explanation): string {
  const verdict =
    e.protocol === 'layer2'
      ? e.winner
        ? `owner ${e.winner}`
        : 'NOBODY ANNOUNCES'
      : e.announcing.length > 0
        ? `announced by ${e.announcing.join(', ')}`
        : 'NOBODY ANNOUNCES';
  const rows = e.candidates.map((c) => [c.rank === null ? '-' : String(c.rank), c.node, c.reason, candidateText(e, c)]);
  const notes = (e.notes ?? []).map((n) => `  note: ${n}\n`).join('');
  const view = e.viewer ? ` (as ${e.viewer} sees it)` : '';
  return `${e.service} ${e.ip} (${e.protocol}): ${verdict}${view}\n${notes}${indent(renderTable(['RANK', 'NODE', 'REASON', ''], rows))}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
}
