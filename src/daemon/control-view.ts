/**
 * The control API's snapshot (and /v1/status, the snapshot as `mlb status --once` prints it), built from the
 * speaker's state at one instant. Pure: everything it shows is passed in, so what `mlb status` prints is exactly
 * what the speaker decided from.
 */
import type { Member } from '../gossip/swim';
import { decodeNodeMeta } from '../gossip/node-meta';
import { recordsVersionOf } from './records-protocol';
import { hostFromBytes } from '../gossip/transport/address';
import { diagnosticReport } from '../model';
import type { ConfigState } from '../sources/config-source';
import type { ClusterDecision } from './cluster-decision';
import { CONTROL_API_VERSION, type ControlSnapshot, type ControlStatus } from './control/control-snapshot';
import type { SnapshotPage } from './control/snapshot-page';
import { serviceRows } from './control-service-rows';
import type { OwnerHistory } from './owner-history';
import type { BgpPeerStatus } from '../announce/bgp/bgp-announcer';
import type { WithheldRelease } from './allocation/allocate-with-table';
import { refusalMessage } from './config-facts/config-agreement';
import type { ConfigStep } from './config-facts/config-tracker';
import type { DrainRequestTable } from './remote-drain/drain-request-table';

/** What /v1/status is built from: the snapshot's inputs but what only the snapshot shows (`local`, a page). */
export interface StatusViewInputs {
  readonly now: number;
  readonly node: {
    readonly name: string;
    readonly version: string;
    readonly startedAt: number;
    readonly draining: boolean;
    readonly warmingUp: boolean;
    readonly warmUpUntil: number | undefined;
    readonly leaving: boolean;
  };
  readonly gossip: ControlSnapshot['node']['gossip'];
  readonly configFile: string;
  readonly config: ConfigState | undefined;
  readonly members: readonly Member[];
  readonly decision: ClusterDecision | undefined;
  readonly allocation: {
    readonly allocator: string | null;
    readonly version: number;
    /** "namespace/name" -> the allocator's verdict. */
    readonly results: ReadonlyMap<string, { status: string; message?: string }>;
  };
  /** Health-checked services: "namespace/name" -> nodes passing and failing (as published). */
  readonly health: ReadonlyMap<string, { passing: readonly string[]; failing: readonly string[] }>;
  readonly owners: OwnerHistory;
  readonly conflicts: ControlSnapshot['conflicts'];
  /** BGP sessions of this node (empty without BGP peers). */
  readonly bgp: readonly BgpPeerStatus[];
  /** The last comparison of this node's configuration with the others' (config-facts/config-tracker.ts). */
  readonly configAgreement?: ConfigStep;
  readonly withheld?: readonly WithheldRelease[];
  /** The newest drain request heard per node (remote-drain/). */
  readonly drainRequests?: DrainRequestTable;
}

export interface ControlViewInputs extends StatusViewInputs {
  readonly announced: readonly { ip: string; interfaces: readonly string[] }[];
  readonly bound: readonly string[];
  /** Only these services (GET /v1/snapshot?offset&limit): the others are not built at all. */
  readonly page?: SnapshotPage;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function controlView(inputs: ControlViewInputs): ControlSnapshot {
  return {
    ...headPart(inputs),
    ...servicesPart(inputs, inputs.decision),
    local: {
      announced: inputs.announced.map((a) => ({ ip: a.ip, interfaces: [...a.interfaces] })),
      bound: [...inputs.bound],
    },
    ...tailPart(inputs),
  };
}

/** GET /v1/status: every service without its candidates, no `local`; the rest as controlView. */
export function statusView(inputs: StatusViewInputs): ControlStatus {
  const rows = inputs.decision ? serviceRows(inputs, inputs.decision) : undefined;
  return { ...headPart(inputs), services: rows ? rows.buildBrief(0, rows.total) : [], ...tailPart(inputs) };
}

/** The snapshot's fields before `services`, in the order the answer lists them. */
function headPart(inputs: StatusViewInputs): Omit<ControlStatus, 'services' | 'conflicts' | 'bgp'> {
  const { node, decision } = inputs;
  return {
    apiVersion: CONTROL_API_VERSION,
    generatedAt: iso(inputs.now),
    node: {
      name: node.name,
      version: node.version,
      startedAt: iso(node.startedAt),
      draining: node.draining,
      warmingUp: node.warmingUp,
      warmUpUntil: node.warmUpUntil === undefined ? null : iso(node.warmUpUntil),
      ...(node.warmingUp && node.warmUpUntil !== undefined ? { warmUpLeftMs: Math.max(0, node.warmUpUntil - inputs.now) } : {}),
      leaving: node.leaving,
      gossip: inputs.gossip,
    },
    config: {
      file: inputs.configFile,
      state: inputs.config?.stale ? 'stale' : 'ok',
      loadedAt: inputs.config?.loadedAt === undefined ? null : iso(inputs.config.loadedAt),
      ...configProblems(inputs.config),
    },
    members: inputs.members
      .map((m) => memberView(m, inputs.drainRequests))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    mlbOnlyInputs: decision ? { ...decision.mlbInputs } : { allowed: false, reason: 'no election yet' },
    allocation: { allocator: inputs.allocation.allocator, version: inputs.allocation.version },
    ...(inputs.configAgreement ? { configAgreement: agreementView(inputs.configAgreement, inputs.withheld ?? []) } : {}),
  };
}

/** The snapshot's fields after `local`. */
function tailPart(inputs: StatusViewInputs): Pick<ControlStatus, 'conflicts' | 'bgp'> {
  return {
    conflicts: inputs.conflicts,
    ...(inputs.bgp.length > 0
      ? { bgp: inputs.bgp.map((b) => ({ ...b, establishedSince: b.establishedSince === null ? null : iso(b.establishedSince) })) }
      : {}),
  };
}

/** A stale file's errors and warnings, apart and errors first; none for a file that runs. */
function configProblems(config: ConfigState | undefined): { errors: string[]; warnings: string[] } {
  if (!config?.stale) return { errors: [], warnings: [] };
  const report = diagnosticReport(config.diagnostics);
  return { errors: [...report.errors], warnings: [...report.warnings] };
}

function agreementView(step: ConfigStep, withheld: readonly WithheldRelease[]): NonNullable<ControlSnapshot['configAgreement']> {
  const { agreement } = step;
  const nodesIn = (state: string) => agreement.peers.filter((p) => p.state === state).map((p) => p.node);
  return {
    digest: agreement.digest,
    services: agreement.services,
    divergent: agreement.divergent.map((p) => ({
      node: p.node,
      digest: p.digest ?? '',
      services: p.services ?? 0,
      lacks: [...p.lacks],
      extra: p.extra,
      message: p.message,
    })),
    refused: agreement.refused.map((p) => ({ node: p.node, reason: p.refused ?? '', message: refusalMessage(p.node, p.refused ?? '') })),
    awaiting: nodesIn('awaiting'),
    silent: nodesIn('silent'),
    retained: step.retention.retained.map((r) => ({ service: r.service, definedBy: [...r.definedBy] })),
    withheld: withheld.map((w) => ({ service: w.service, ips: [...w.ips], definedBy: [...w.definedBy] })),
  };
}

function memberView(m: Member, requests: DrainRequestTable | undefined): ControlSnapshot['members'][number] {
  const meta = decodeNodeMeta(m.meta);
  const drain = requests?.get(m.name);
  return {
    name: m.name,
    addr: `${hostFromBytes(m.addr) ?? '?'}:${m.port}`,
    state: m.state as ControlSnapshot['members'][number]['state'],
    mlb: meta !== undefined,
    labels: { ...(meta?.labels ?? {}) },
    draining: meta?.draining ?? false,
    warmingUp: meta?.warmingUp ?? false,
    ...(meta?.macs ? { macs: [...meta.macs] } : {}),
    ...(meta ? { version: { release: meta.release ?? null, records: recordsVersionOf(meta) } } : {}),
    ...(drain
      ? {
          drain: {
            action: drain.action,
            requestedBy: drain.requestedBy,
            at: iso(drain.at),
            seq: drain.seq,
            outcome: drain.outcome,
            ...(drain.detail === undefined ? {} : { detail: drain.detail }),
          },
        }
      : {}),
  };
}

/** The services (a page of them when asked), built only for the rows answered. */
function servicesPart(
  inputs: ControlViewInputs,
  decision: ClusterDecision | undefined,
): Pick<ControlSnapshot, 'services' | 'servicesPage'> {
  const rows = decision ? serviceRows(inputs, decision) : { total: 0, build: () => [] };
  const { page } = inputs;
  if (!page) return { services: rows.build(0, rows.total) };
  return {
    services: rows.build(page.offset, Math.min(rows.total, page.offset + page.limit)),
    servicesPage: { offset: page.offset, limit: page.limit, total: rows.total },
  };
}
