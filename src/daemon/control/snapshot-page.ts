/**
 * `GET /v1/snapshot?offset=N&limit=M`: the snapshot with only services[N, N+M), and `servicesPage` saying where
 * that is in the whole list. 10,000 services with every candidate are megabytes of JSON that the daemon builds
 * and the client parses in one go; pages keep each answer small, so `mlb status` answers from a busy daemon
 * too, and reads only what it shows. Without offset and limit the answer is the whole snapshot, as before. Pure.
 */
import type { ControlSnapshot } from './control-snapshot';

export interface SnapshotPage {
  readonly offset: number;
  readonly limit: number;
}

/**
 * The most services one page carries: a page of this many services over a 1,000-node cluster (every candidate
 * listed) is still a few megabytes, well inside the client's response limit.
 */
const MAX_SNAPSHOT_PAGE = 1_000;

export type PageQuery = { readonly ok: true; readonly page: SnapshotPage | undefined } | { readonly ok: false; readonly problem: string };

/** offset and limit, both or neither, digits only; limit 1..MAX_SNAPSHOT_PAGE. */
export function parseSnapshotPage(query: URLSearchParams): PageQuery {
  const offsets = query.getAll('offset');
  const limits = query.getAll('limit');
  if (offsets.length === 0 && limits.length === 0) return { ok: true, page: undefined };
  const offset = oneNumber(offsets);
  const limit = oneNumber(limits);
  if (offset === undefined) return { ok: false, problem: `offset=${JSON.stringify(offsets.join(','))} is not one number (0, 1, 2 ...)` };
  if (limit === undefined || limit < 1 || limit > MAX_SNAPSHOT_PAGE) {
    return { ok: false, problem: `limit=${JSON.stringify(limits.join(','))} is not one number from 1 to ${MAX_SNAPSHOT_PAGE}` };
  }
  return { ok: true, page: { offset, limit } };
}

function oneNumber(values: readonly string[]): number | undefined {
  const text = values[0];
  if (values.length !== 1 || text === undefined || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The page of `snapshot`; a snapshot already paged (the provider built only the page) is returned as it is. */
export function pageOfSnapshot(snapshot: ControlSnapshot, page: SnapshotPage): ControlSnapshot {
  if (snapshot.servicesPage) return snapshot;
  return {
    ...snapshot,
    services: snapshot.services.slice(page.offset, page.offset + page.limit),
    servicesPage: { offset: page.offset, limit: page.limit, total: snapshot.services.length },
  };
}

/**
 * The whole snapshot from its pages, as the first page saw everything else. `next` asks for the page at an
 * offset; a daemon that does not page (older ones) answers the whole snapshot the first time.
 */
export async function collectPages(
  next: (page: SnapshotPage) => Promise<ControlSnapshot>,
  limit = MAX_SNAPSHOT_PAGE,
): Promise<ControlSnapshot> {
  const first = await next({ offset: 0, limit });
  if (!first.servicesPage) return first;
  const services = [...first.services];
  let total = first.servicesPage.total;
  while (services.length < total) {
    const page = await next({ offset: services.length, limit });
    // Services that went away while paging end the list early; new ones are left for the next read.
    if (page.services.length === 0) break;
    services.push(...page.services);
    total = page.servicesPage?.total ?? total;
  }
  const { servicesPage: _page, ...whole } = first;
  return { ...whole, services };
}
