/**
 * One HTTP request to the Kubernetes API, answered as its status and body text: the one place mlb's Kubernetes
 * code opens a connection (the source's lists, the controller's and the speaker's writes, the CLI's reads).
 * Server, TLS, credentials and proxies come from client-node's KubeConfig (applyToHTTPSOptions: the in-cluster
 * token is re-read as it rotates; plain http only with insecure-skip-tls-verify, as client-node requires).
 * Adapter: network.
 */
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { useKeepAlivePool } from './keep-alive-agent';

/**
 * Answers larger than this are refused before they are kept: a list of every EndpointSlice of a large cluster
 * stays well under it, and a server (or proxy) that never stops sending cannot exhaust the process's memory.
 */
const MAX_ANSWER_BYTES = 512 * 1024 * 1024;

export interface ApiRequest {
  readonly method: string;
  /** Path and query after the server URL: "/api/v1/services?labelSelector=a%3Db". */
  readonly path: string;
  /** The body already serialised, with its content type. */
  readonly body?: { readonly text: string; readonly contentType: string };
  /** Aborts the request and the reading of its answer (a deadline, or the caller stopping). */
  readonly signal: AbortSignal;
}

export interface ApiAnswer {
  readonly status: number;
  readonly text: string;
}

/** The URL of `path` on the kubeconfig's current cluster; throws when it names none. */
export function apiUrl(kubeConfig: KubeConfig, path: string): URL {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  return new URL(cluster.server.replace(/\/+$/, '') + path);
}

export async function apiRequest(kubeConfig: KubeConfig, request: ApiRequest): Promise<ApiAnswer> {
  const url = apiUrl(kubeConfig, request.path);
  const headers: Record<string, string | number> = { Accept: 'application/json' };
  if (request.body)
    Object.assign(headers, { 'Content-Type': request.body.contentType, 'Content-Length': Buffer.byteLength(request.body.text) });
  const options: RequestOptions & { headers: Record<string, string | number> } = { method: request.method, headers };
  await kubeConfig.applyToHTTPSOptions(options);
  useKeepAlivePool(kubeConfig, url.protocol, options);
  const response = await send(url, options, request);
  return { status: response.statusCode ?? 0, text: await readAnswer(response, request.signal) };
}

function send(url: URL, options: RequestOptions, request: ApiRequest): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { ...options, signal: request.signal }, resolve);
    outgoing.on('error', reject);
    if (request.body) outgoing.write(request.body.text);
    outgoing.end();
  });
}

function readAnswer(response: IncomingMessage, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) response.destroy(new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
      else chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    signal.addEventListener('abort', () => response.destroy(new Error('request aborted')), { once: true });
  });
}

/** The message of a Kubernetes Status body, else the body's start. */
export function statusMessage(text: string): string {
  try {
    const status = JSON.parse(text) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not JSON: shown as it is
  }
  return text.slice(0, 200);
}
