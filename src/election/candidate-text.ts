/**
 * The sentence a person reads beside each candidate's reason in `mlb explain` and the TUI. Pure: built from the
 * explanation alone (the reason code stays the stable part; this is only its reading). Every sentence names the
 * node it is about, never "this node", because the explanation is one daemon's view of all of them: explaining
 * node-2 from node-1 must say node-2's health check fails, not "this node's".
 */
// The file itself, not the model's index: `mlb status` prints these sentences without loading the parser.
import { EXCLUDE_LB_LABEL } from '../model/well-known';
import type { CandidateExplanation, Explanation } from './explain';
import type { ReasonName } from './reasons';

/** One line per reason code, for callers without an explanation (and the fallback of candidateText). */
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
  healthCheckFailing: 'its health check for the service is not passing',
  nodeDraining: 'draining (mlb drain or shutting down): defers to every other eligible node',
  nodeWarmingUp: 'warming up after recent restarts (flap damping): defers to steadier nodes',
  serviceNotConfigured: 'its configuration file does not define the service: the nodes that define it hold it',
};

function reasonText(reason: ReasonName): string {
  return REASON_TEXT[reason] ?? reason;
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

/** English ordinal suffixes by last digit; 11th, 12th and 13th (and 111th ...) take "th" whatever their last digit. */
const SUFFIXES: Readonly<Record<number, string>> = { 1: 'st', 2: 'nd', 3: 'rd' };
const TEENS_FROM = 11;
const TEENS_TO = 13;

/** "second" ... "tenth", then "11th", "21st", "22nd": hash positions past ten are rare enough to read as numbers. */
function ordinal(n: number): string {
  const word = ORDINALS[n - 1];
  if (word !== undefined) return word;
  const teen = n % 100 >= TEENS_FROM && n % 100 <= TEENS_TO;
  return `${n}${teen ? 'th' : (SUFFIXES[n % 10] ?? 'th')}`;
}

/** The sentence for one candidate of an explanation. */
export function candidateText(e: Explanation, c: CandidateExplanation): string {
  switch (c.reason) {
    case 'owner':
      return ownerText(e, c);
    case 'notOwner':
      if (!c.eligible) return `no advertisement of the pool selects ${c.node}`;
      return `eligible${c.hashPosition ? ` (${ordinal(c.hashPosition)} in hash order)` : ''}, but ${e.winner ?? 'another node'} ranks ahead of it`;
    case 'healthCheckFailing':
      return healthText(e, c);
    case 'nodeDraining':
      return `${c.node} is draining (mlb drain or shutting down): defers to every other eligible node`;
    case 'nodeWarmingUp':
      return `${c.node} is warming up after recent restarts (flap damping)${c.warmUpLeftMs === undefined ? '' : `, ${warmUpLeftText(c.warmUpLeftMs)}`}: defers to steadier nodes`;
    case 'serviceNotConfigured':
      return `${c.node}'s configuration file does not define the service: the nodes that define it hold it`;
    case 'notLiveMember':
      return `${c.node} is not a live member of the cluster${e.viewer ? ` (as ${e.viewer}'s gossip sees it)` : ''}`;
    case 'noLocalEndpoints':
      return `externalTrafficPolicy Local and no serving endpoint on ${c.node}`;
    case 'noMatchingAdvertisement':
      return `no advertisement covering this pool and service selects ${c.node}`;
    default:
      return reasonText(c.reason);
  }
}

/** "12s left" (whole seconds, rounded up: "0s left" would read as over). */
export function warmUpLeftText(ms: number): string {
  return `${Math.max(0, Math.ceil(ms / 1000))}s left`;
}

/**
 * The owner's rank among eligible nodes is always 1; its place in hash order says whether nodes before it were
 * skipped, and the sentence says who and why ("second in hash order; node-1 (first) is not eligible: ...").
 */
function ownerText(e: Explanation, c: CandidateExplanation): string {
  const position = c.hashPosition;
  if (position === undefined || position === 1) return 'first in hash order: answers for the IP';
  const skipped = e.candidates
    .filter((other) => other.hashPosition !== undefined && other.hashPosition < position)
    .sort((a, b) => (a.hashPosition as number) - (b.hashPosition as number))
    .map((other) => `${other.node} (${ordinal(other.hashPosition as number)}) is not eligible: ${skippedBecause(e, other)}`);
  return `${ordinal(position)} in hash order; ${skipped.join('; ')}; answers for the IP`;
}

/** Why a node ahead of the owner was skipped, short, about "it". */
function skippedBecause(e: Explanation, c: CandidateExplanation): string {
  switch (c.reason) {
    case 'healthCheckFailing':
      return `its health check ${e.service} fails${c.healthCheck ? ` (${c.healthCheck.result})` : ''}`;
    case 'nodeDraining':
      return 'it is draining';
    case 'nodeWarmingUp':
      return `it is warming up${c.warmUpLeftMs === undefined ? '' : ` (${warmUpLeftText(c.warmUpLeftMs)})`}`;
    case 'notLiveMember':
      return 'it is not a live member';
    case 'serviceNotConfigured':
      return 'its configuration file does not define the service';
    default:
      return `${c.reason} (${reasonText(c.reason)})`;
  }
}

function healthText(e: Explanation, c: CandidateExplanation): string {
  const check = c.healthCheck;
  if (!check) return `health check ${e.service} not passing on ${c.node} (${c.node} has not said why yet)`;
  return `health check ${e.service} failing on ${c.node} since ${isoSeconds(check.since)}: ${check.result}`;
}

/** "2026-12-01T17:20:01Z": unambiguous across days and time zones, and the logs' clock. */
function isoSeconds(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
