import type { IP } from '../ip';
import type { Labels, Service } from '../model';
import { ServiceAnnotation, serviceAnnotation } from '../model';
import { type AllocationError, allocationErrors } from './allocation-errors';
import { type Port, samePort } from './service-port';

/**
 * IP sharing, as MetalLB's allocator (internal/allocator/allocator.go, v0.14) decides it: services may share an address when they carry the same
 * non-empty allow-shared-ip key, the same backend key, and no (protocol, port) in common.
 */

/** The pair MetalLB compares (allocator.go, type key): sharing annotation and backend key. */
export interface SharingKey {
  readonly sharing: string;
  readonly backend: string;
}

/** k8salloc.Ports: every spec.ports entry as (protocol, port). */
export function servicePorts(service: Service): Port[] {
  return service.ports.map((p) => ({ protocol: p.protocol, port: p.port }));
}

/**
 * k8salloc.BackendKey: with externalTrafficPolicy=Local the selector (labels.Set.String(): "k=v" pairs
 * sorted, joined by ","), because only services with the same pods can share an address whose traffic
 * stays on the announcing node; with Cluster any backends may share.
 */
export function backendKey(service: Service): string {
  if (service.externalTrafficPolicy !== 'Local') return '';
  return labelsString(service.selector);
}

function labelsString(labels: Labels): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',');
}

/** controller/service.go SharingKey(): metallb.io/allow-shared-ip, else the legacy prefix; empty = no sharing. */
export function sharingKeyOf(service: Service): SharingKey {
  return {
    sharing: serviceAnnotation(service, ServiceAnnotation.allowSharedIP) ?? '',
    backend: backendKey(service),
  };
}

/** Who uses one address: the key stored for it and each user's ports. */
export interface AddressUse {
  readonly ip: IP;
  readonly pool: string;
  /** The key of the most recent assignment (MetalLB sharingKeyForIP); every user holds a compatible key. */
  readonly key: SharingKey;
  /** Service key -> ports, sorted by service key. */
  readonly users: readonly AddressUser[];
}

export interface AddressUser {
  readonly service: string;
  readonly ports: readonly Port[];
}

/**
 * MetalLB sharingOK(): why existing and candidate keys cannot share, or undefined when they can. The texts are
 * MetalLB's; they surface only as "can't change sharing key" in events, but explain why.
 */
function sharingProblem(existing: SharingKey, candidate: SharingKey): string | undefined {
  if (existing.sharing === '') return 'existing service does not allow sharing';
  if (candidate.sharing === '') return 'new service does not allow sharing';
  if (existing.sharing !== candidate.sharing) {
    return `sharing key "${candidate.sharing}" does not match existing sharing key "${existing.sharing}"`;
  }
  if (existing.backend !== candidate.backend) {
    return `backend key "${candidate.backend}" does not match existing sharing key "${existing.backend}"`;
  }
  return undefined;
}

/**
 * MetalLB checkSharing() (internal/allocator/allocator.go): may `service` use this address with `ports` and
 * `key`? An unused address always may. A key mismatch is forgiven when the service is the address's only
 * user (it is changing its own key in place). Ports are compared with the other users only, so a service
 * can change its own ports while keeping its address.
 */
export function checkSharing(
  use: AddressUse | undefined,
  service: string,
  ports: readonly Port[],
  key: SharingKey,
): AllocationError | undefined {
  if (use === undefined || use.users.length === 0) return undefined;
  if (sharingProblem(use.key, key) !== undefined) {
    const others = use.users.filter((u) => u.service !== service).map((u) => u.service);
    if (others.length > 0) return allocationErrors.sharingKeyConflict(service, others);
  }
  for (const port of ports) {
    for (const user of use.users) {
      if (user.service !== service && user.ports.some((p) => samePort(p, port))) {
        return allocationErrors.portInUse(port, use.ip);
      }
    }
  }
  return undefined;
}
