/**
 * What this node publishes about itself in gossip meta: its labels and conditions (from the v1 Node document
 * of the same name in the configuration, overridden by --node-labels) and its drain and warm-up flags. Every
 * node elects from the same facts because each publishes its own (docs/architecture.md, "Node facts travel in
 * gossip").
 */
import type { Snapshot } from '../model';
import type { NodeMeta } from '../gossip/node-meta';
import { hasLinkLayerAddress, type LinkSource } from '../announce/l2/interfaces';
import { formatMAC } from '../announce/l2/mac-address';
import { MLB_RECORDS_VERSION } from './records-protocol';

export interface NodeFactsInput {
  readonly nodeName: string;
  readonly snapshot?: Snapshot;
  /** --node-labels: win over the Node document's labels. */
  readonly labels: Readonly<Record<string, string>>;
  readonly draining: boolean;
  readonly warmingUp: boolean;
  /** The MACs this node may answer from (named in split-brain reports and by `mlb arping`). */
  readonly macs?: readonly string[];
  /** This node's release, advertised with MLB_RECORDS_VERSION so a mixed cluster can negotiate record formats. */
  readonly release: string;
}

/**
 * At most this many MACs are published: meta has 512 bytes for labels too, and a host with more interfaces
 * up than this is rare; the ones left out only lose their name in conflict reports.
 */
const MAX_PUBLISHED_MACS = 16;

export function nodeFacts(input: NodeFactsInput): NodeMeta {
  const document = input.snapshot?.nodes.find((n) => n.meta.name === input.nodeName);
  return {
    labels: { ...(document?.meta.labels ?? {}), ...input.labels },
    conditions: (document?.conditions ?? []).map((c) => ({ type: c.type, status: c.status })),
    draining: input.draining,
    warmingUp: input.warmingUp,
    ...(input.macs ? { macs: [...new Set(input.macs)].sort().slice(0, MAX_PUBLISHED_MACS) } : {}),
    recordsVersion: MLB_RECORDS_VERSION,
    release: input.release,
  };
}

/** The MACs of the links this node could answer on (up, with a link-layer address, not the VIP interface). */
export function linkMacs(links: LinkSource | undefined, vipInterface: string | undefined): string[] | undefined {
  if (!links) return undefined;
  return links
    .links()
    .filter((l) => l.up && l.name !== vipInterface && hasLinkLayerAddress(l))
    .map((l) => formatMAC(l.mac!));
}

/** "k=v,k2=v2" (an empty value is allowed: "node.kubernetes.io/exclude-from-external-load-balancers="). */
export function parseNodeLabels(text: string): Record<string, string> {
  const entries: [string, string][] = [];
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`--node-labels: "${part}" is not key=value`);
    entries.push([part.slice(0, eq), part.slice(eq + 1)]);
  }
  return Object.fromEntries(entries);
}
