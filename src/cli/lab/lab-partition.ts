/**
 * Partitioning a lab node and healing it (partition-rules.ts says which packets): `nft` run inside the node's
 * namespace. The kernel is the record: a node is partitioned while its namespace holds the partition table, so
 * `mlb lab partition` and `heal` in separate processes agree without anything in lab.json, and `mlb lab down`
 * removes the rules with the namespace.
 */
import { LabError } from './lab-errors';
import type { LabNodePlan, LabPlan } from './lab-plan';
import { run, type ExecResult } from './netns';
import { PARTITION_FAMILY, PARTITION_TABLE, partitionRuleset } from './partition-rules';

/** run()'s status when the command itself could not be started (not installed). */
const COMMAND_NOT_FOUND_STATUS = 127;

const NFT_MISSING_MESSAGE =
  'mlb lab partition drops packets with nftables, and nft is not installed here: install nftables (apt-get install nftables)';

/**
 * nft inside the node's namespace. Whether nft exists is asked first, with `nft --version` (which reads no
 * ruleset): inside `ip netns exec` a missing nft and a missing table both end in "No such file or directory".
 */
async function nft(node: LabNodePlan, args: readonly string[]): Promise<ExecResult> {
  if ((await run(['nft', '--version'])).status === COMMAND_NOT_FOUND_STATUS) throw new LabError(NFT_MISSING_MESSAGE, 'noNftables');
  return run(['ip', 'netns', 'exec', node.netns, 'nft', ...args]);
}

function failed(node: LabNodePlan, what: string, result: ExecResult): LabError {
  return new LabError(`nft ${what} in ${node.netns} failed: ${result.stderr.trim() || `exit ${result.status}`}`, 'commandFailed');
}

/** Whether the node's namespace holds the partition table. */
export async function isPartitioned(node: LabNodePlan): Promise<boolean> {
  const result = await nft(node, ['list', 'table', PARTITION_FAMILY, PARTITION_TABLE]);
  return result.status === 0;
}

/** Adds the partition table; false (and nothing changed) when the node already is partitioned. */
export async function partitionNode(plan: LabPlan, node: LabNodePlan): Promise<boolean> {
  if (await isPartitioned(node)) return false;
  const result = await nft(node, [partitionRuleset(plan, node)]);
  if (result.status !== 0) throw failed(node, 'add table', result);
  return true;
}

/** Deletes the partition table; false when there was none. */
export async function healNode(node: LabNodePlan): Promise<boolean> {
  if (!(await isPartitioned(node))) return false;
  const result = await nft(node, ['delete', 'table', PARTITION_FAMILY, PARTITION_TABLE]);
  if (result.status !== 0) throw failed(node, 'delete table', result);
  return true;
}
