/**
 * Which addresses and endpoints the election reads, by where the configuration comes from. A file: mlb's own
 * allocator (gossip's allocation table) gives the addresses, and the daemon decides who serves. Kubernetes (the
 * source reports endpoints): the controller has written each Service's status.loadBalancer.ingress, which is
 * the assignment the speakers announce, as MetalLB's speakers do, and the EndpointSlices say who serves. Pure.
 */
import { serviceKey, type Snapshot } from '../model';
import type { ConfigState } from '../sources/config-source';
import type { ClusterInputs, ServiceAddresses } from './cluster-decision';

export interface ElectionAssignments {
  readonly addresses: ReadonlyMap<string, ServiceAddresses>;
  /** Spread into ClusterInputs: the endpoints, when the source has them. */
  readonly endpointsInput: Pick<ClusterInputs, 'endpoints'>;
}

export function electionAssignments(
  state: ConfigState,
  snapshot: Snapshot,
  allocated: ReadonlyMap<string, ServiceAddresses>,
): ElectionAssignments {
  if (!state.endpoints) return { addresses: allocated, endpointsInput: {} };
  return { addresses: ingressAddresses(snapshot), endpointsInput: { endpoints: state.endpoints } };
}

/** Each service's status.loadBalancer.ingress IPs; the pool is the one holding them all (the election finds it). */
function ingressAddresses(snapshot: Snapshot): Map<string, ServiceAddresses> {
  const out = new Map<string, ServiceAddresses>();
  for (const service of snapshot.services) {
    if (service.ingressIPs.length > 0) out.set(serviceKey(service), { ips: service.ingressIPs });
  }
  return out;
}
