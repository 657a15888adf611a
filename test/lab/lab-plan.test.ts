import { describe, expect, it } from 'vitest';
import { cidrContains, parseCIDR, parseIP } from '../../src/ip';
import { LabError } from '../../src/cli/lab/lab-errors';
import {
  DEFAULT_LAB_DIR,
  LAB_SUBNET_V4,
  LAB_SUBNET_V6,
  MAX_LAB_NODES,
  daemonArgv,
  findNode,
  hostByMac,
  hostPort,
  isLabNamespace,
  labNamespaces,
  planLab,
  probeArgv,
  serverArgv,
} from '../../src/cli/lab/lab-plan';

function inCIDR(ip: string, cidr: string): boolean {
  const net = parseCIDR(cidr);
  const addr = parseIP(ip);
  if (!net || !addr) return false;
  return cidrContains(net, addr);
}

describe('planLab: names, addresses and MACs', () => {
  const plan = planLab({ name: 'mlb-lab', nodes: 3 });

  it('names namespaces <name>-node-N, <name>-client and <name>-br, the bridge last', () => {
    expect(labNamespaces(plan)).toEqual(['mlb-lab-client', 'mlb-lab-node-1', 'mlb-lab-node-2', 'mlb-lab-node-3', 'mlb-lab-br']);
    expect(plan.nodes.map((n) => n.name)).toEqual(['node-1', 'node-2', 'node-3']);
  });

  it('gives node-N the address .1N, the client .2, all inside the lab subnets', () => {
    expect(plan.nodes.map((n) => n.ipv4)).toEqual(['172.31.213.11', '172.31.213.12', '172.31.213.13']);
    expect(plan.client.ipv4).toBe('172.31.213.2');
    for (const h of [plan.client, ...plan.nodes]) {
      expect(inCIDR(h.ipv4, LAB_SUBNET_V4), h.ipv4).toBe(true);
      expect(inCIDR(h.ipv6, LAB_SUBNET_V6), h.ipv6).toBe(true);
    }
  });

  it('keeps every address, MAC and bridge port unique at the largest size, and a MAC leads back to its host', () => {
    const big = planLab({ name: 'big', nodes: MAX_LAB_NODES });
    const hosts = [big.client, ...big.nodes];
    for (const field of ['ipv4', 'ipv6', 'mac', 'bridgePort', 'netns'] as const) {
      expect(new Set(hosts.map((h) => h[field])).size, field).toBe(hosts.length);
    }
    for (const h of hosts) {
      expect(h.mac).toMatch(/^02(:[0-9a-f]{2}){5}$/);
      expect(hostByMac(big, h.mac.toUpperCase())?.name).toBe(h.name);
      // Linux interface names are at most 15 characters.
      expect(h.bridgePort.length).toBeLessThanOrEqual(15);
    }
    expect(hostByMac(big, '02:00:00:00:00:01')).toBeUndefined();
  });

  it('puts every node file under the lab directory, one directory per node', () => {
    const node = findNode(plan, 'node-2');
    expect(plan.dir).toBe(DEFAULT_LAB_DIR);
    expect(node.controlSocket).toBe(`${DEFAULT_LAB_DIR}/node-2/mlb.sock`);
    expect(node.stateDir).toBe(`${DEFAULT_LAB_DIR}/node-2/state`);
    expect(planLab({ dir: '/tmp/x/' }).configFile).toBe('/tmp/x/mlb.yaml');
  });

  it('rejects bad names and node counts with stable codes', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return (error as LabError).code;
      }
      return 'no error';
    };
    expect(code(() => planLab({ name: 'Mlb' }))).toBe('badName');
    expect(code(() => planLab({ name: 'a b' }))).toBe('badName');
    expect(code(() => planLab({ name: 'x'.repeat(32) }))).toBe('badName');
    expect(code(() => planLab({ nodes: 1 }))).toBe('badNodeCount');
    expect(code(() => planLab({ nodes: MAX_LAB_NODES + 1 }))).toBe('badNodeCount');
    expect(code(() => planLab({ nodes: 2.5 }))).toBe('badNodeCount');
    expect(code(() => findNode(plan, 'node-9'))).toBe('unknownNode');
  });
});

describe('isLabNamespace: what down() may delete', () => {
  it('accepts exactly the shapes a lab of that name makes, whatever its size', () => {
    for (const ns of ['mlb-lab-br', 'mlb-lab-client', 'mlb-lab-node-1', 'mlb-lab-node-32'])
      expect(isLabNamespace('mlb-lab', ns), ns).toBe(true);
  });

  it('leaves other labs and look-alikes alone', () => {
    for (const ns of [
      'mlb-lab',
      'mlb-lab-2-br',
      'mlb-lab-node-',
      'mlb-lab-node-0',
      'mlb-lab-node-1x',
      'other-br',
      'mlb-labx-br',
      'mlb-lab-sw',
    ]) {
      expect(isLabNamespace('mlb-lab', ns), ns).toBe(false);
    }
  });
});

describe('command lines', () => {
  const plan = planLab({ name: 'mlb-lab', nodes: 3, dir: '/run/lab' });
  const node2 = findNode(plan, 'node-2');

  it('starts each daemon on its own address, joining the other nodes, with its own state and socket', () => {
    const argv = daemonArgv(plan, node2, { gossipProfile: 'lan' });
    const flag = (name: string) => argv[argv.indexOf(name) + 1];
    expect(argv[0]).toBe('daemon');
    expect(flag('--config')).toBe('/run/lab/mlb.yaml');
    expect(flag('--node-name')).toBe('node-2');
    expect(flag('--gossip-bind')).toBe('172.31.213.12:7946');
    expect(flag('--join')).toBe('172.31.213.11:7946,172.31.213.13:7946');
    expect(flag('--gossip-profile')).toBe('lan');
    expect(flag('--state-dir')).toBe('/run/lab/node-2/state');
    expect(flag('--control-socket')).toBe('/run/lab/node-2/mlb.sock');
    expect(daemonArgv(plan, node2)).not.toContain('--gossip-profile');
    const fastFailover = daemonArgv(plan, node2, { gossipProfile: 'fast-failover' });
    expect(fastFailover[fastFailover.indexOf('--gossip-profile') + 1]).toBe('fast-failover');
  });

  it('starts the HTTP server and the probe as hidden mlb lab subcommands', () => {
    expect(serverArgv(node2)).toEqual(['lab', 'serve', '--node', 'node-2', '--port', '80', '--health-file', '/run/lab/node-2/health']);
    expect(probeArgv(hostPort('fd00:31:213::200'), { intervalMs: 20, count: 3 })).toEqual([
      'lab',
      'probe',
      '--target',
      '[fd00:31:213::200]:80',
      '--interval-ms',
      '20',
      '--count',
      '3',
    ]);
    expect(hostPort('172.31.213.200', 8080)).toBe('172.31.213.200:8080');
  });
});
