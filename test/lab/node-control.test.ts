/**
 * The node commands' decisions and sentences without root: a fake lab records what each command does, so "asked
 * twice, the second does nothing and says so" is checked for every command; the partition's nftables rules and
 * `mlb lab up`'s hint lines are checked as text. The real effects are in lab-node-commands.lab.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { LabError } from '../../src/cli/lab/lab-errors';
import { daemonArgv, findNode, planLab, type LabPlan } from '../../src/cli/lab/lab-plan';
import { controlDaemon, controlHealth, controlPartition, type NodeControlLab } from '../../src/cli/lab/node-control';
import { nodeCommandText, nodeControlText, nodeControlTryLines } from '../../src/cli/lab/node-control-text';
import { partitionRuleset } from '../../src/cli/lab/partition-rules';

/** A lab in memory: pids, partitions and health files as plain fields; `calls` lists every change made. */
function fakeLab(plan: LabPlan) {
  const pids = new Map<string, number>(plan.nodes.map((n) => [n.name, 100 + n.index]));
  const partitioned = new Set<string>();
  const unhealthy = new Set<string>();
  const calls: string[] = [];
  let nextPid = 500;
  const lab: NodeControlLab = {
    plan,
    node: (name) => findNode(plan, name),
    daemonPid: (name) => pids.get(name),
    killDaemon: async (name, sig) => void (calls.push(`${sig} ${name}`), pids.delete(name)),
    startDaemon: async (name) => void (calls.push(`start ${name}`), pids.set(name, nextPid++)),
    partition: async (name) => (calls.push(`partition ${name}`), !partitioned.has(name) && Boolean(partitioned.add(name))),
    heal: async (name) => (calls.push(`heal ${name}`), partitioned.delete(name)),
    isHealthy: async (name) => !unhealthy.has(name),
    setHealthy: async (name, healthy) =>
      void (calls.push(`health ${name} ${healthy}`), healthy ? unhealthy.delete(name) : unhealthy.add(name)),
  };
  return { lab, calls };
}

const plan = planLab({ name: 'mlb-lab', nodes: 3 });
const custom = planLab({ name: 'mlb-lab', dir: '/tmp/lab', nodes: 3 });

describe('mlb lab kill|stop|start|restart', () => {
  it('kill sends SIGKILL once; a second kill finds nothing running and says so', async () => {
    const { lab, calls } = fakeLab(plan);
    expect(nodeControlText(plan, await controlDaemon(lab, 'kill', 'node-2'))).toBe(
      'node-2: daemon killed with SIGKILL (pid 102), as in a crash: it did not leave, so the others mark it dead once their probes fail. Back: mlb lab start node-2',
    );
    expect(nodeControlText(plan, await controlDaemon(lab, 'kill', 'node-2'))).toBe(
      'node-2: the daemon is not running; nothing to kill (start it: mlb lab start node-2)',
    );
    expect(calls).toEqual(['SIGKILL node-2']);
  });

  it('stop sends SIGTERM; start starts only a stopped daemon; restart stops a running one first', async () => {
    const { lab, calls } = fakeLab(plan);
    expect(nodeControlText(plan, await controlDaemon(lab, 'stop', 'node-3'))).toContain(
      'node-3: daemon stopped with SIGTERM (pid 103): it left the cluster',
    );
    expect(nodeControlText(plan, await controlDaemon(lab, 'stop', 'node-3'))).toBe('node-3: the daemon is not running; nothing to stop');
    expect(nodeControlText(plan, await controlDaemon(lab, 'start', 'node-3'))).toBe(
      'node-3: daemon started (pid 500); log /run/mlb-lab/node-3/daemon.log',
    );
    expect(nodeControlText(plan, await controlDaemon(lab, 'start', 'node-3'))).toBe(
      'node-3: the daemon is already running (pid 500); nothing changed',
    );
    expect(nodeControlText(plan, await controlDaemon(lab, 'restart', 'node-3'))).toBe(
      'node-3: daemon restarted: pid 500 stopped with SIGTERM, pid 501 started; log /run/mlb-lab/node-3/daemon.log',
    );
    expect(calls).toEqual(['SIGTERM node-3', 'start node-3', 'SIGTERM node-3', 'start node-3']);
  });

  it('refuses a node the lab does not have, with the nodes it has', async () => {
    const { lab, calls } = fakeLab(plan);
    const error = await controlDaemon(lab, 'kill', 'node-9').catch((e: LabError) => e);
    expect(error).toBeInstanceOf(LabError);
    expect((error as LabError).code).toBe('unknownNode');
    expect((error as LabError).message).toBe('no node-9 in lab mlb-lab: it has node-1, node-2, node-3');
    expect(calls).toEqual([]);
  });
});

describe('mlb lab partition|heal', () => {
  it('partitions once, names the other nodes, and heals once', async () => {
    const { lab } = fakeLab(custom);
    const say = async (action: 'partition' | 'heal') => nodeControlText(custom, await controlPartition(lab, action, 'node-2'));
    expect(await say('partition')).toBe(
      'node-2: partitioned from node-1, node-3: every packet between them is dropped (nftables table inet mlb_lab_partition in mlb-lab-node-2), gossip included; its daemon keeps running and the client still reaches it. Undo: mlb lab heal node-2 --dir /tmp/lab',
    );
    expect(await say('partition')).toBe(
      'node-2: already partitioned from node-1, node-3; nothing changed (undo: mlb lab heal node-2 --dir /tmp/lab)',
    );
    expect(await say('heal')).toBe(
      'node-2: healed: the partition rules are gone from mlb-lab-node-2; the nodes find each other again within seconds',
    );
    expect(await say('heal')).toBe('node-2: not partitioned; nothing to heal');
  });

  it('drops both families both ways between the node and the other nodes only (not the client or router)', () => {
    const bgp = planLab({ name: 'mlb-lab', nodes: 3, bgp: true });
    const rules = partitionRuleset(bgp, bgp.nodes[1]!);
    expect(rules).toContain('table inet mlb_lab_partition {');
    expect(rules).toContain('ip saddr { 172.31.213.11, 172.31.213.13 } drop');
    expect(rules).toContain('ip daddr { 172.31.213.11, 172.31.213.13 } drop');
    expect(rules).toContain('ip6 saddr { fd00:31:213::11, fd00:31:213::13 } drop');
    expect(rules).toContain('ip6 daddr { fd00:31:213::11, fd00:31:213::13 } drop');
    expect(rules).not.toContain('172.31.213.2,');
    expect(rules).not.toMatch(/172\.31\.213\.(1|2|12)\b/);
  });
});

describe('mlb lab health', () => {
  it("fail writes the health file the lab's check reads; asked again it says nothing changed; pass undoes it", async () => {
    const { lab, calls } = fakeLab(plan);
    expect(nodeControlText(plan, await controlHealth(lab, 'node-2', 'fail'))).toBe(
      'node-2: its health check now fails (http://127.0.0.1:80/healthz in node-2 answers 503: /run/mlb-lab/node-2/health says unhealthy); health-checked services move off it. Undo: mlb lab health node-2 pass',
    );
    expect(nodeControlText(plan, await controlHealth(lab, 'node-2', 'fail'))).toBe(
      'node-2: its health check already fails; nothing changed (undo: mlb lab health node-2 pass)',
    );
    expect(nodeControlText(plan, await controlHealth(lab, 'node-2', 'pass'))).toContain('node-2: its health check passes again');
    expect(nodeControlText(plan, await controlHealth(lab, 'node-2', 'pass'))).toBe(
      'node-2: its health check already passes; nothing changed',
    );
    expect(calls.filter((c) => c.startsWith('health'))).toEqual([
      'health node-2 false',
      'health node-2 false',
      'health node-2 true',
      'health node-2 true',
    ]);
  });
});

describe("the node commands in mlb lab up's output, and metrics", () => {
  it('names --dir only when the lab is not in the default directory', () => {
    expect(nodeCommandText(plan, 'kill', 'node-2')).toBe('mlb lab kill node-2');
    expect(nodeCommandText(custom, 'health', 'node-2', 'fail')).toBe('mlb lab health node-2 fail --dir /tmp/lab');
  });

  it('lists the commands and one metrics URL per node, in its namespace', () => {
    const lines = nodeControlTryLines(custom);
    expect(lines[0]).toMatch(/^ {2}nodes: {2}sudo mlb lab kill node-2 --dir \/tmp\/lab +a crash \(SIGKILL\)/);
    expect(lines.some((l) => l.includes('sudo mlb lab partition node-2 --dir /tmp/lab '))).toBe(true);
    expect(lines.some((l) => l.includes('sudo mlb lab health node-2 fail --dir /tmp/lab '))).toBe(true);
    expect(lines.slice(-3)).toEqual([
      '  metrics: sudo ip netns exec mlb-lab-node-1 curl -s http://172.31.213.11:7472/metrics',
      '           sudo ip netns exec mlb-lab-node-2 curl -s http://172.31.213.12:7472/metrics',
      '           sudo ip netns exec mlb-lab-node-3 curl -s http://172.31.213.13:7472/metrics',
    ]);
  });

  it("starts every daemon with metrics on its own address at MetalLB's port", () => {
    for (const node of plan.nodes) {
      const argv = daemonArgv(plan, node);
      expect(argv[argv.indexOf('--metrics-bind') + 1]).toBe(`${node.ipv4}:7472`);
    }
  });
});
