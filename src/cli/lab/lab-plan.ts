/**
 * The lab's topology as data: namespace names, addresses, MACs, file paths and the command lines of every process
 * `mlb lab` starts. Pure, so the names and addresses a user reads in `mlb lab up` and the README are tested without
 * root, and Lab (lab.ts) only executes the plan.
 *
 *        <name>-client (.2)      <name>-node-1 (.11)   <name>-node-2 (.12)   ...   [<name>-router (.1), --bgp]
 *             eth0                    eth0                  eth0                        eth0
 *              |                       |                     |                           |
 *   <name>-br: c0 ------------- br0 -- n1 ---------------- n2 ... ---------------------- r0
 *                                      (a bridge in its own namespace)
 *
 * With --bgp the lab also has a router (FRR, lab-bgp.ts) that every node peers with; the client reaches the
 * routed service addresses through it.
 *
 * Nothing is created in the root namespace: the bridge and every veth end live in lab namespaces, so deleting
 * the namespaces removes everything, and the host's own interfaces are never touched.
 */
import { METALLB_METRICS_PORT } from '../../daemon/metrics/metrics-port';
import { LabError } from './lab-errors';
import type { SwimProfileName } from '../../gossip/swim/config';

export const DEFAULT_LAB_NAME = 'mlb-lab';
/** /run is a tmpfs: the lab's files disappear on reboot, like its namespaces. */
export const DEFAULT_LAB_DIR = '/run/mlb-lab';
/** Three nodes show an election with a loser on each side of the winner; the README's demo uses it. */
export const DEFAULT_LAB_NODES = 3;
/** Failover needs a second node. */
export const MIN_LAB_NODES = 2;
/** Each node runs a daemon (a Node process, ~50 MB); more than this is a benchmark, not a lab on one machine. */
export const MAX_LAB_NODES = 32;
/** Lab names become namespace names ("<name>-node-12"); short, lowercase, no surprises in a shell. */
const LAB_NAME_PATTERN = /^[a-z][a-z0-9-]{0,30}$/;

/** Private addresses (RFC 1918 / RFC 4193) chosen to be unlikely on a real LAN; they exist only inside the lab. */
export const LAB_SUBNET_V4 = '172.31.213.0/24';
export const LAB_SUBNET_V6 = 'fd00:31:213::/64';
const V4_PREFIX = '172.31.213.';
const V6_PREFIX = 'fd00:31:213::';
/** The client is .2 (.1 is the router's, with --bgp; left free without one). */
const CLIENT_HOST = 2;
/** The router (--bgp) is .1, where people look for a router. */
const ROUTER_HOST = 1;
/** Node N is .1N (node-1 = .11): the last octet reads as the node number. */
const NODE_HOST_BASE = 10;
/**
 * Locally administered MACs (02:...) spelling "mlb" (6d 6c 62), the last byte the host's last address octet
 * written as is: node-1 (.11) is 02:6d:6c:62:00:11, so a neighbour table reads without a lookup.
 */
const MAC_PREFIX = '02:6d:6c:62:00:';

/** The service pools; above every host address (nodes end at .42). */
export const LAB_POOL_V4 = '172.31.213.200-172.31.213.220';
export const LAB_POOL_V6 = 'fd00:31:213::200/124';
/** demo/api names its IP (metallb.io/loadBalancerIPs); the allocator picks demo/web's. */
export const LAB_API_IP = '172.31.213.210';
/** The service the demo adds to the file to show a reload. */
export const LAB_EXTRA_IP = '172.31.213.211';
const LAB_GOSSIP_PORT = 7946;
export const LAB_HTTP_PORT = 80;
/** MetalLB's metrics port: a Prometheus scrape config written for MetalLB's speakers reads the lab's nodes as is. */
const LAB_METRICS_PORT = METALLB_METRICS_PORT;

export const LAB_INTERFACE = 'eth0';
export const LAB_BRIDGE = 'br0';

export interface LabHostPlan {
  /** "client" or "node-N". */
  readonly name: string;
  readonly netns: string;
  /** The veth end in the bridge namespace ("c0", "n1"): short, the same in every lab. */
  readonly bridgePort: string;
  readonly ipv4: string;
  readonly ipv6: string;
  readonly mac: string;
}

export interface LabNodePlan extends LabHostPlan {
  /** 1-based. */
  readonly index: number;
  /** HOST:PORT the node's gossip binds to; the others join it there. */
  readonly gossip: string;
  /**
   * HOST:PORT the daemon serves Prometheus metrics on: the node's own address, so a scraper on the segment (or
   * `ip netns exec <node> curl`) reaches it, and nothing outside the lab does.
   */
  readonly metrics: string;
  /** Everything of this node: state, logs, control socket, health file. */
  readonly dir: string;
  readonly stateDir: string;
  readonly controlSocket: string;
  readonly daemonLog: string;
  readonly httpLog: string;
  /** The lab HTTP server answers /healthz 503 while this file says "unhealthy". */
  readonly healthFile: string;
}

export interface LabRouterPlan extends LabHostPlan {
  /** FRR's directory: configuration, log, pid files, vty sockets (owned by user frr). */
  readonly dir: string;
}

export interface LabPlan {
  readonly name: string;
  readonly dir: string;
  readonly bridgeNs: string;
  readonly client: LabHostPlan;
  /** The BGP router (FRR), with --bgp only. */
  readonly router?: LabRouterPlan;
  readonly nodes: readonly LabNodePlan[];
  /** The configuration every daemon reads (and reloads). */
  readonly configFile: string;
  /** What `mlb lab up` started, so `mlb lab down` and `demo` in another process find it. */
  readonly stateFile: string;
}

function checkLabName(name: string): void {
  if (!LAB_NAME_PATTERN.test(name)) {
    throw new LabError(`lab name "${name}" must be 1-31 lowercase letters, digits or dashes, starting with a letter`, 'badName');
  }
}

function checkNodeCount(nodes: number): void {
  if (!Number.isInteger(nodes) || nodes < MIN_LAB_NODES || nodes > MAX_LAB_NODES) {
    throw new LabError(`--nodes must be a whole number from ${MIN_LAB_NODES} to ${MAX_LAB_NODES} (got ${nodes})`, 'badNodeCount');
  }
}

export function planLab(options: { name?: string; dir?: string; nodes?: number; bgp?: boolean } = {}): LabPlan {
  const name = options.name ?? DEFAULT_LAB_NAME;
  const dir = trimSlash(options.dir ?? DEFAULT_LAB_DIR);
  const count = options.nodes ?? DEFAULT_LAB_NODES;
  checkLabName(name);
  checkNodeCount(count);
  const client = host(name, 'client', 'c0', CLIENT_HOST);
  const nodes = Array.from({ length: count }, (_, i) => nodePlan(name, dir, i + 1));
  const router = options.bgp ? { ...host(name, 'router', 'r0', ROUTER_HOST), dir: `${dir}/router` } : undefined;
  return {
    name,
    dir,
    bridgeNs: `${name}-br`,
    client,
    ...(router ? { router } : {}),
    nodes,
    configFile: `${dir}/mlb.yaml`,
    stateFile: `${dir}/lab.json`,
  };
}

/** The client, the router (with --bgp) and the nodes: every host on the bridge. */
export function labHosts(plan: LabPlan): LabHostPlan[] {
  return [plan.client, ...(plan.router ? [plan.router] : []), ...plan.nodes];
}

/** Every namespace of the lab, bridge last (deleting it last keeps the others' links valid until the end). */
export function labNamespaces(plan: LabPlan): string[] {
  return [...labHosts(plan).map((h) => h.netns), plan.bridgeNs];
}

/**
 * Whether a namespace name belongs to a lab of this name, whatever its node count: `mlb lab down` after a crash
 * has no state file to say how many nodes there were. Exact shapes only, so "mlb-lab-2-br" is not mlb-lab's.
 */
export function isLabNamespace(labName: string, netns: string): boolean {
  if (!netns.startsWith(`${labName}-`)) return false;
  const rest = netns.slice(labName.length + 1);
  return rest === 'br' || rest === 'client' || rest === 'router' || /^node-[1-9][0-9]?$/.test(rest);
}

export function findNode(plan: LabPlan, nodeName: string): LabNodePlan {
  const node = plan.nodes.find((n) => n.name === nodeName);
  if (!node) throw new LabError(`no ${nodeName} in lab ${plan.name}: it has ${plan.nodes.map((n) => n.name).join(', ')}`, 'unknownNode');
  return node;
}

/** The lab host whose interface has this MAC (case-insensitive), e.g. from the client's neighbour table. */
export function hostByMac(plan: LabPlan, mac: string): LabHostPlan | undefined {
  const wanted = mac.toLowerCase();
  return labHosts(plan).find((h) => h.mac === wanted);
}

export interface DaemonArgvOptions {
  readonly gossipProfile?: SwimProfileName;
  readonly logLevel?: string;
}

/** The daemon is info-level by default: the demo's narration points at these logs, and debug drowns them. */
const LAB_DAEMON_LOG_LEVEL = 'info';

/** `mlb daemon ...` for one node (after the mlb command itself): every other node is a seed. */
export function daemonArgv(plan: LabPlan, node: LabNodePlan, options: DaemonArgvOptions = {}): string[] {
  const others = plan.nodes.filter((n) => n !== node).map((n) => n.gossip);
  return [
    'daemon',
    '--config',
    plan.configFile,
    '--node-name',
    node.name,
    '--gossip-bind',
    node.gossip,
    ...(others.length > 0 ? ['--join', others.join(',')] : []),
    ...(options.gossipProfile ? ['--gossip-profile', options.gossipProfile] : []),
    '--state-dir',
    node.stateDir,
    '--control-socket',
    node.controlSocket,
    '--metrics-bind',
    node.metrics,
    '--log-level',
    options.logLevel ?? LAB_DAEMON_LOG_LEVEL,
  ];
}

/** `mlb lab serve ...` for one node: the small HTTP server its health check and the client talk to. */
export function serverArgv(node: LabNodePlan): string[] {
  return ['lab', 'serve', '--node', node.name, '--port', String(LAB_HTTP_PORT), '--health-file', node.healthFile];
}

export interface ProbeArgvOptions {
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  readonly count?: number;
}

/** `mlb lab probe ...`: the client's view of a target (HOST:PORT, IPv6 as [addr]:port). */
export function probeArgv(target: string, options: ProbeArgvOptions = {}): string[] {
  return [
    'lab',
    'probe',
    '--target',
    target,
    ...(options.intervalMs !== undefined ? ['--interval-ms', String(options.intervalMs)] : []),
    ...(options.timeoutMs !== undefined ? ['--timeout-ms', String(options.timeoutMs)] : []),
    ...(options.count !== undefined ? ['--count', String(options.count)] : []),
  ];
}

/** HOST:PORT for an IP text and port, brackets around IPv6. */
export function hostPort(ip: string, port: number = LAB_HTTP_PORT): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function host(lab: string, name: string, bridgePort: string, number: number): LabHostPlan {
  return {
    name,
    netns: `${lab}-${name}`,
    bridgePort,
    ipv4: `${V4_PREFIX}${number}`,
    // The same digits as the IPv4 octet, read as hex: node-1 is ::11 as it is .11.
    ipv6: `${V6_PREFIX}${number}`,
    mac: `${MAC_PREFIX}${String(number).padStart(2, '0')}`,
  };
}

function nodePlan(lab: string, dir: string, index: number): LabNodePlan {
  const name = `node-${index}`;
  const base = host(lab, name, `n${index}`, NODE_HOST_BASE + index);
  const nodeDir = `${dir}/${name}`;
  return {
    ...base,
    index,
    gossip: `${base.ipv4}:${LAB_GOSSIP_PORT}`,
    metrics: `${base.ipv4}:${LAB_METRICS_PORT}`,
    dir: nodeDir,
    stateDir: `${nodeDir}/state`,
    controlSocket: `${nodeDir}/mlb.sock`,
    daemonLog: `${nodeDir}/daemon.log`,
    httpLog: `${nodeDir}/http.log`,
    healthFile: `${nodeDir}/health`,
  };
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}
