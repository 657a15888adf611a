/**
 * One list request to the Kubernetes API, answered as the server's JSON (no client-side model classes: the
 * translation reads the same plain objects a watch delivers), through the one request function (api-request.ts).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiObject } from '../api-object';
import { apiRequest, apiUrl, statusMessage } from './api-request';

/** What a list returns: its items and the collection's resourceVersion to watch from. */
export interface ApiList {
  readonly metadata?: { readonly resourceVersion?: string };
  readonly items: ApiObject[];
}

/** An API answer other than 200: the status code is what client-node's ListWatch reads (410: list again). */
class ApiRequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

export interface ListQuery {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/**
 * Items asked for per page, as client-go's pager does (its default page size): the answer of one request stays
 * around a megabyte whatever the cluster's size, and each page is trimmed (`keep`) before the next is read, so
 * listing 20,000 EndpointSlices never holds them all whole at once. A server that ignores `limit` answers with
 * everything in one page, which is read the same way.
 */
export const LIST_PAGE_SIZE = 500;

export async function listObjects(
  kubeConfig: KubeConfig,
  path: string,
  query: ListQuery,
  signal: AbortSignal,
  keep: (object: ApiObject) => ApiObject = (object) => object,
): Promise<ApiList> {
  const items: ApiObject[] = [];
  let continueToken: string | undefined;
  let metadata: ApiList['metadata'];
  do {
    const page = await listPage(kubeConfig, path, query, signal, continueToken);
    for (const item of page.items ?? []) items.push(keep(item));
    metadata = page.metadata;
    continueToken = page.metadata?.continue || undefined;
  } while (continueToken !== undefined);
  const resourceVersion = metadata?.resourceVersion;
  return { ...(resourceVersion !== undefined && { metadata: { resourceVersion } }), items };
}

interface ListPage {
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
  readonly items?: ApiObject[];
}

async function listPage(
  kubeConfig: KubeConfig,
  path: string,
  query: ListQuery,
  signal: AbortSignal,
  continueToken?: string,
): Promise<ListPage> {
  const params = new URLSearchParams();
  if (query.labelSelector) params.set('labelSelector', query.labelSelector);
  if (query.fieldSelector) params.set('fieldSelector', query.fieldSelector);
  params.set('limit', String(LIST_PAGE_SIZE));
  if (continueToken !== undefined) params.set('continue', continueToken);
  const withQuery = `${path}${path.includes('?') ? '&' : '?'}${params}`;
  const answer = await apiRequest(kubeConfig, { method: 'GET', path: withQuery, signal });
  if (answer.status !== 200) {
    throw new ApiRequestError(answer.status, `GET ${apiUrl(kubeConfig, path).pathname}: ${answer.status} ${statusMessage(answer.text)}`);
  }
  return JSON.parse(answer.text) as ListPage;
}
