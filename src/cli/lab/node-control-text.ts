/**
 * What `mlb lab kill|stop|start|restart|partition|heal|health` say, and the lines `mlb lab up` prints to show them
 * (pure). Every command a sentence names carries the flags this lab needs (--dir when not the default), so it can be
 * pasted as is.
 */
import { HEALTH_FILE_UNHEALTHY } from './lab-http-server';
import { DEFAULT_LAB_DIR, LAB_HTTP_PORT, type LabPlan } from './lab-plan';
import { PARTITION_FAMILY, PARTITION_TABLE } from './partition-rules';

/** The daemon commands, as typed: `mlb lab kill node-2`. */
export const DAEMON_ACTIONS = ['kill', 'stop', 'start', 'restart'] as const;
export type DaemonAction = (typeof DAEMON_ACTIONS)[number];
export type PartitionAction = 'partition' | 'heal';
export const HEALTH_WORDS = ['fail', 'pass'] as const;
export type HealthWord = (typeof HEALTH_WORDS)[number];

/** The node `mlb lab up`'s hints use: every lab has one (MIN_LAB_NODES is 2), and it is not the first seed. */
const EXAMPLE_NODE = 'node-2';

export type NodeControlOutcome =
  | {
      readonly kind: 'daemon';
      readonly action: DaemonAction;
      readonly node: string;
      /** The daemon's pid before the command; undefined when it was not running. */
      readonly before?: number;
      /** Its pid after (start, restart); undefined after kill or stop. */
      readonly after?: number;
      readonly log: string;
    }
  | {
      readonly kind: 'partition';
      readonly action: PartitionAction;
      readonly node: string;
      /** false: it already was (partition) or was not (heal) partitioned, and nothing changed. */
      readonly changed: boolean;
      readonly netns: string;
      readonly peers: readonly string[];
    }
  | {
      readonly kind: 'health';
      readonly node: string;
      readonly healthy: boolean;
      /** false: the check already answered this way. */
      readonly changed: boolean;
      readonly healthFile: string;
    };

/** `mlb lab WORDS...`, with --dir when the lab is not in the default directory (node commands find it there). */
export function nodeCommandText(plan: Pick<LabPlan, 'dir'>, ...words: string[]): string {
  return ['mlb lab', ...words, ...(plan.dir === DEFAULT_LAB_DIR ? [] : ['--dir', plan.dir])].join(' ');
}

/** The sentence for what a node command did (or why it did nothing). */
export function nodeControlText(plan: Pick<LabPlan, 'dir'>, o: NodeControlOutcome): string {
  const cmd = (...words: string[]) => nodeCommandText(plan, ...words);
  switch (o.kind) {
    case 'daemon':
      return daemonText(o, cmd);
    case 'partition':
      if (o.action === 'partition') {
        return o.changed
          ? `${o.node}: partitioned from ${o.peers.join(', ')}: every packet between them is dropped (nftables table ${PARTITION_FAMILY} ${PARTITION_TABLE} in ${o.netns}), gossip included; its daemon keeps running and the client still reaches it. Undo: ${cmd('heal', o.node)}`
          : `${o.node}: already partitioned from ${o.peers.join(', ')}; nothing changed (undo: ${cmd('heal', o.node)})`;
      }
      return o.changed
        ? `${o.node}: healed: the partition rules are gone from ${o.netns}; the nodes find each other again within seconds`
        : `${o.node}: not partitioned; nothing to heal`;
    case 'health':
      if (o.healthy) {
        return o.changed
          ? `${o.node}: its health check passes again (/healthz answers 200); it may hold health-checked services once the check has passed a few times`
          : `${o.node}: its health check already passes; nothing changed`;
      }
      return o.changed
        ? `${o.node}: its health check now fails (http://127.0.0.1:${LAB_HTTP_PORT}/healthz in ${o.node} answers 503: ${o.healthFile} says ${HEALTH_FILE_UNHEALTHY}); health-checked services move off it. Undo: ${cmd('health', o.node, 'pass')}`
        : `${o.node}: its health check already fails; nothing changed (undo: ${cmd('health', o.node, 'pass')})`;
  }
}

function daemonText(o: Extract<NodeControlOutcome, { kind: 'daemon' }>, cmd: (...words: string[]) => string): string {
  const notRunning = `${o.node}: the daemon is not running`;
  switch (o.action) {
    case 'kill':
      return o.before === undefined
        ? `${notRunning}; nothing to kill (start it: ${cmd('start', o.node)})`
        : `${o.node}: daemon killed with SIGKILL (pid ${o.before}), as in a crash: it did not leave, so the others mark it dead once their probes fail. Back: ${cmd('start', o.node)}`;
    case 'stop':
      return o.before === undefined
        ? `${notRunning}; nothing to stop`
        : `${o.node}: daemon stopped with SIGTERM (pid ${o.before}): it left the cluster, so the others show it as left. Back: ${cmd('start', o.node)}`;
    case 'start':
      return o.before !== undefined
        ? `${o.node}: the daemon is already running (pid ${o.before}); nothing changed`
        : `${o.node}: daemon started (pid ${o.after ?? '?'}); log ${o.log}`;
    case 'restart':
      return o.before === undefined
        ? `${notRunning}; started it (pid ${o.after ?? '?'}); log ${o.log}`
        : `${o.node}: daemon restarted: pid ${o.before} stopped with SIGTERM, pid ${o.after ?? '?'} started; log ${o.log}`;
  }
}

/** `mlb lab up`'s lines on the node commands and each node's metrics (indented to sit under its "try:"). */
export function nodeControlTryLines(plan: LabPlan): string[] {
  const n = EXAMPLE_NODE;
  const cmd = (...words: string[]) => `sudo ${nodeCommandText(plan, ...words)}`;
  const commands: [string, string][] = [
    [cmd('kill', n), 'a crash (SIGKILL); also: stop (SIGTERM, a clean leave), start, restart'],
    [cmd('partition', n), `drop its traffic to the other nodes, gossip included; undo: heal ${n}`],
    [cmd('health', n, 'fail'), `its health check fails, so services move off it; undo: health ${n} pass`],
  ];
  const width = Math.max(...commands.map(([c]) => c.length));
  return [
    ...commands.map(([c, what], i) => `${i === 0 ? '  nodes:  ' : '          '}${c.padEnd(width)}  ${what}`),
    ...plan.nodes.map(
      (node, i) => `${i === 0 ? '  metrics:' : '          '} sudo ip netns exec ${node.netns} curl -s http://${node.metrics}/metrics`,
    ),
  ];
}
