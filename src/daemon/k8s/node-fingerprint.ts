/**
 * What of this speaker's own Node object makes it rejoin when it changes: its labels and its conditions' types and
 * statuses (MetalLB's speaker rejoins on every SetNode of its own node; the rest of a Node, heartbeat times and
 * images, changes every few seconds and says nothing about the cluster). Pure.
 */
import type { ApiObject } from '../../sources/k8s/api-object';

interface NodeStatus {
  readonly conditions?: readonly { readonly type?: unknown; readonly status?: unknown }[];
}

export function nodeFingerprint(node: ApiObject): string {
  const labels = Object.entries(node.metadata?.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const conditions = ((node.status ?? {}) as NodeStatus).conditions ?? [];
  const statuses = conditions.map((c) => [String(c.type), String(c.status)]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
  return JSON.stringify([labels, statuses]);
}
