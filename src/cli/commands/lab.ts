/**
 * `mlb lab up | down | demo [--nodes N] [--bgp]`: a lab of network namespaces on this machine (src/cli/lab); then
 * `mlb lab kill|stop|start|restart|partition|heal|health NODE` act on one node of it (lab-node.ts). `demo` is
 * the README's first command; `demo --bgp` shows BGP mode against an FRR router. Two hidden subcommands run inside the lab: `serve` (each node's HTTP server) and `probe`
 * (the client's requests); they are mlb itself so the lab needs nothing but the one mlb file.
 */
import type { Argv, CommandModule } from 'yargs';
import { BgpDemo } from '../lab/bgp-demo';
import { Demo, type KillMode } from '../lab/demo';
import { Lab, type GossipProfile } from '../lab/lab';
import { LAB_BGP_PEER } from '../lab/lab-bgp';
import { LabService, expectedServiceIPs } from '../lab/lab-config';
import { LabError } from '../lab/lab-errors';
import { startLabHttpServer } from '../lab/lab-http-server';
import {
  DEFAULT_LAB_DIR,
  DEFAULT_LAB_NAME,
  DEFAULT_LAB_NODES,
  LAB_HTTP_PORT,
  MAX_LAB_NODES,
  MIN_LAB_NODES,
  planLab,
} from '../lab/lab-plan';
import { checkFrr } from '../lab/lab-router';
import { downCommandText, labSummary } from '../lab/narration';
import { nodeControlTryLines } from '../lab/node-control-text';
import { checkLabPrerequisites } from '../lab/netns';
import {
  DEFAULT_PROBE_INTERVAL_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  MAX_PROBE_TIMEOUT_MS,
  MIN_PROBE_INTERVAL_MS,
  runProbeLoop,
} from '../lab/probe-loop';
import { parseHostPort } from '../../gossip/transport/address';
import { CommandError, ExitCode, UsageError } from '../exit-codes';
import { selfCommand } from '../../packaging/single-executable';
import { labNodeCommands } from './lab-node';

interface LabArgs {
  nodes: number;
  name: string;
  dir: string;
  'gossip-profile'?: GossipProfile;
  bgp: boolean;
}

interface DemoArgs extends LabArgs {
  keep: boolean;
  kill: KillMode;
}

interface ServeArgs {
  node: string;
  port: number;
  'health-file': string;
}

interface ProbeArgs {
  target: string;
  'interval-ms': number;
  'timeout-ms': number;
  count?: number;
}

function labOptions<T>(y: Argv<T>): Argv<T & LabArgs> {
  return y
    .option('nodes', {
      type: 'number',
      default: DEFAULT_LAB_NODES,
      describe: `How many nodes (${MIN_LAB_NODES}-${MAX_LAB_NODES}), each running mlb daemon`,
    })
    .option('name', {
      type: 'string',
      default: DEFAULT_LAB_NAME,
      describe: 'Prefix of the namespaces: NAME-node-1.., NAME-client, NAME-br',
    })
    .option('dir', { type: 'string', default: DEFAULT_LAB_DIR, describe: 'Where the configuration, logs, state and control sockets go' })
    .option('gossip-profile', {
      choices: ['fast', 'fast-failover', 'lan', 'wan'] as const,
      describe: "The daemons' failure detection (default: the daemon's, fast; see mlb daemon --help)",
    })
    .option('bgp', {
      type: 'boolean',
      default: false,
      describe:
        'Add a router (FRR: a passive peer group, /32 routes only, BFD) that every node peers with, and a BGP service (needs the frr package)',
    }) as Argv<T & LabArgs>;
}

const upCommand: CommandModule<object, LabArgs> = {
  command: 'up',
  describe: 'Build the lab and leave it running',
  builder: (y) =>
    labOptions(y)
      .example('sudo mlb lab up --nodes 3', 'then: sudo ip netns exec mlb-lab-client curl http://172.31.213.200/')
      .example('sudo mlb lab up --bgp', 'the same with an FRR router: sudo ip netns exec mlb-lab-client curl http://172.31.214.10/'),
  handler: async (args) => {
    const t = Date.now();
    const lab = await withLabErrors(() =>
      withCleanupOnSignal(args, () =>
        Lab.up({
          nodes: args.nodes,
          name: args.name,
          dir: args.dir,
          mlbCommand: labSelfCommand(),
          bgp: args.bgp,
          ...(args['gossip-profile'] ? { gossipProfile: args['gossip-profile'] } : {}),
          onProgress: (line) => process.stdout.write(`${line}\n`),
        }),
      ),
    );
    const p = lab.plan;
    const ips = expectedServiceIPs(await lab.readConfig());
    const vip = ips.get(LabService.web)?.[0] ?? p.client.ipv4;
    const routed = ips.get(LabService.bgp)?.[0];
    const router =
      p.router && routed
        ? [
            `  router: ${p.router.netns} ${p.router.ipv4} (FRR; BGPPeer ${LAB_BGP_PEER}); ${LabService.bgp} is ${routed}, reached through it`,
            `          sudo ip netns exec ${p.client.netns} curl http://${routed}/`,
            `          sudo ip netns exec ${p.router.netns} vtysh --vty_socket ${p.router.dir} -c 'show bgp summary' -c 'show ip route ${routed}/32'`,
          ]
        : [];
    process.stdout.write(
      [
        labSummary(p, Date.now() - t),
        `  configuration: ${p.configFile} (edit it: every daemon reloads it)`,
        `  try:    sudo ip netns exec ${p.client.netns} curl http://${vip}/`,
        `          mlb status --socket ${p.nodes[0]?.controlSocket}`,
        ...nodeControlTryLines(p),
        ...router,
        `  logs:   ${p.dir}/node-N/daemon.log`,
        `  remove: ${downCommandText(p)}`,
        '',
      ].join('\n'),
    );
  },
};

const downCommand: CommandModule<object, Pick<LabArgs, 'name' | 'dir'>> = {
  command: 'down',
  describe: 'Remove the lab: its processes, namespaces and files (also a half-built one)',
  builder: (y) =>
    y
      .option('name', { type: 'string', default: DEFAULT_LAB_NAME, describe: "The lab's name (as given to up)" })
      .option('dir', { type: 'string', default: DEFAULT_LAB_DIR, describe: "The lab's directory (as given to up)" }),
  handler: async (args) => {
    const report = await withLabErrors(() => Lab.downByName({ name: args.name, dir: args.dir }));
    process.stdout.write(
      report.namespaces.length === 0
        ? `no lab named ${args.name} was up\n`
        : `removed lab ${args.name}: ${report.namespaces.join(', ')}${report.dirRemoved ? '' : ` (${args.dir} kept: it holds other files)`}\n`,
    );
  },
};

const demoCommand: CommandModule<object, DemoArgs> = {
  command: 'demo',
  describe: 'Build a lab, show the VIP failing over as a client sees it (kill, health, reload, drain), remove it',
  builder: (y) =>
    labOptions(y)
      .option('keep', { type: 'boolean', default: false, describe: 'Leave the lab up at the end' })
      .option('kill', {
        choices: ['node', 'daemon'] as const,
        default: 'node' as KillMode,
        describe: 'node: the owner loses power (link down, daemon SIGKILL); daemon: only its daemon is killed',
      })
      .example('sudo mlb lab demo', 'about a minute, every step narrated with its timing')
      .example('sudo mlb lab demo --bgp', 'BGP mode: sessions, ECMP and a BFD-fast withdrawal as FRR reports them'),
  handler: async (args) => {
    await withLabErrors(async () => {
      planLab({ name: args.name, dir: args.dir, nodes: args.nodes, bgp: args.bgp });
      await checkLabPrerequisites();
      if (args.bgp) checkFrr();
      const common = {
        nodes: args.nodes,
        name: args.name,
        dir: args.dir,
        mlbCommand: labSelfCommand(),
        keep: args.keep,
        ...(args['gossip-profile'] ? { gossipProfile: args['gossip-profile'] } : {}),
        write: (line: string) => process.stdout.write(`${line}\n`),
      };
      const demo = args.bgp ? new BgpDemo(common) : new Demo({ ...common, kill: args.kill });
      const onSignal = () => void demo.interrupt().finally(() => process.exit(ExitCode.failure));
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const ok = await demo.run();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.exitCode = ok ? ExitCode.ok : ExitCode.failure;
    });
  },
};

const serveCommand: CommandModule<object, ServeArgs> = {
  command: 'serve',
  describe: false,
  builder: (y) =>
    y
      .option('node', { type: 'string', demandOption: true })
      .option('port', { type: 'number', default: LAB_HTTP_PORT })
      .option('health-file', { type: 'string', demandOption: true }),
  handler: async (args) => {
    const server = await startLabHttpServer({ nodeName: args.node, port: args.port, healthFile: args['health-file'] });
    process.stdout.write(`${JSON.stringify({ event: 'listening', node: args.node, port: server.port })}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => void server.close().then(resolve);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
  },
};

const probeCommand: CommandModule<object, ProbeArgs> = {
  command: 'probe',
  describe: false,
  builder: (y) =>
    y
      .option('target', { type: 'string', demandOption: true, describe: 'HOST:PORT, IPv6 as [addr]:port' })
      .option('interval-ms', { type: 'number', default: DEFAULT_PROBE_INTERVAL_MS })
      .option('timeout-ms', { type: 'number', default: DEFAULT_PROBE_TIMEOUT_MS })
      .option('count', { type: 'number' }),
  handler: async (args) => {
    let target;
    try {
      target = parseHostPort(args.target, LAB_HTTP_PORT);
    } catch (error) {
      throw new UsageError(`--target: ${(error as Error).message}`);
    }
    if (!(args['interval-ms'] >= MIN_PROBE_INTERVAL_MS)) throw new UsageError(`--interval-ms must be at least ${MIN_PROBE_INTERVAL_MS}`);
    if (!(args['timeout-ms'] > 0 && args['timeout-ms'] <= MAX_PROBE_TIMEOUT_MS))
      throw new UsageError(`--timeout-ms must be 1-${MAX_PROBE_TIMEOUT_MS}`);
    if (args.count !== undefined && !(Number.isInteger(args.count) && args.count > 0))
      throw new UsageError('--count must be a positive whole number');
    const stop = new AbortController();
    process.once('SIGTERM', () => stop.abort());
    process.once('SIGINT', () => stop.abort());
    await runProbeLoop(
      {
        host: target.host,
        port: target.port,
        intervalMs: args['interval-ms'],
        timeoutMs: args['timeout-ms'],
        ...(args.count !== undefined ? { count: args.count } : {}),
        write: (line) => process.stdout.write(line),
      },
      stop.signal,
    );
  },
};

export const labCommand: CommandModule = {
  command: 'lab',
  describe: 'A lab of network namespaces on this machine: N nodes running mlb daemon and a client (needs root)',
  builder: (y) =>
    y
      .command(upCommand)
      .command(downCommand)
      .command(demoCommand)
      .command(serveCommand)
      .command(probeCommand)
      .command(labNodeCommands(withLabErrors))
      .demandCommand(1, 'Name a lab command: up, down, demo, or one for a node (kill, stop, start, restart, partition, heal, health).')
      .epilogue("Start with: sudo mlb lab demo. Everything lives in namespaces NAME-*; the host's own interfaces are never touched."),
  handler: () => undefined,
};

/** How the lab runs mlb: this very program, as the one-file executable or node with the bundle. */
function labSelfCommand(): string[] {
  const command = selfCommand();
  if (!command) throw new CommandError('cannot tell where this mlb program is (no script path)', 'labNoSelf');
  return command;
}

/** Ctrl-C while `mlb lab up` builds: remove what was built so far, then exit 1. */
async function withCleanupOnSignal<T>(args: LabArgs, run: () => Promise<T>): Promise<T> {
  let cleanup: Promise<never> | undefined;
  const onSignal = () => {
    process.stderr.write('mlb: interrupted: removing the half-built lab\n');
    cleanup = Lab.downByName({ name: args.name, dir: args.dir })
      .catch(() => undefined)
      .then(() => process.exit(ExitCode.failure));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const result = await run().catch(async (error: unknown) => {
      // Up failing because the cleanup removed what it was waiting for is the interrupt, not an error to report.
      if (cleanup) await cleanup;
      throw error;
    });
    // Interrupted as the last step finished: the cleanup wins, nothing says the lab is up.
    if (cleanup) await cleanup;
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** A LabError is a failure the user can act on: exit 1 with its message, no stack. */
async function withLabErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof LabError) {
      // A bad --name or --nodes is the command line's fault (exit 2), whatever else is wrong.
      if (error.code === 'badName' || error.code === 'badNodeCount') throw new UsageError(error.message);
      throw new CommandError(error.message, error.code);
    }
    throw error;
  }
}
