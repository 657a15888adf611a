/**
 * The stable codes of configuration diagnostics. Scripts, tests and `mlb validate --json` match on these, so
 * the table is append-only: never rename or reuse a code. Messages may improve; codes do not change.
 */
export const DiagnosticCode = {
  // --- reading the file
  /** The file could not be read (missing, permissions). */
  fileUnreadable: 'fileUnreadable',
  /** YAML the parser rejects (bad indentation, unterminated quote, duplicate key, ...). */
  yamlSyntax: 'yamlSyntax',
  /** A document that is not a mapping (a list or a bare value at the top level). */
  notAnObject: 'notAnObject',
  unknownKind: 'unknownKind',
  unknownApiVersion: 'unknownApiVersion',
  unknownField: 'unknownField',
  missingField: 'missingField',
  wrongType: 'wrongType',
  outOfRange: 'outOfRange',
  /** A value outside an enumeration (protocol, ipFamilyPolicy, dynamicASN, condition status, ...). */
  invalidValue: 'invalidValue',
  invalidName: 'invalidName',
  invalidLabel: 'invalidLabel',
  invalidSelector: 'invalidSelector',
  invalidDuration: 'invalidDuration',
  invalidIP: 'invalidIP',
  // --- objects
  /** Two objects of one kind with one name (per namespace; pools, peers and BFD profiles cluster-wide). */
  duplicateName: 'duplicateName',
  /** The same entry twice in a list MetalLB requires unique (ipAddressPools, peers, selectors, ports, ...). */
  duplicateEntry: 'duplicateEntry',
  /** An IPAddressPool address that is neither a CIDR nor a range. */
  invalidCIDR: 'invalidCIDR',
  /** A range whose start IP is after its end IP. */
  reversedRange: 'reversedRange',
  /** A range from an IPv4 to an IPv6 address (or the reverse). */
  mixedFamilyRange: 'mixedFamilyRange',
  overlappingCIDR: 'overlappingCIDR',
  /** "pool has no prefixes defined". */
  emptyPool: 'emptyPool',
  invalidAggregationLength: 'invalidAggregationLength',
  /** serviceSelectors together with a non-default aggregation length (MetalLB forbids the pair). */
  aggregationWithServiceSelectors: 'aggregationWithServiceSelectors',
  invalidCommunity: 'invalidCommunity',
  unknownCommunity: 'unknownCommunity',
  duplicateCommunity: 'duplicateCommunity',
  missingLocalASN: 'missingLocalASN',
  missingPeerASN: 'missingPeerASN',
  /** Both peerASN and dynamicASN. */
  peerASNConflict: 'peerASNConflict',
  missingPeerAddress: 'missingPeerAddress',
  /** Both peerAddress and interface. */
  peerAddressConflict: 'peerAddressConflict',
  passwordConflict: 'passwordConflict',
  ebgpMultiHopForIBGP: 'ebgpMultiHopForIBGP',
  invalidHoldTime: 'invalidHoldTime',
  invalidKeepaliveTime: 'invalidKeepaliveTime',
  invalidConnectTime: 'invalidConnectTime',
  bfdProfileNotFound: 'bfdProfileNotFound',
  duplicatePeer: 'duplicatePeer',
  /**
   * Two BGPAdvertisements without serviceSelectors that would give one peer two different LOCAL_PREFs for the
   * same prefix from a common node (MetalLB's "invalid local preference").
   */
  conflictingLocalPref: 'conflictingLocalPref',
  /** A BGPPeer whose BFDProfile enables echo mode, which mlb's BFD does not implement. */
  bfdEchoModeUnsupported: 'bfdEchoModeUnsupported',
  /** A BGPPeer field MetalLB's native speaker refuses and mlb's speaker lacks too (vrf, localASN, interface). */
  unsupportedPeerField: 'unsupportedPeerField',
  /**
   * A BGPPeer passwordSecret naming no Secret: in a file (which cannot hold one) always, in Kubernetes mode when
   * the MetalLB namespace has no Secret of that name.
   */
  secretNotFound: 'secretNotFound',
  /** A BGPPeer passwordSecret naming a Secret that is not of type kubernetes.io/basic-auth. */
  secretTypeMismatch: 'secretTypeMismatch',
  /** A BGPPeer passwordSecret naming a Secret without the key `password`. */
  secretPasswordMissing: 'secretPasswordMissing',
  /** A mlb.io/subnets annotation entry that is not a CIDR. */
  invalidSubnet: 'invalidSubnet',
  /** A Service's mlb.io/health-check annotations that mlb cannot run (scheme, port, duration, rise/fall...). */
  invalidHealthCheck: 'invalidHealthCheck',
  // --- warnings (the configuration still runs)
  /** An advertisement names a pool that does not exist (MetalLB silently ignores it). */
  poolNotFound: 'poolNotFound',
  /** An ipAddressPoolSelector that selects no pool. */
  poolSelectorMatchesNothing: 'poolSelectorMatchesNothing',
  /** A BGPAdvertisement names a peer that does not exist. */
  peerNotFound: 'peerNotFound',
  /** Every Node an advertisement selects carries the exclude-from-external-load-balancers label. */
  excludedNodesOnly: 'excludedNodesOnly',
  /** An L2-advertised pool address outside every known node subnet: nobody on the segment will ARP for it. */
  addressOutsideSubnets: 'addressOutsideSubnets',
  /** A pool no L2Advertisement or BGPAdvertisement covers: its addresses are assigned but never announced. */
  poolNotAdvertised: 'poolNotAdvertised',
  /**
   * Two BGPAdvertisements with serviceSelectors (MetalLB loads them) that give a Service of the file different
   * LOCAL_PREFs: the speakers of their common nodes will not announce it.
   */
  serviceLocalPrefConflict: 'serviceLocalPrefConflict',
  // --- reading the file (appended later; sources/file decides these before and after parsing)
  /** The path is not a regular file (a FIFO, a device, a directory): reading it could block or never end. */
  fileNotRegular: 'fileNotRegular',
  /** The file is larger than the configured limit (--max-config-bytes). */
  fileTooLarge: 'fileTooLarge',
  /** The file holds no objects: empty, or only comments, whitespace and document markers. */
  fileEmpty: 'fileEmpty',
  /** The file looks cut off (no final newline): most likely still being written. */
  fileIncomplete: 'fileIncomplete',
  /** The file is not UTF-8 text (invalid byte sequences or NUL bytes): not YAML, or not fully written. */
  fileNotText: 'fileNotText',
  /** The file kept changing while mlb waited for it to settle or while it was read. */
  fileChanging: 'fileChanging',
  /** The parser could not finish (ran out of its memory or time, or its worker thread failed). */
  parseFailed: 'parseFailed',
  // --- appended later
  /**
   * A "---" in the middle of an object: the document after it has no apiVersion or kind (or is a bare list) and
   * holds the fields the document before it lacks. Said once, at the "---", instead of an error for each half.
   */
  splitDocument: 'splitDocument',
  // plain hosts
  /** A note: a Service without spec.ipFamilies got them from mlb, in the API server's place. */
  ipFamiliesDefaulted: 'ipFamiliesDefaulted',
  /** A warning: an advertisement's nodeSelectors entry matches none of the file's Nodes. */
  nodeSelectorMatchesNoNode: 'nodeSelectorMatchesNoNode',
  /** A warning: --node-name is not among the Node documents of a file that lists Nodes. */
  nodeNameNotInConfig: 'nodeNameNotInConfig',
  /**
   * An error on plain hosts: a LoadBalancer Service that cannot get an address (the allocator's reason and code
   * in the message; `mlb validate --json` lists the allocator's code per service).
   */
  serviceGetsNoIP: 'serviceGetsNoIP',
  // Kubernetes mode
  /** The Kubernetes API cannot be reached: the last configuration read from it keeps running (stale). */
  apiUnreachable: 'apiUnreachable',
  /**
   * A note: an item of a `kind: List` (kubectl get -o yaml/json) of a kind mlb does not read as configuration
   * (EndpointSlice, Pod, ServiceL2Status, ...): skipped, since cluster output holds such objects by design.
   */
  skippedKind: 'skippedKind',
} as const;

export type DiagnosticCodeName = (typeof DiagnosticCode)[keyof typeof DiagnosticCode];
