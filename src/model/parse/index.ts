// src/model/parse: YAML text to a validated Snapshot, with positions. Pure.
export { parseConfig, type ParseOptions, type ParseResult } from './parse-config';
export type { SourcePart } from './yaml-documents';
export { DiagnosticCode, type DiagnosticCodeName } from './diagnostic-codes';
export { parseDuration, type DurationResult } from './duration';
export { parseCommunity, type CommunityParse } from './community';
export { parsePoolAddress, type AddressEntryResult, POOL_DEFAULTS } from './pool';
export { BGP_PEER_LIMITS } from './bgp-peer';
export { BFD_LIMITS } from './bfd-profile';
export { BGP_ADVERTISEMENT_LIMITS } from './advertisements';
export { closestMatch, didYouMean, editDistance } from './did-you-mean';
export { sortDiagnostics } from './diagnostic-sink';
export { nodeNameWarning } from './node-name-check';
export { CLUSTER_DEFAULT_FAMILY, defaultFamilies, requestedFamilies } from './service-families';
export {
  parseHealthCheck, HEALTH_CHECK_DEFAULTS, HEALTH_CHECK_LIMITS, HEALTH_CHECK_OPTION_ANNOTATIONS,
  type HealthCheckKind, type HealthCheckParse, type HealthCheckProblem, type HealthCheckSpec, type HealthCheckTiming,
} from './health-check';
export { snapshotFromClone } from './snapshot-clone';
export { deepFreeze } from './build-snapshot';
