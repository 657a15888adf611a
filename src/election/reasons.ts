/**
 * Why a node announces a service IP, or why it does not. Every election decision carries one of these, and the
 * string travels unchanged to logs, metrics, `mlb explain --json` and the TUI, so the table is append-only.
 *
 * MetalLB's strings are kept exactly (speaker/layer2_controller.go, speaker/bgp_controller.go, speaker/main.go
 * in v0.16.1); mlb's own ones follow the same camelCase style and are marked below.
 */
export const Reason = {
  // ---- announcing
  /** mlb: the L2 winner (MetalLB's ShouldAnnounce returns "" here). */
  owner: 'owner',
  /** mlb: a BGP node that announces (ECMP: every eligible node; MetalLB returns ""). */
  announcing: 'announcing',

  // ---- MetalLB's withdraw reasons (ShouldAnnounce)
  /** L2: eligible but another node ranks first; BGP: no advertisement of the pool selects this node. */
  notOwner: 'notOwner',
  /** No advertisement that matches the service (pool, serviceSelectors) selects this node. */
  noMatchingAdvertisement: 'noMatchingAdvertisement',
  /** BGP: two advertisements for the service disagree on LOCAL_PREF for the same update. */
  conflictingAdvertisements: 'conflictingAdvertisements',
  /** The node's NetworkUnavailable condition is True. */
  nodeNetworkUnavailable: 'nodeNetworkUnavailable',
  /** The node carries node.kubernetes.io/exclude-from-external-load-balancers (any value). */
  nodeLabeledExcludeBalancers: 'nodeLabeledExcludeBalancers',
  /** externalTrafficPolicy: Local and no serving endpoint on this node. */
  noLocalEndpoints: 'noLocalEndpoints',
  /** No serving endpoint anywhere (L2: MetalLB says notOwner; mlb says why). */
  noEndpoints: 'noEndpoints',

  // ---- MetalLB's withdraw reasons (speaker/main.go SetBalancer)
  /** The service's IPs lie in no pool (or not all in one pool). */
  ipNotAllowed: 'ipNotAllowed',
  /** The service has no IP yet (status.loadBalancer.ingress is empty). */
  noIPAllocated: 'noIPAllocated',

  // ---- mlb only
  /** The node is not a live memberlist member (its speaker is down or unreachable). */
  notLiveMember: 'notLiveMember',
  /** A live member that no Node object describes: MetalLB's node selection only knows Node objects. */
  unknownNode: 'unknownNode',
  /** mlb (file mode): the service has a health check and this node's own check is not passing. */
  healthCheckFailing: 'healthCheckFailing',
  /** mlb: the node is draining (`mlb drain`, or stopping): others take its IPs; it keeps them only if nobody can. */
  nodeDraining: 'nodeDraining',
  /** mlb: flap damping; the node restarted recently and defers to steadier nodes until its warm-up ends. */
  nodeWarmingUp: 'nodeWarmingUp',
  /**
   * mlb (file mode): this node's configuration file does not define the service and it retains no earlier
   * definition, so it could not announce it; the nodes that define it hold it (daemon/config-facts).
   */
  serviceNotConfigured: 'serviceNotConfigured',
} as const;

export type ReasonName = (typeof Reason)[keyof typeof Reason];

/** What MetalLB's speaker would log as the withdraw reason; "" when it would announce. */
export type MetalLBReason =
  | ''
  | typeof Reason.notOwner
  | typeof Reason.noMatchingAdvertisement
  | typeof Reason.conflictingAdvertisements
  | typeof Reason.nodeNetworkUnavailable
  | typeof Reason.nodeLabeledExcludeBalancers
  | typeof Reason.noLocalEndpoints
  | typeof Reason.noEndpoints
  | typeof Reason.ipNotAllowed
  | typeof Reason.noIPAllocated;

/**
 * MetalLB's L2 ShouldAnnounce says only notOwner or noMatchingAdvertisement (speaker/layer2_controller.go): every
 * filter inside its candidate list (liveness, NetworkUnavailable, the exclusion label, ETP Local) and "no
 * endpoints" collapse into notOwner. mlb keeps the precise reason and maps it back for MetalLB-shaped logs.
 */
export function metallbL2Reason(reason: ReasonName): MetalLBReason {
  switch (reason) {
    case Reason.owner:
      return '';
    // A node without a Node object is in no advertisement's node set (internal/config/config.go selectedNodes).
    case Reason.noMatchingAdvertisement:
    case Reason.unknownNode:
      return Reason.noMatchingAdvertisement;
    case Reason.ipNotAllowed:
    case Reason.noIPAllocated:
      return reason;
    default:
      return Reason.notOwner;
  }
}

/**
 * MetalLB's BGP ShouldAnnounce returns its reasons directly (speaker/bgp_controller.go). A node without a Node
 * object fails poolMatchesNodeBGP (notOwner); a dead member has no speaker to say anything, so notOwner too.
 */
export function metallbBGPReason(reason: ReasonName): MetalLBReason {
  switch (reason) {
    case Reason.announcing:
      return '';
    case Reason.unknownNode:
    case Reason.notLiveMember:
    case Reason.owner:
    case Reason.nodeDraining:
    case Reason.nodeWarmingUp:
    case Reason.serviceNotConfigured:
      return Reason.notOwner;
    // The nearest MetalLB words: the node has no endpoint of its own that may take the traffic.
    case Reason.healthCheckFailing:
      return Reason.noLocalEndpoints;
    default:
      return reason;
  }
}

/** Compact codes for the per-node reason arrays of the index (0 = eligible). Internal, never printed. */
export const ReasonCode = {
  eligible: 0,
  unknownNode: 1,
  notOwner: 2,
  noMatchingAdvertisement: 3,
  conflictingAdvertisements: 4,
  nodeNetworkUnavailable: 5,
  nodeLabeledExcludeBalancers: 6,
  noLocalEndpoints: 7,
  noEndpoints: 8,
  notLiveMember: 9,
  ipNotAllowed: 10,
  healthCheckFailing: 11,
  nodeDraining: 12,
  nodeWarmingUp: 13,
  serviceNotConfigured: 14,
} as const;
export type ReasonCodeValue = (typeof ReasonCode)[keyof typeof ReasonCode];

const CODE_NAMES: readonly ReasonName[] = [
  Reason.notOwner, // eligible: the caller decides owner / notOwner / announcing
  Reason.unknownNode,
  Reason.notOwner,
  Reason.noMatchingAdvertisement,
  Reason.conflictingAdvertisements,
  Reason.nodeNetworkUnavailable,
  Reason.nodeLabeledExcludeBalancers,
  Reason.noLocalEndpoints,
  Reason.noEndpoints,
  Reason.notLiveMember,
  Reason.ipNotAllowed,
  Reason.healthCheckFailing,
  Reason.nodeDraining,
  Reason.nodeWarmingUp,
  Reason.serviceNotConfigured,
];

/** The reason of an ineligible code (eligible maps to notOwner: the ranking decides). */
export function reasonOfCode(code: number): ReasonName {
  return CODE_NAMES[code] ?? Reason.notOwner;
}

/** One node and why it is where it is in an election (out, deferred...). */
export interface NodeReason {
  readonly node: string;
  readonly reason: ReasonName;
}
