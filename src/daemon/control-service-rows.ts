/**
 * The snapshot's services rows, built for a range only: the TUI pages through 10,000 services
 * (GET /v1/snapshot?offset&limit), and each page builds its own rows. Each row's candidates come from the
 * decision's explanations through one index (service, protocol, first IP), not a search of them per row, which
 * made a whole snapshot quadratic in the number of services (1.2 s at 10,000); the index is built once per
 * decision, not once per page (explanation-index.ts). /v1/status's rows (buildBrief) have no candidates and
 * never build it. Pure.
 */
import { explanationOf } from './explanation-index';
import type { ClusterDecision } from './cluster-decision';
import type { ControlSnapshot, StatusServiceRow } from './control/control-snapshot';
import { holdingKey, type OwnerHistory } from './owner-history';

/** What the rows are made of besides the decision: the part of control-view.ts's inputs they read. */
export interface ServiceRowInputs {
  readonly allocation: { readonly results: ReadonlyMap<string, { status: string; message?: string }> };
  readonly health: ReadonlyMap<string, { passing: readonly string[]; failing: readonly string[] }>;
  readonly owners: OwnerHistory;
}

type ServiceRow = ControlSnapshot['services'][number];

export interface ServiceRows {
  /** Elected services (in the decision's order), then those without an IP. */
  readonly total: number;
  build(from: number, to: number): ServiceRow[];
  /** The same rows without their candidates (GET /v1/status). */
  buildBrief(from: number, to: number): StatusServiceRow[];
}

const iso = (ms: number) => new Date(ms).toISOString();

function healthOf(inputs: ServiceRowInputs, service: string): ServiceRow['health'] {
  const health = inputs.health.get(service);
  return health
    ? { checked: true, passing: [...health.passing], failing: [...health.failing] }
    : { checked: false, passing: [], failing: [] };
}

export function serviceRows(inputs: ServiceRowInputs, decision: ClusterDecision): ServiceRows {
  const { outcomes } = decision;
  const elected = new Set(outcomes.map((o) => o.service));
  // Services without an IP (allocation failed, or waiting for the allocator) are listed too, with the reason.
  const unelected = [...inputs.allocation.results].filter(([key]) => !elected.has(key));
  const briefRow = (u: number): StatusServiceRow => {
    const outcome = outcomes[u] as (typeof outcomes)[number];
    const holding = inputs.owners.get(holdingKey(outcome));
    return {
      service: outcome.service,
      ips: [...outcome.ips],
      protocol: outcome.protocol,
      owner: outcome.winner,
      announcing: [...outcome.announcing],
      since: holding && holding.holders.length > 0 ? iso(holding.since) : null,
      health: healthOf(inputs, outcome.service),
      allocation: inputs.allocation.results.get(outcome.service) ?? { status: 'ok' },
    };
  };
  const electedRow = (u: number): ServiceRow => {
    const outcome = outcomes[u] as (typeof outcomes)[number];
    const explanation = explanationOf(decision, outcome.service, outcome.protocol, outcome.ips[0]);
    return {
      ...briefRow(u),
      candidates: (explanation?.candidates ?? []).map((c) => ({ node: c.node, rank: c.rank, eligible: c.eligible, reason: c.reason })),
    };
  };
  const unelectedRow = (i: number): ServiceRow => {
    const [service, allocation] = unelected[i] as [string, { status: string; message?: string }];
    const health = inputs.health.get(service);
    return {
      service,
      ips: [],
      protocol: 'layer2',
      owner: null,
      announcing: [],
      since: null,
      health: { checked: health !== undefined, passing: [...(health?.passing ?? [])], failing: [...(health?.failing ?? [])] },
      allocation,
      candidates: [],
    };
  };
  return {
    total: outcomes.length + unelected.length,
    build(from, to) {
      const rows: ServiceRow[] = [];
      for (let i = from; i < to; i++) rows.push(i < outcomes.length ? electedRow(i) : unelectedRow(i - outcomes.length));
      return rows;
    },
    buildBrief(from, to) {
      const rows: StatusServiceRow[] = [];
      for (let i = from; i < to; i++) {
        if (i < outcomes.length) rows.push(briefRow(i));
        else {
          // An unelected service has no candidates to leave out: its row as the snapshot's, without the field.
          const { candidates: _none, ...row } = unelectedRow(i - outcomes.length);
          rows.push(row);
        }
      }
      return rows;
    },
  };
}
