/**
 * A small JSON client for the few calls the controller and the speaker make, through the one request function
 * (api-request.ts: server, TLS and credentials from client-node's KubeConfig). Writes go through exactly the verbs MetalLB's RBAC grants:
 * services/status update, events create/patch, metallb.io status updates, secrets create.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig as loadSourceKubeConfig } from '../kube-config';
import { CodedError } from '../../../errors/coded-error';
import { apiRequest, statusMessage } from './api-request';
import { stringifyWithInt64 } from './json-int64';

export const KubeClientErrorCode = {
  /** The API answered with an HTTP error; `status` says which (409 conflict, 404 not found...). */
  httpError: 'httpError',
  /** No answer: connection refused, reset, timed out. */
  unreachable: 'unreachable',
  /** No usable kubeconfig or in-cluster service account. */
  noConfig: 'noConfig',
} as const;
export type KubeClientErrorCode = (typeof KubeClientErrorCode)[keyof typeof KubeClientErrorCode];

export class KubeClientError extends CodedError<KubeClientErrorCode> {
  constructor(
    code: KubeClientErrorCode,
    message: string,
    readonly status = 0,
  ) {
    super(code, message);
  }
}

/** One request may take this long before it counts as unreachable: a half-open connection must not hang a reconcile. */
const REQUEST_TIMEOUT_MS = 30_000;

export type PatchType = 'application/merge-patch+json' | 'application/strategic-merge-patch+json';

export interface KubeClient {
  /** undefined on 404. */
  get<T>(path: string): Promise<T | undefined>;
  put<T>(path: string, body: unknown): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown, type: PatchType): Promise<T>;
  readonly server: string;
  readonly config: KubeConfig;
}

/** --kubeconfig, else $KUBECONFIG, else the pod's service account (the Kubernetes source's loader), as a typed error. */
export async function loadKubeConfig(path: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<KubeConfig> {
  const where = path ?? env['KUBECONFIG'] ?? 'the in-cluster configuration';
  let kc: KubeConfig;
  try {
    kc = (await loadSourceKubeConfig({ ...(path && { path }), env })).kubeConfig;
  } catch (error) {
    throw new KubeClientError(KubeClientErrorCode.noConfig, `cannot load ${where}: ${(error as Error).message}`);
  }
  if (kc.getCurrentCluster() === null) {
    throw new KubeClientError(KubeClientErrorCode.noConfig, `no cluster in ${where} (--kubeconfig, KUBECONFIG)`);
  }
  return kc;
}

export function kubeClient(kc: KubeConfig): KubeClient {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new KubeClientError(KubeClientErrorCode.noConfig, 'no current cluster');
  const server = cluster.server.replace(/\/+$/, '');
  const request = async <T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T | undefined> => {
    const text = body === undefined ? undefined : stringifyWithInt64(body);
    let answer;
    try {
      answer = await apiRequest(kc, {
        method,
        path,
        ...(text !== undefined && { body: { text, contentType } }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new KubeClientError(KubeClientErrorCode.unreachable, `${method} ${path}: ${(error as Error).message}`);
    }
    if (method === 'GET' && answer.status === 404) return undefined;
    if (answer.status < 200 || answer.status > 299) {
      throw new KubeClientError(
        KubeClientErrorCode.httpError,
        `${method} ${path}: HTTP ${answer.status}: ${statusMessage(answer.text)}`,
        answer.status,
      );
    }
    return (answer.text === '' ? undefined : JSON.parse(answer.text)) as T;
  };
  return {
    server,
    config: kc,
    get: (path) => request('GET', path),
    put: async (path, body) => (await request('PUT', path, body)) as never,
    post: async (path, body) => (await request('POST', path, body)) as never,
    patch: async (path, body, type) => (await request('PATCH', path, body, type)) as never,
  };
}
