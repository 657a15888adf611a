/**
 * An API Service as the model Service the allocator reads, the same type the file source builds from YAML, so
 * the controller and file mode allocate with one allocator. The family comes from the cluster IPs (as MetalLB
 * reads it), not from spec.ipFamilies; the API server has already defaulted everything else.
 */
import type { IP } from '../ip';
import type { ExternalTrafficPolicy, IPFamilyName, IPFamilyPolicy, Service, ServicePort, ServiceProtocol } from '../model';
import type { ApiService } from './api-objects';

const PROTOCOLS: readonly string[] = ['TCP', 'UDP', 'SCTP'];
/** Kubernetes' default protocol of a port. */
const DEFAULT_PROTOCOL: ServiceProtocol = 'TCP';
const FAMILY_POLICIES: readonly string[] = ['SingleStack', 'PreferDualStack', 'RequireDualStack'];
/** Kubernetes' default when ipFamilyPolicy is unset (MetalLB reads nil as SingleStack). */
const DEFAULT_FAMILY_POLICY: IPFamilyPolicy = 'SingleStack';

/** status.loadBalancer.ingress[].ip as written (entries without an ip, e.g. hostname only, are left out). */
export function ingressTexts(service: ApiService): string[] {
  return (service.status?.loadBalancer?.ingress ?? []).flatMap((entry) => (entry.ip === undefined || entry.ip === '' ? [] : [entry.ip]));
}

export function familyPolicyOf(service: ApiService): IPFamilyPolicy {
  const written = service.spec?.ipFamilyPolicy ?? '';
  return FAMILY_POLICIES.includes(written) ? (written as IPFamilyPolicy) : DEFAULT_FAMILY_POLICY;
}

/**
 * The model Service. `families` are the cluster IPs' families (cluster-family.ts), so the allocator's
 * serviceFamily and primaryFamily read what MetalLB reads; `held` is what the service holds (its status, or
 * what this controller decided last).
 */
export function modelService(api: ApiService, families: readonly IPFamilyName[], held: readonly IP[]): Service {
  const spec = api.spec ?? {};
  const meta = api.metadata;
  return {
    kind: 'Service',
    meta: {
      name: meta.name ?? '',
      namespace: meta.namespace ?? '',
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
    },
    type: spec.type ?? 'ClusterIP',
    ports: (spec.ports ?? []).flatMap(toPort),
    selector: spec.selector ?? {},
    ...(spec.loadBalancerIP ? { loadBalancerIP: spec.loadBalancerIP } : {}),
    ...(spec.loadBalancerClass ? { loadBalancerClass: spec.loadBalancerClass } : {}),
    externalTrafficPolicy: trafficPolicy(spec.externalTrafficPolicy),
    ipFamilyPolicy: familyPolicyOf(api),
    ipFamilies: families,
    ingressIPs: held,
  };
}

function toPort(port: { readonly name?: string; readonly protocol?: string; readonly port?: number }): ServicePort[] {
  if (typeof port.port !== 'number') return [];
  const protocol = PROTOCOLS.includes(port.protocol ?? '') ? (port.protocol as ServiceProtocol) : DEFAULT_PROTOCOL;
  return [{ ...(port.name ? { name: port.name } : {}), protocol, port: port.port }];
}

/** The only value that changes allocation is Local (backend keys); anything else behaves as Cluster. */
function trafficPolicy(written: string | undefined): ExternalTrafficPolicy {
  return written === 'Local' ? 'Local' : 'Cluster';
}
