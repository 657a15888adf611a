/**
 * Services of a configuration file that cannot get an address, as configuration errors. In a cluster MetalLB
 * reports these as AllocationFailed events on the Service and the operator sees them later; on a plain host
 * the file is the whole truth, so each is an error of the file: `mlb validate` exits 1 with it, and the
 * daemon logs it at load (while still running every other service). Each names MetalLB's reason, the field to
 * change (file:line:column) and a hint (allocation-hints.ts). Pure.
 */
import {
  type Diagnostic,
  DiagnosticCode,
  type Service,
  type Snapshot,
  type SourcePosition,
  ANNOTATION_PREFIX,
  LEGACY_ANNOTATION_PREFIX,
  ServiceAnnotation,
  type ServiceAnnotationName,
  serviceKey,
  sortDiagnostics,
} from '../model';
import { type AllocationErrorCode, AllocationErrorCode as Code } from './allocation-errors';
import { type AllocateServicesOutput, allocateServices } from './allocate-services';
import { allocationHint } from './allocation-hints';
import type { FailedResult } from './results';

/** The allocation the file alone makes: what every node agrees on before any table, and what validate shows. */
export function allocateFile(snapshot: Snapshot): AllocateServicesOutput {
  return allocateServices({ pools: snapshot.pools, services: snapshot.services });
}

/** One error per service the allocation leaves without an address, in file order. */
export function allocationProblems(snapshot: Snapshot, allocation: AllocateServicesOutput = allocateFile(snapshot)): Diagnostic[] {
  const problems: Diagnostic[] = [];
  for (const service of snapshot.services) {
    const result = allocation.results.get(serviceKey(service));
    if (result?.status !== 'failed') continue;
    problems.push(problem(service, result, snapshot, allocation));
  }
  return sortDiagnostics(problems);
}

function problem(service: Service, result: FailedResult, snapshot: Snapshot, allocation: AllocateServicesOutput): Diagnostic {
  const hint = allocationHint(service, result, { pools: snapshot.pools, services: snapshot.services, allocation });
  const position = positionFor(service, result.code);
  return {
    severity: 'error',
    code: DiagnosticCode.serviceGetsNoIP,
    message: `service ${result.service} gets no IP: ${result.error}${hint === undefined ? '' : ` (${hint})`}`,
    ...(position ? { position } : {}),
    object: `Service/${result.service}`,
  };
}

const annotation = (name: ServiceAnnotationName): string[] =>
  [ANNOTATION_PREFIX, LEGACY_ANNOTATION_PREFIX].map((prefix) => `metadata.annotations.${prefix}${name}`);
const REQUEST = [...annotation(ServiceAnnotation.loadBalancerIPs), 'spec.loadBalancerIP'];
const POOL = annotation(ServiceAnnotation.addressPool);
const SHARING = annotation(ServiceAnnotation.allowSharedIP);
const FAMILY = ['spec.ipFamilies', 'spec.ipFamilyPolicy'];

/** Where to point for each reason: the field to change first, then the next best, then the Service itself. */
const FIELDS_BY_CODE: Readonly<Record<AllocationErrorCode, readonly string[]>> = {
  [Code.unknownPool]: POOL,
  [Code.requestedPoolMismatch]: [...POOL, ...REQUEST],
  [Code.poolNotCompatible]: [...POOL, ...REQUEST],
  [Code.noAvailableIPsInPool]: POOL,
  [Code.noAvailableIPsForFamily]: [...FAMILY, ...POOL],
  [Code.noAvailableIPs]: [...FAMILY, 'spec.type'],
  [Code.notAllowedInConfig]: REQUEST,
  [Code.tooManyAddresses]: REQUEST,
  [Code.sameFamily]: REQUEST,
  [Code.invalidRequestedIPs]: REQUEST,
  [Code.familyMismatch]: [...FAMILY, ...REQUEST],
  [Code.sharingKeyConflict]: [...SHARING, ...REQUEST],
  [Code.portInUse]: ['spec.ports', ...SHARING],
  [Code.noPools]: ['spec.type'],
};

function positionFor(service: Service, code: AllocationErrorCode): SourcePosition | undefined {
  const positions = service.fieldPositions ?? {};
  for (const field of FIELDS_BY_CODE[code]) {
    const found = positions[field];
    if (found) return found;
  }
  return service.meta.position;
}
