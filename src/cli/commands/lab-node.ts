/**
 * `mlb lab kill|stop|start|restart|partition|heal NODE` and `mlb lab health NODE fail|pass`: one thing done to one
 * node of the lab `mlb lab up` left in --dir (src/cli/lab/node-control.ts). Each is idempotent: asked twice, the
 * second says nothing changed and exits 0. No lab there, or no such node: exit 1 with the reason.
 */
import type { Argv, CommandModule } from 'yargs';
import { Lab } from '../lab/lab';
import { DEFAULT_LAB_DIR } from '../lab/lab-plan';
import { controlDaemon, controlHealth, controlPartition } from '../lab/node-control';
import {
  DAEMON_ACTIONS,
  HEALTH_WORDS,
  nodeControlText,
  type DaemonAction,
  type HealthWord,
  type NodeControlOutcome,
  type PartitionAction,
} from '../lab/node-control-text';

interface NodeArgs {
  node: string;
  dir: string;
}

interface HealthArgs extends NodeArgs {
  check: HealthWord;
}

type LabErrorWrapper = <T>(run: () => Promise<T>) => Promise<T>;

const DAEMON_DESCRIPTIONS: Record<DaemonAction, string> = {
  kill: "Kill a node's daemon with SIGKILL, as a crash: it does not leave, the others find it dead",
  stop: "Stop a node's daemon with SIGTERM: it leaves the cluster cleanly",
  start: "Start a node's daemon again (nothing when it runs)",
  restart: "Stop a node's daemon with SIGTERM and start it again",
};

const PARTITION_DESCRIPTIONS: Record<PartitionAction, string> = {
  partition: 'Cut a node off the other nodes (nftables in its namespace drops their packets, gossip included); the client still reaches it',
  heal: 'Undo partition: remove exactly the rules it added',
};

function nodeOptions<T>(y: Argv<T>): Argv<T & NodeArgs> {
  return y
    .positional('node', { type: 'string', demandOption: true, describe: 'node-1, node-2, ...' })
    .option('dir', { type: 'string', default: DEFAULT_LAB_DIR, describe: "The lab's directory (as given to up)" }) as Argv<T & NodeArgs>;
}

async function act(withLabErrors: LabErrorWrapper, dir: string, run: (lab: Lab) => Promise<NodeControlOutcome>): Promise<void> {
  await withLabErrors(async () => {
    const lab = await Lab.attach(dir);
    process.stdout.write(`${nodeControlText(lab.plan, await run(lab))}\n`);
  });
}

/** The node commands, for `mlb lab`'s builder; `withLabErrors` turns a LabError into exit 1 with its message. */
export function labNodeCommands(withLabErrors: LabErrorWrapper): CommandModule<object, never>[] {
  const daemon = DAEMON_ACTIONS.map((action): CommandModule<object, NodeArgs> => ({
    command: `${action} <node>`,
    describe: DAEMON_DESCRIPTIONS[action],
    builder: (y) => nodeOptions(y),
    handler: (args) => act(withLabErrors, args.dir, (lab) => controlDaemon(lab, action, args.node)),
  }));
  const partition = (['partition', 'heal'] as const).map((action): CommandModule<object, NodeArgs> => ({
    command: `${action} <node>`,
    describe: PARTITION_DESCRIPTIONS[action],
    builder: (y) => nodeOptions(y),
    handler: (args) => act(withLabErrors, args.dir, (lab) => controlPartition(lab, action, args.node)),
  }));
  const health: CommandModule<object, HealthArgs> = {
    command: 'health <node> <check>',
    describe: "Make a node's health check fail (its services move off it) or pass again",
    builder: (y) =>
      nodeOptions(y).positional('check', { choices: HEALTH_WORDS, demandOption: true, describe: 'fail or pass' }) as Argv<HealthArgs>,
    handler: (args) => act(withLabErrors, args.dir, (lab) => controlHealth(lab, args.node, args.check)),
  };
  return [...daemon, ...partition, health] as unknown as CommandModule<object, never>[];
}
