/**
 * One list request to the Kubernetes API, answered as the server's JSON (no client-side model classes: the
 * translation reads the same plain objects a watch delivers). Authentication, TLS and proxies come from the
 * KubeConfig, as for client-node's own requests. Adapter: network.
 */
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiObject } from './api-object';

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

/** Bodies larger than this are refused: a list of every EndpointSlice of a large cluster stays well under it. */
const MAX_LIST_BYTES = 512 * 1024 * 1024;

export interface ListQuery {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export async function listObjects(kubeConfig: KubeConfig, path: string, query: ListQuery, signal: AbortSignal): Promise<ApiList> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(cluster.server + path);
  if (query.labelSelector) url.searchParams.set('labelSelector', query.labelSelector);
  if (query.fieldSelector) url.searchParams.set('fieldSelector', query.fieldSelector);
  const options: RequestOptions & { headers: Record<string, string> } = { method: 'GET', headers: { Accept: 'application/json' } };
  await kubeConfig.applyToHTTPSOptions(options);
  const response = await send(url, options, signal);
  const body = await readBody(response, signal);
  if (response.statusCode !== 200) {
    throw new ApiRequestError(response.statusCode ?? 0, `GET ${url.pathname}: ${response.statusCode} ${statusMessage(body)}`);
  }
  const list = JSON.parse(body) as Partial<ApiList>;
  return { ...(list.metadata ? { metadata: list.metadata } : {}), items: list.items ?? [] };
}

function send(url: URL, options: RequestOptions, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { ...options, signal }, resolve);
    request.on('error', reject);
    request.end();
  });
}

function readBody(response: IncomingMessage, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_LIST_BYTES) response.destroy(new Error(`list answer larger than ${MAX_LIST_BYTES} bytes`));
      else chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    signal.addEventListener('abort', () => response.destroy(new Error('list aborted')), { once: true });
  });
}

/** The message of a Kubernetes Status body, else its start. */
function statusMessage(body: string): string {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not JSON: shown as it is
  }
  return body.slice(0, 200);
}
