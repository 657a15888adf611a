/**
 * What `GET /v1/snapshot` answers: the daemon's whole view at one instant, typed and versioned, so `mlb status`,
 * `mlb status --json` in scripts and the TUI all read the same thing. The shape is a contract: add
 * optional fields only; anything else is a new apiVersion. Times are ISO 8601 text in UTC.
 */

/** Versions the snapshot and every route under /v1; a breaking change is mlb.io/v2 under /v2. */
export const CONTROL_API_VERSION = 'mlb.io/v1';

/** Response header naming the API a socket speaks, so a client tells "not mlb" from "another mlb version". */
export const CONTROL_API_HEADER = 'mlb-api-version';

export interface ControlSnapshot {
  apiVersion: typeof CONTROL_API_VERSION;
  /** When the daemon built this snapshot (ISO time); ages in `mlb status` are measured from it. */
  generatedAt: string;
  /** This daemon. */
  node: {
    /** The name the election hashes (--node-name). */
    name: string;
    /** mlb's version (`mlb version`). */
    version: string;
    /** When the daemon process started (ISO time). */
    startedAt: string;
    /** `mlb drain`: this node asks the others not to elect it. */
    draining: boolean;
    /** Just started: not elected until warmUpUntil, so a restarting node does not grab IPs back at once. */
    warmingUp: boolean;
    /** End of warm-up (ISO time), null when not warming up. */
    warmUpUntil: string | null;
    /** How long the warm-up still runs, ms, as of generatedAt (absent when not warming up). */
    warmUpLeftMs?: number;
    /** Shutting down: has told the cluster it is leaving. */
    leaving: boolean;
    gossip: {
      /** HOST:PORT gossip listens on. */
      bind: string;
      /** The failure-detection profile (fast, lan, wan). */
      profile: string;
      /** Whether gossip is encrypted with MetalLB's memberlist key. */
      encrypted: boolean;
      /** memberlist's awareness score: 0 is healthy, higher means this node is slow to answer probes. */
      healthScore: number;
    };
  };
  /** The configuration file. */
  config: {
    file: string;
    /** stale: the last edit failed validation and the last good configuration still runs. */
    state: 'ok' | 'stale';
    /** When the running configuration was loaded (ISO time); null before the first good load. */
    loadedAt: string | null;
    /** Why the file is stale (file:line:column messages, errors only, in file order); empty when ok. */
    errors: string[];
    /**
     * The stale file's warnings (file:line:column), apart from its errors; empty when ok. Absent from daemons
     * before this field, whose `errors` mixed both.
     */
    warnings?: string[];
  };
  /** Every member gossip knows, this node included. */
  members: {
    name: string;
    /** HOST:PORT of its gossip. */
    addr: string;
    /** memberlist's view of the member. */
    state: 'alive' | 'suspect' | 'dead' | 'left';
    /** Advertises mlb meta (false: a plain MetalLB speaker). */
    mlb: boolean;
    labels: Record<string, string>;
    draining: boolean;
    warmingUp: boolean;
    /** The MACs it announces from, as it publishes them (absent for members that do not say). */
    macs?: string[];
    /**
     * What the member runs, from its gossip meta: its release (`mlb version`'s version, +commit when built from
     * one; null from mlb releases older than this field) and the newest version of mlb's gossip records it
     * understands (0 for those older releases). Absent for plain MetalLB speakers.
     */
    version?: { release: string | null; records: number };
    /**
     * The newest `mlb drain` / `mlb undrain` for this member heard in gossip, made on any host (requestedBy: the
     * host whose control socket was asked), and whether the member answered: pending, applied, or failed with
     * `detail`. The same on every node once gossip has spread it; absent when none was heard.
     */
    drain?: {
      action: 'drain' | 'undrain';
      requestedBy: string;
      /** When it was asked (ISO time, by the asking host's clock). */
      at: string;
      /** Orders requests: a later request has a higher seq. */
      seq: number;
      outcome: 'pending' | 'applied' | 'failed';
      detail?: string;
    };
  }[];
  /** Whether health, drain and warm-up take part in the election (only when every live member runs mlb). */
  mlbOnlyInputs: { allowed: boolean; reason: string };
  /** The allocation table for services that name no IP (file mode). */
  allocation: {
    /** The node that runs the allocator, null when none is elected yet. */
    allocator: string | null;
    /** The table's version; grows with every change. */
    version: number;
  };
  /**
   * How this node's configuration file compares with the other live mlb members' (file mode; absent before the
   * first recomputation). Nodes whose files differ are listed on every node.
   */
  configAgreement?: {
    /** This node's digest of its configuration (the validated objects, not the file's bytes). */
    digest: string;
    /** Services this node's file defines. */
    services: number;
    /** Live mlb members whose configuration differs from this node's. */
    divergent: {
      node: string;
      digest: string;
      services: number;
      /** Services this node's file defines that the member's does not. */
      lacks: string[];
      /** How many services the member's file defines that this node's does not. */
      extra: number;
      message: string;
    }[];
    /**
     * Live mlb members whose file on disk was refused (invalid, empty, cut off, too large...): they run their last
     * good configuration; `reason` is the file's first error as that member reported it. Absent from older daemons.
     */
    refused?: { node: string; reason: string; message: string }[];
    /** Live mlb members whose configuration facts have not arrived yet. */
    awaiting: string[];
    /** Live mlb members that publish no configuration facts (an older mlb): not compared, blocking nothing. */
    silent: string[];
    /** Services this node's file no longer defines that it still announces, and the members still defining them. */
    retained: { service: string; definedBy: string[] }[];
    /** On the allocator: allocations of services its file lacks, kept because these members still define them. */
    withheld: { service: string; ips: string[]; definedBy: string[] }[];
  };
  /** One entry per service and protocol. */
  services: {
    /** "namespace/name". */
    service: string;
    /** Canonical IP texts (Go's spelling). */
    ips: string[];
    protocol: 'layer2' | 'bgp';
    /** layer2: the elected node; bgp: null (every announcing node holds it). */
    owner: string | null;
    /** The nodes announcing the IPs (layer2: [owner] or []). */
    announcing: string[];
    /** Since when the current owner (layer2) or announcing set (bgp) holds the IPs (ISO time), null if nobody. */
    since: string | null;
    /** mlb.io/health-check results as published in gossip; checked false when the service has no check. */
    health: { checked: boolean; passing: string[]; failing: string[] };
    /** The allocator's verdict: "ok", or MetalLB's status and error text (message). */
    allocation: { status: string; message?: string };
    /** Every known node with its reason, as `mlb explain` gives it. */
    candidates: { node: string; rank: number | null; eligible: boolean; reason: string }[];
  }[];
  /**
   * Present only in an answer to /v1/snapshot?offset=N&limit=M (snapshot-page.ts): `services` holds the services
   * from `offset`, at most `limit` of them, of `total`.
   */
  servicesPage?: { offset: number; limit: number; total: number };
  /** What this node does right now. */
  local: {
    /** IPs it answers ARP/NDP for or advertises, and on which interfaces. */
    announced: { ip: string; interfaces: string[] }[];
    /** IPs bound to the local dummy interface (mlb0). */
    bound: string[];
  };
  /** BGP sessions of this node, one per BGPPeer that selects it (absent without BGP peers). */
  bgp?: {
    peer: string;
    address: string;
    /** The session's state (Idle, Connect, Active, OpenSent, OpenConfirm, Established). */
    phase: string;
    /** ISO time, null when not Established. */
    establishedSince: string | null;
    /** Prefixes the peer holds from this node. */
    prefixes: number;
    updatesSent: number;
    /** The BFD session's state, null without a bfdProfile. */
    bfd: 'up' | 'down' | 'init' | 'adminDown' | null;
    lastProblem: string | null;
  }[];
  /** Another MAC answering for one of our IPs (split brain or an address taken elsewhere). */
  conflicts: {
    ip: string;
    mac: string;
    /** The mlb node that MAC belongs to, null when it is no member. */
    node: string | null;
    /** Where the observer saw it; null for a conflict another node observed (only it knows its interfaces). */
    interface: string | null;
    firstSeen: string;
    lastSeen: string;
    /** The node whose self-check saw it (the IP's owner in its view): this node, or another member via gossip. */
    observedBy: string;
    /** Why it is a conflict (notMember, noReason, windowOver); only on the observing node. */
    reason?: string;
  }[];
}

/**
 * What `GET /v1/status` answers: the snapshot as `mlb status --once` prints it, in one answer: every service
 * without its candidates (`mlb explain` and /v1/explain have them), and without `local`. At 10,000 services on
 * a few nodes that is a fifth of the snapshot's bytes, and the daemon builds it without the election's
 * explanations. A snapshot is also a status (every field here is the snapshot's): a client of a daemon from
 * before this route reads the snapshot instead.
 */
export interface ControlStatus extends Omit<ControlSnapshot, 'services' | 'servicesPage' | 'local'> {
  services: StatusServiceRow[];
}

/** One service as /v1/status lists it: the snapshot's row without `candidates`. */
export type StatusServiceRow = Omit<ControlSnapshot['services'][number], 'candidates'>;

/** A shallow check that a parsed JSON value is a v1 status (or a whole snapshot, which is one too). */
export function isControlStatus(value: unknown): value is ControlStatus {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    v.apiVersion === CONTROL_API_VERSION &&
    typeof v.generatedAt === 'string' &&
    typeof v.node === 'object' &&
    v.node !== null &&
    typeof v.config === 'object' &&
    v.config !== null &&
    Array.isArray(v.members) &&
    Array.isArray(v.services) &&
    Array.isArray(v.conflicts)
  );
}

/** A shallow check that a parsed JSON value is a v1 snapshot; the client trusts nothing it did not check. */
export function isControlSnapshot(value: unknown): value is ControlSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return isControlStatus(value) && typeof v.local === 'object' && v.local !== null;
}
