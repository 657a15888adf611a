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

export async function listObjects(kubeConfig: KubeConfig, path: string, query: ListQuery, signal: AbortSignal): Promise<ApiList> {
  const params = new URLSearchParams();
  if (query.labelSelector) params.set('labelSelector', query.labelSelector);
  if (query.fieldSelector) params.set('fieldSelector', query.fieldSelector);
  const withQuery = params.size > 0 ? `${path}${path.includes('?') ? '&' : '?'}${params}` : path;
  const answer = await apiRequest(kubeConfig, { method: 'GET', path: withQuery, signal });
  if (answer.status !== 200) {
    throw new ApiRequestError(answer.status, `GET ${apiUrl(kubeConfig, path).pathname}: ${answer.status} ${statusMessage(answer.text)}`);
  }
  const list = JSON.parse(answer.text) as Partial<ApiList>;
  return { ...(list.metadata ? { metadata: list.metadata } : {}), items: list.items ?? [] };
}
