/**
 * `mlb lab kill|stop|start|restart|partition|heal|health` against a lab `mlb lab up` left running: each does one
 * thing to one node, does nothing (and says so) when the node already is in that state, and reports what it found
 * and did for node-control-text.ts to say.
 */
import type { Lab } from './lab';
import type { DaemonAction, HealthWord, NodeControlOutcome, PartitionAction } from './node-control-text';
import { partitionPeers } from './partition-rules';

/** What these commands use of a Lab (a fake in the unit tests). */
export type NodeControlLab = Pick<
  Lab,
  'plan' | 'node' | 'daemonPid' | 'killDaemon' | 'startDaemon' | 'partition' | 'heal' | 'isHealthy' | 'setHealthy'
>;

export async function controlDaemon(lab: NodeControlLab, action: DaemonAction, nodeName: string): Promise<NodeControlOutcome> {
  const node = lab.node(nodeName);
  const before = lab.daemonPid(node.name);
  const outcome = { kind: 'daemon', action, node: node.name, log: node.daemonLog, ...(before !== undefined ? { before } : {}) } as const;
  switch (action) {
    case 'kill':
    case 'stop':
      if (before !== undefined) await lab.killDaemon(node.name, action === 'kill' ? 'SIGKILL' : 'SIGTERM');
      return outcome;
    case 'start':
      if (before !== undefined) return outcome;
      await lab.startDaemon(node.name);
      return withAfter(lab, outcome);
    case 'restart':
      if (before !== undefined) await lab.killDaemon(node.name, 'SIGTERM');
      await lab.startDaemon(node.name);
      return withAfter(lab, outcome);
  }
}

function withAfter(lab: NodeControlLab, outcome: Extract<NodeControlOutcome, { kind: 'daemon' }>): NodeControlOutcome {
  const after = lab.daemonPid(outcome.node);
  return after === undefined ? outcome : { ...outcome, after };
}

export async function controlPartition(lab: NodeControlLab, action: PartitionAction, nodeName: string): Promise<NodeControlOutcome> {
  const node = lab.node(nodeName);
  const changed = action === 'partition' ? await lab.partition(node.name) : await lab.heal(node.name);
  return {
    kind: 'partition',
    action,
    node: node.name,
    changed,
    netns: node.netns,
    peers: partitionPeers(lab.plan, node).map((p) => p.name),
  };
}

export async function controlHealth(lab: NodeControlLab, nodeName: string, word: HealthWord): Promise<NodeControlOutcome> {
  const node = lab.node(nodeName);
  const healthy = word === 'pass';
  const changed = (await lab.isHealthy(node.name)) !== healthy;
  // Written even when unchanged: a missing or odd file reads as healthy, and after this it says so in words.
  await lab.setHealthy(node.name, healthy);
  return { kind: 'health', node: node.name, healthy, changed, healthFile: node.healthFile };
}
