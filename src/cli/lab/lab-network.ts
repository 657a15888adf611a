/**
 * The lab's network and its removal: namespaces, the bridge, a veth per host with the plan's MAC and addresses;
 * teardown kills what runs inside the lab's namespaces, deletes them and the files the lab wrote. Only namespaces
 * shaped like this lab's (isLabNamespace) are ever touched, and nothing is made in the root namespace.
 */
import { readdir, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { LabError } from './lab-errors';
import { LAB_BGP_SUBNET_V4 } from './lab-bgp';
import { LAB_BRIDGE, LAB_INTERFACE, isLabNamespace, labHosts, labNamespaces, type LabHostPlan, type LabPlan } from './lab-plan';
import { downCommandText } from './narration';
import { deleteNetns, ip, listNetns, run } from './netns';

export interface LabDownReport {
  /** The namespaces deleted. */
  readonly namespaces: readonly string[];
  /** Whether the lab's directory is gone (false when something not the lab's is left in it). */
  readonly dirRemoved: boolean;
}

export async function refuseExisting(plan: LabPlan): Promise<void> {
  const existing = (await listNetns()).filter((ns) => isLabNamespace(plan.name, ns));
  const stateFile = await stat(plan.stateFile).then(
    () => true,
    () => false,
  );
  if (existing.length > 0 || stateFile) {
    throw new LabError(
      `a lab named ${plan.name} is already up (${existing.length > 0 ? existing.join(', ') : plan.stateFile}): remove it with "${downCommandText(plan)}"`,
      'labExists',
    );
  }
}

/** The namespaces, the bridge and one veth per host; every address and MAC from the plan. */
export async function buildNetwork(plan: LabPlan): Promise<void> {
  const br = plan.bridgeNs;
  await ip('netns', 'add', br);
  await ip('-n', br, 'link', 'set', 'lo', 'up');
  // No multicast snooping: without an MLD querier in the lab, a snooping bridge may stop forwarding the
  // solicited-node multicast that IPv6 neighbour discovery (and mlb's NDP answers) rely on.
  await ip('-n', br, 'link', 'add', LAB_BRIDGE, 'type', 'bridge', 'mcast_snooping', '0');
  await ip('-n', br, 'link', 'set', LAB_BRIDGE, 'up');
  for (const host of labHosts(plan)) await addHost(plan, host);
  // The client reaches the routed service addresses through the router, as a client on a real network would.
  if (plan.router) await ip('-n', plan.client.netns, 'route', 'add', LAB_BGP_SUBNET_V4, 'via', plan.router.ipv4, 'dev', LAB_INTERFACE);
}

/**
 * The router's kernel: it forwards (FRR's zebra installs the routes, the kernel moves the packets); it spreads
 * flows over equal-cost next hops by ports too (policy 1, L4), so one client's connections reach several nodes as
 * they would from many clients; and it sends no ICMP redirects, which would tell the client to skip it and talk
 * to the node directly (client, router and nodes share one segment). Set before eth0 exists: `default` applies to
 * interfaces created later, and `all` is OR-ed with each interface's own value for redirects.
 */
const ROUTER_SYSCTLS = [
  'net.ipv4.ip_forward=1',
  'net.ipv4.fib_multipath_hash_policy=1',
  'net.ipv4.conf.all.send_redirects=0',
  'net.ipv4.conf.default.send_redirects=0',
];

async function addHost(plan: LabPlan, host: LabHostPlan): Promise<void> {
  const ns = host.netns;
  await ip('netns', 'add', ns);
  await ip('-n', ns, 'link', 'set', 'lo', 'up');
  if (host === plan.router) await sysctl(ns, ROUTER_SYSCTLS);
  // A link going down (linkDown: a node "powered off") must not flush the node's IPv6 address, or it would come
  // back without one; Linux flushes them on down unless told otherwise.
  await run(['ip', 'netns', 'exec', ns, 'sysctl', '-qw', 'net.ipv6.conf.all.keep_addr_on_down=1']);
  await ip('-n', plan.bridgeNs, 'link', 'add', host.bridgePort, 'type', 'veth', 'peer', 'name', LAB_INTERFACE, 'netns', ns);
  await ip('-n', plan.bridgeNs, 'link', 'set', host.bridgePort, 'master', LAB_BRIDGE, 'up');
  await ip('-n', ns, 'link', 'set', LAB_INTERFACE, 'address', host.mac);
  await ip('-n', ns, 'addr', 'add', `${host.ipv4}/24`, 'dev', LAB_INTERFACE);
  await ip('-n', ns, 'addr', 'add', `${host.ipv6}/64`, 'dev', LAB_INTERFACE, 'nodad');
  await ip('-n', ns, 'link', 'set', LAB_INTERFACE, 'up');
}

async function sysctl(netns: string, settings: readonly string[]): Promise<void> {
  const result = await run(['ip', 'netns', 'exec', netns, 'sysctl', '-qw', ...settings]);
  if (result.status !== 0)
    throw new LabError(`sysctl -w ${settings.join(' ')} in ${netns} failed: ${result.stderr.trim()}`, 'commandFailed');
}

export async function removeLab(plan: LabPlan): Promise<LabDownReport> {
  const present = new Set((await listNetns()).filter((ns) => isLabNamespace(plan.name, ns)));
  // The planned order (hosts, then the bridge), then any of this lab's namespaces a larger earlier lab left.
  const order = [...labNamespaces(plan).filter((ns) => present.has(ns)), ...[...present].filter((ns) => !labNamespaces(plan).includes(ns))];
  const bridgeLast = [...order.filter((ns) => ns !== plan.bridgeNs), ...order.filter((ns) => ns === plan.bridgeNs)];
  for (const ns of bridgeLast) await deleteNetns(ns);
  return { namespaces: bridgeLast, dirRemoved: await removeLabFiles(plan) };
}

/** Only what the lab writes is removed: a --dir pointing at a directory with other files keeps them. */
async function removeLabFiles(plan: LabPlan): Promise<boolean> {
  // node-N: each node's files; router: FRR's (--bgp).
  const nodeDirs = /^(node-[1-9][0-9]?|router)$/;
  const entries = await readdir(plan.dir).catch(() => undefined);
  if (entries === undefined) return true;
  for (const entry of entries) {
    const path = `${plan.dir}/${entry}`;
    if (nodeDirs.test(entry)) await rm(path, { recursive: true, force: true });
    else if (entry === 'lab.json' || entry === 'mlb.yaml' || /^(lab\.json|mlb\.yaml)\.tmp-\d+$/.test(entry))
      await unlink(path).catch(() => undefined);
  }
  return rmdir(plan.dir).then(
    () => true,
    () => false,
  );
}
