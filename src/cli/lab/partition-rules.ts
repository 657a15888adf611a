/**
 * A partition of one lab node, as nftables rules (pure): every IPv4 and IPv6 packet between the node and the other
 * nodes is dropped inside the node's namespace, both ways, so memberlist's UDP probes and gossip and its TCP
 * push/pull and fallback pings all fail, as they would across a broken switch between racks. The link stays up
 * and the client (and the router, with --bgp) still reach the node: each side keeps answering ARP for what it
 * holds, which is the split brain a partition makes on a real segment. The rules live in a table of their own,
 * so healing deletes that table and leaves the namespace exactly as `mlb lab up` built it.
 */
import type { LabNodePlan, LabPlan } from './lab-plan';

/** The nftables table a partition adds in the node's namespace (family inet: IPv4 and IPv6 in one table). */
export const PARTITION_TABLE = 'mlb_lab_partition';
export const PARTITION_FAMILY = 'inet';

/** The other nodes: whom a partition of `node` cuts it off from. */
export function partitionPeers(plan: LabPlan, node: LabNodePlan): LabNodePlan[] {
  return plan.nodes.filter((n) => n.name !== node.name);
}

/** The ruleset, in nft's own syntax (one argument to `nft`, applied as one transaction: all of it or nothing). */
export function partitionRuleset(plan: LabPlan, node: LabNodePlan): string {
  const peers = partitionPeers(plan, node);
  const set = (addresses: string[]) => `{ ${addresses.join(', ')} }`;
  const v4 = set(peers.map((p) => p.ipv4));
  const v6 = set(peers.map((p) => p.ipv6));
  return [
    `table ${PARTITION_FAMILY} ${PARTITION_TABLE} {`,
    '  chain input {',
    '    type filter hook input priority filter; policy accept;',
    `    ip saddr ${v4} drop`,
    `    ip6 saddr ${v6} drop`,
    '  }',
    '  chain output {',
    '    type filter hook output priority filter; policy accept;',
    `    ip daddr ${v4} drop`,
    `    ip6 daddr ${v6} drop`,
    '  }',
    '}',
    '',
  ].join('\n');
}
