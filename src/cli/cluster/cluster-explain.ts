/**
 * `mlb explain --kubeconfig`: the election the speakers make, from the cluster's own objects, as `--config` does
 * from a file: the IPs the controller wrote in each Service's status, who serves it from its EndpointSlices
 * (MetalLB's EndpointCanServe), the Nodes' labels and conditions, and as live members the nodes with a Running
 * speaker Pod (MetalLB's memberlist members; every Node when no speaker Pod is found). Each explanation then says
 * what the speakers themselves wrote (ServiceL2Status/ServiceBGPStatus), so "which node answers" is one command,
 * and a service without an IP is explained by the allocator's reason (cluster-facts.ts). Pure except the shell.
 */
import { type Explanation, type ServiceElectionInput, electAll } from '../../election';
import { serviceKey } from '../../model';
import { prepareCluster } from '../../sources/k8s/translate-cluster';
import type { Announcer, ClusterFacts } from './cluster-facts';
import { clusterFacts } from './cluster-facts';
import { runningSpeakerNodes } from './cluster-status';
import type { ClusterChoice, ClusterRead } from './read-cluster';
import { ExitCode } from '../exit-codes';
import { type OutputFormat, isStructured } from '../output-format';

interface ClusterExplanation {
  readonly explanations: readonly Explanation[];
  /** Services without an IP: "namespace/name" and why. */
  readonly pending: readonly { readonly service: string; readonly reason: string }[];
  /** Said once, above everything (where the live members came from). */
  readonly notes: readonly string[];
}

function explainCluster(read: ClusterRead, options: { ignoreExcludeLB?: boolean } = {}): ClusterExplanation {
  const facts = clusterFacts(read);
  const pending = facts.services.filter((s) => s.pending !== null).map((s) => ({ service: s.service, reason: s.pending as string }));
  const snapshot = facts.snapshot;
  if (!snapshot) {
    return {
      explanations: [],
      pending,
      notes: ["the cluster's metallb.io objects do not validate: run mlb validate --kubeconfig to see why"],
    };
  }
  const { endpoints } = prepareCluster(read.objects, read.lbClass);
  const speakers = runningSpeakerNodes(read);
  const live = speakers.length > 0 ? speakers : snapshot.nodes.map((n) => n.meta.name);
  const notes =
    speakers.length > 0
      ? []
      : [`no Running speaker Pod (labels app=metallb,component=speaker) in ${read.namespace}: every Node is taken as running a speaker`];
  const inputs: ServiceElectionInput[] = snapshot.services
    .filter((s) => s.ingressIPs.length > 0)
    .map((service) => ({ service, ips: service.ingressIPs, endpoints: endpoints.get(serviceKey(service)) ?? { servingNodes: new Set() } }));
  const election = electAll(
    {
      nodes: snapshot.nodes,
      pools: snapshot.pools,
      l2Advertisements: snapshot.l2Advertisements,
      bgpAdvertisements: snapshot.bgpAdvertisements,
      bgpPeers: snapshot.bgpPeers,
      options: { ignoreExcludeLB: options.ignoreExcludeLB === true },
    },
    inputs,
    new Set(live),
  );
  const explanations = election.explain().map((e) => withSpeakersWord(e, facts));
  return { explanations, pending, notes };
}

/** Adds what the speakers wrote, and says so plainly when it differs from the election computed here. */
function withSpeakersWord(e: Explanation, facts: ClusterFacts): Explanation {
  const written = (facts.services.find((s) => s.service === e.service)?.announcedBy ?? []).filter((a) => a.protocol === e.protocol);
  const note = speakersNote(e, written);
  return { ...e, notes: [...(e.notes ?? []), note] };
}

function speakersNote(e: Explanation, written: readonly Announcer[]): string {
  const kind = e.protocol === 'layer2' ? 'ServiceL2Status' : 'ServiceBGPStatus';
  if (written.length === 0) {
    return e.announcing.length === 0
      ? `no ${kind} names it: no speaker announces it`
      : `no ${kind} names it yet: the speakers have not written who announces it (MetalLB before v0.14.4/v0.15.0 never does)`;
  }
  const nodes = [...new Set(written.map((a) => a.node))].sort();
  const said = `the speakers say: ${written.map((a) => `${a.node} announces it (${a.object})`).join(', ')}`;
  const same = nodes.length === e.announcing.length && nodes.every((n, i) => n === e.announcing[i]);
  if (same) return said;
  const computed = e.announcing.length > 0 ? e.announcing.join(', ') : 'nobody';
  return `${said}; the election from the objects now picks ${computed}: a failover in progress, or a speaker that has not caught up`;
}

/** The shell: reads the cluster and explains it. */
async function readAndExplainCluster(choice: ClusterChoice, options: { ignoreExcludeLB?: boolean }): Promise<ClusterExplanation> {
  const { readCluster } = await import('./read-cluster');
  return explainCluster(await readCluster(choice), options);
}

/** How `mlb explain` selects and prints explanations, handed in so the cluster path prints exactly as the others. */
export interface ExplainPrinter {
  select(all: readonly Explanation[], targets: readonly string[], where: string): Iterable<Explanation>;
  print(selected: Iterable<Explanation>, format: OutputFormat): Promise<void>;
}

/**
 * Prints the cluster's explanations for `targets` (none: all), then each pending service asked about with its
 * reason; exit 1 when a service asked about has no IP or nobody announces it.
 */
export async function explainFromCluster(
  choice: ClusterChoice,
  targets: readonly string[],
  options: { ignoreExcludeLB?: boolean; format: OutputFormat },
  printer: ExplainPrinter,
): Promise<void> {
  const { explanations, pending, notes } = await readAndExplainCluster(choice, options);
  const isPending = (target: string): boolean => pending.some((p) => p.service === target || p.service === `default/${target}`);
  const pendingAsked =
    targets.length === 0 ? pending : pending.filter((p) => targets.some((t) => p.service === t || p.service === `default/${t}`));
  const otherTargets = targets.filter((t) => !isPending(t));
  const onlyPendingAsked = targets.length > 0 && otherTargets.length === 0;
  for (const note of notes) process.stderr.write(`note: ${note}\n`);
  if (!onlyPendingAsked) await printer.print(printer.select(explanations, otherTargets, 'in the cluster'), options.format);
  const lines = pendingAsked.map((p) => `${p.service}: PENDING, no IP: ${p.reason}\n`);
  if (lines.length === 0) return;
  if (isStructured(options.format)) process.stderr.write(lines.map((l) => `mlb: ${l}`).join(''));
  else process.stdout.write(`${onlyPendingAsked ? '' : '\n'}${lines.join('')}`);
  process.exitCode = ExitCode.failure;
}
