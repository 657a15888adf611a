import { EXCLUDE_LB_LABEL } from '../model';
import type { ReasonName } from '../election';

/** One line a person reads next to each reason code (the code itself stays the stable part). */
const REASON_TEXT: Record<ReasonName, string> = {
  owner: 'first in hash order: answers for the IP',
  announcing: 'advertises the route (ECMP with every other announcing node)',
  notOwner: 'eligible, but another node ranks first',
  noMatchingAdvertisement: 'no advertisement covering this pool and service selects this node',
  conflictingAdvertisements: 'advertisements for this service disagree (localPref)',
  nodeNetworkUnavailable: 'node condition NetworkUnavailable is True',
  nodeLabeledExcludeBalancers: `labelled ${EXCLUDE_LB_LABEL} (any value counts)`,
  noLocalEndpoints: 'externalTrafficPolicy Local and no serving endpoint on this node',
  noEndpoints: 'the service has no serving endpoint anywhere',
  ipNotAllowed: 'the IP lies in no pool',
  noIPAllocated: 'the service has no IP yet',
  notLiveMember: 'not a live member of the cluster',
  unknownNode: 'no Node object describes this member',
  healthCheckFailing: 'this node\'s own health check for the service is not passing',
  nodeDraining: 'draining (mlb drain or shutting down): defers to every other eligible node',
  nodeWarmingUp: 'warming up after recent restarts (flap damping): defers to steadier nodes',
  serviceNotConfigured: 'this node\'s configuration file does not define the service: the nodes that define it hold it',
};

export function reasonText(reason: ReasonName): string {
  return REASON_TEXT[reason] ?? reason;
}
