import type { CommandModule } from 'yargs';
import { formatIP, parseIP } from '../../ip';
import { formatDiagnostic } from '../../model';
import type { Explanation } from '../../election';
import { readConfig } from '../config-input';
import { allocate, electOffline } from '../offline-cluster';
import { CommandError, UsageError } from '../exit-codes';
import { reasonText } from '../reason-text';
import { renderTable } from '../render-table';

interface ExplainArgs {
  targets: string[];
  config: string;
  nodes?: string;
  json: boolean;
  'ignore-exclude-lb': boolean;
}

export const explainCommand: CommandModule<object, ExplainArgs> = {
  command: 'explain [targets..]',
  describe: 'Show who announces each service IP, and every other node\'s reason',
  builder: (y) =>
    y
      .positional('targets', { type: 'string', array: true, default: [], describe: 'Service IPs (any spelling) or namespace/name; none: all' })
      .option('config', { alias: 'c', type: 'string', demandOption: true, describe: 'The YAML file (metallb.io objects, v1 Services, v1 Nodes)' })
      .option('nodes', { type: 'string', describe: 'Comma-separated live nodes (default: every v1 Node in the file). Labels and conditions come from the Node documents.' })
      .option('ignore-exclude-lb', { type: 'boolean', default: false, describe: 'As MetalLB\'s speaker flag: let nodes labelled exclude-from-external-load-balancers announce' })
      .option('json', { type: 'boolean', default: false, describe: 'Print [{service, ip, protocol, winner, announcing, candidates}] as JSON' })
      .example('mlb explain --config examples/plain-host.yaml --nodes node-a,node-b,node-c', 'every service IP')
      .example('mlb explain demo/web 192.168.10.210 --config examples/plain-host.yaml --json', 'two of them, for a script')
      .epilogue(
        'Candidates are ranked by sha256(node + "#" + ip) as MetalLB does; in layer 2 the first eligible node answers, ' +
          'in BGP every eligible node announces. Without a running daemon every live node counts as serving every service.',
      ),
  handler: async (args) => {
    const loaded = await readConfig(args.config);
    if (!loaded.snapshot) {
      for (const d of loaded.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
      throw new CommandError(`${args.config} is invalid: run "mlb validate --config ${args.config}" for details`, 'configInvalid');
    }
    const liveNodes = args.nodes !== undefined ? splitNodes(args.nodes) : loaded.snapshot.nodes.map((n) => n.meta.name);
    if (liveNodes.length === 0) {
      throw new UsageError('no nodes to elect from: pass --nodes a,b,c or add v1 Node documents to the file');
    }
    const election = electOffline(loaded.snapshot, allocate(loaded.snapshot), liveNodes, {
      ignoreExcludeLB: args['ignore-exclude-lb'],
    });
    const selected = selectExplanations(election.explanations, args.targets);
    if (args.json) {
      process.stdout.write(`${JSON.stringify(selected, contractFields, 2)}\n`);
      return;
    }
    for (const name of election.undocumentedNodes) {
      process.stderr.write(`note: node ${name} has no v1 Node document in ${args.config}: taken as unlabelled\n`);
    }
    if (selected.length === 0) process.stdout.write('no service has an IP to announce\n');
    process.stdout.write(selected.map(renderExplanation).join('\n'));
  },
};

function splitNodes(text: string): string[] {
  const names = text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  return [...new Set(names)];
}

/** Keeps the explanations a target names; a target that names nothing is an error, not silence. */
function selectExplanations(all: readonly Explanation[], targets: readonly string[]): Explanation[] {
  if (targets.length === 0) return [...all];
  const selected = new Set<Explanation>();
  for (const target of targets) {
    const ip = parseIP(target);
    const matches = ip
      ? all.filter((e) => e.ip === formatIP(ip))
      : all.filter((e) => e.service === target || e.service === `default/${target}`);
    if (matches.length === 0) {
      const known = [...new Set(all.map((e) => `${e.service} ${e.ip}`))].join(', ') || 'none';
      throw new CommandError(`nothing announces ${JSON.stringify(target)}; service IPs in this configuration: ${known}`, 'targetNotFound');
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
      ? e.winner ? `owner ${e.winner}` : 'NOBODY ANNOUNCES'
      : e.announcing.length > 0 ? `announced by ${e.announcing.join(', ')}` : 'NOBODY ANNOUNCES';
  const rows = e.candidates.map((c) => [c.rank === null ? '-' : String(c.rank), c.node, c.reason, reasonText(c.reason)]);
  return `${e.service} ${e.ip} (${e.protocol}): ${verdict}\n${indent(renderTable(['RANK', 'NODE', 'REASON', ''], rows))}`;
}

function indent(text: string): string {
  return text.split('\n').map((l) => (l ? `  ${l}` : l)).join('\n');
}
