// src/model/parse: YAML text to a validated Snapshot, with positions. Pure.
export { parseConfig, parseConfigReusing, type ParseOptions, type ParseResult, type ReusableParse } from './parse-config';
export type { DocumentCache } from './document-cache';
export type { SourcePart } from './yaml-documents';
export { DiagnosticCode, type DiagnosticCodeName } from './diagnostic-codes';
export { parseDuration, type DurationResult } from './duration';
export { parseCommunity, type CommunityParse } from './community';
export { parsePoolAddress, type AddressEntryResult } from './pool';
export { BFD_LIMITS } from './bfd-profile';
export { closestMatch, didYouMean, editDistance } from './did-you-mean';
export { sortDiagnostics } from './diagnostic-sink';
export { nodeNameWarning } from './node-name-check';
export { defaultFamilies, requestedFamilies } from './service-families';
export {
  parseHealthCheck,
  HEALTH_CHECK_DEFAULTS,
  type HealthCheckParse,
  type HealthCheckProblem,
  type HealthCheckSpec,
  type HealthCheckTiming,
} from './health-check';
export { snapshotFromClone } from './snapshot-clone';
export { deepFreeze } from './build-snapshot';
export { parseApiObjects } from './parse-objects';
export type { PeerSecret, PeerSecrets } from './peer-secrets';
