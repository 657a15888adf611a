// src/allocator: MetalLB v0.16.1's address allocation (internal/allocator/allocator.go), pure, synchronous and
// deterministic where MetalLB is random. Entry points: allocateServices (a whole configuration) and
// AllocatorState + allocateService (one change at a time).
export { allocateServices, addressesOf, batchPhase, BatchPhase } from './allocate-services';
export type { AllocateServicesInput, AllocateServicesOutput } from './allocate-services';
export { allocateService } from './allocate-service';
export type { AllocateServiceOptions, ServiceStep } from './allocate-service';
export { AllocatorState, MAX_ADDRESSES_PER_SERVICE } from './allocator-state';
export type { Allocation, AllocationSubject, PoolChangeReport, Step } from './allocator-state';
export { AllocationError, AllocationErrorCode, allocationErrors } from './allocation-errors';
export type { MetalLBFamily } from './allocation-errors';
export type {
  AllocationResult,
  AssignedResult,
  AssignReason,
  ClearedAssignment,
  ClearReason,
  EventReason,
  FailedResult,
  ServiceEvent,
  SkippedResult,
  SkipReason,
} from './results';
export { poolCapacity, MAX_INT64 } from './pool-usage';
export type { PoolUsage, PoolCapacity } from './pool-usage';
export { requestedIPs, requestedPool } from './requested-ips';
export type { RequestedIPs, RequestSource } from './requested-ips';
export { backendKey, sharingKeyOf, servicePorts, checkSharing } from './sharing';
export type { SharingKey, AddressUse, AddressUser } from './sharing';
export { formatPort, type Port } from './service-port';
export { serviceFamily, primaryFamily } from './service-family';
export { pinnedPools, defaultPools, poolAdmits, resolvePool } from './pool-order';
export type { ResolvedPool, ServiceIdentity } from './pool-order';
export { isBuggyIP } from './pool-membership';
export { planService, skipReason } from './service-steps';
export type { ServicePlan } from './service-steps';
export { allocateFile, allocationProblems } from './allocation-problems';
export { compareStrings } from './persistent-map';
