import type { CommandModule } from 'yargs';
import { errorsFirst, formatDiagnostic, type Snapshot } from '../../model';
import { readConfig } from '../config-input';
import { allocate, electOffline } from '../offline-cluster';
import { CommandError, UsageError } from '../exit-codes';
import { connectControl, DEFAULT_CONTROL_SOCKET } from '../control-client';
import { configOption, singleConfig } from '../config-argument';
import { isStructured, outputFormat, outputOption } from '../output-format';
import { printExplanations, selectExplanations } from '../explain-output';
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
    const snapshot = await validSnapshot(config);
    const liveNodes = args.nodes !== undefined ? splitNodes(args.nodes) : snapshot.nodes.map((n) => n.meta.name);
    if (liveNodes.length === 0) {
      throw new UsageError('no nodes to elect from: pass --nodes a,b,c or add v1 Node documents to the file');
    }
    const election = electOffline(snapshot, allocate(snapshot), liveNodes, {
      ignoreExcludeLB: args['ignore-exclude-lb'],
    });
    const selected = selectExplanations(election.explanations, args.targets, 'in this configuration');
    if (!isStructured(outputFormat(args))) {
      process.stderr.write(undocumentedNodesNote(election.undocumentedNodes, config));
    }
    await printExplanations(selected, outputFormat(args));
  },
};

/** Named one per line up to this many; beyond, counted (1,000 nodes given by --nodes made 1,000 lines). */
const UNDOCUMENTED_NODES_NAMED = 5;

/** The note that these --nodes have no v1 Node document in the file (and so no labels): a few named, the rest counted. */
export function undocumentedNodesNote(names: readonly string[], config: string): string {
  const named = names.slice(0, UNDOCUMENTED_NODES_NAMED);
  const lines = named.map((name) => `note: node ${name} has no v1 Node document in ${config}: taken as unlabelled\n`);
  const rest = names.length - named.length;
  if (rest > 0) lines.push(`note: and ${rest} more of --nodes (${names.length} in all) have no v1 Node document: taken as unlabelled\n`);
  return lines.join('');
}

/**
 * The file's snapshot, or its errors on stderr and a CommandError. Only the snapshot is returned: the diagnostics
 * (a note per service where a default applied: 10,000 at 10,000 services) are not printed by explain and would
 * otherwise stay reachable from the handler for the whole of a long printing.
 */
async function validSnapshot(config: string): Promise<Snapshot> {
  const loaded = await readConfig(config);
  if (loaded.snapshot) return loaded.snapshot;
  for (const d of errorsFirst(loaded.diagnostics)) process.stderr.write(`${formatDiagnostic(d)}\n`);
  throw new CommandError(`${config} is invalid: run "mlb validate --config ${config}" for details`, 'configInvalid');
}

/** The daemon's live explanations (GET /v1/explain), selected and printed exactly as the offline ones. */
async function explainFromDaemon(args: ExplainArgs): Promise<void> {
  for (const flag of ['nodes', 'ignore-exclude-lb'] as const) {
    if (args[flag] !== undefined && args[flag] !== false) {
      throw new UsageError(`--${flag} only applies offline, with --config; the daemon elects from its live members`);
    }
  }
  const all = await connectControl(args.socket ?? DEFAULT_CONTROL_SOCKET).getExplain();
  await printExplanations(selectExplanations(all, args.targets, 'the daemon knows'), outputFormat(args));
}

function splitNodes(text: string): string[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return [...new Set(names)];
}
