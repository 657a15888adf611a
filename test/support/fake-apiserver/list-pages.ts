/**
 * Paged lists (`limit` and `continue`), as the API server serves them to client-go's pager (500 items a page):
 * the continue token carries the resourceVersion of the first page and the key of the last item sent; the next
 * page starts after that key in the store's key order (by code unit, as etcd orders keys by byte), so an object deleted between pages
 * does not shift the rest. Every page reports the first page's resourceVersion, so a client watches from there
 * and the watch replays whatever changed while it paged (the real server serves every page from that snapshot
 * instead; the client ends with the same objects either way). Pure.
 */
import { badRequest } from './api-error';

export interface PageRequest {
  /** Items per page; undefined or 0: everything at once. */
  readonly limit?: number;
  readonly continueToken?: string;
}

interface ContinueToken {
  readonly rv: number;
  readonly after: string;
}

export function pageRequestOf(query: URLSearchParams): PageRequest {
  const limit = Number(query.get('limit') ?? 0);
  const token = query.get('continue') ?? '';
  return { ...(limit > 0 && { limit }), ...(token !== '' && { continueToken: token }) };
}

function decode(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<ContinueToken>;
    if (typeof parsed.rv === 'number' && typeof parsed.after === 'string') return { rv: parsed.rv, after: parsed.after };
  } catch {
    // answered below
  }
  throw badRequest('continue key is not valid');
}

export interface Page<T> {
  readonly items: T[];
  readonly resourceVersion: number;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

/** One page of `sorted` (items in store order with their keys), at the store's `revision`. */
export function pageOf<T>(sorted: readonly { key: string; item: T }[], request: PageRequest, revision: number): Page<T> {
  const token = request.continueToken === undefined ? undefined : decode(request.continueToken);
  const from = token === undefined ? 0 : sorted.findIndex((entry) => entry.key > token.after);
  const rest = from < 0 ? [] : sorted.slice(from);
  const rv = token?.rv ?? revision;
  if (request.limit === undefined || rest.length <= request.limit) return { items: rest.map((e) => e.item), resourceVersion: rv };
  const page = rest.slice(0, request.limit);
  const after = page[page.length - 1]!.key;
  return {
    items: page.map((e) => e.item),
    resourceVersion: rv,
    continueToken: Buffer.from(JSON.stringify({ rv, after })).toString('base64url'),
    remainingItemCount: rest.length - page.length,
  };
}
