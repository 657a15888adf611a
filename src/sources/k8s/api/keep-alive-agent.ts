/**
 * One keep-alive connection pool per kubeconfig for mlb's own API requests. client-node 1.4's
 * applyToHTTPSOptions makes a new Agent (keepAlive off) on every call, so each request opened its own TCP
 * connection, and on a real cluster its own TLS handshake: a controller writing 10,000 statuses spent more time
 * connecting than writing. The pool is replaced when the TLS material the kubeconfig yields changes (a rotated
 * client certificate or CA), and left to client-node when a proxy is configured (its agents carry the proxy).
 * Adapter: network.
 */
import { Agent as HttpAgent, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';

/**
 * Idle connections kept per pool: the controller's writes in flight plus the speaker's few readers; more than
 * this are closed once idle rather than kept open against the API server.
 */
const MAX_IDLE_SOCKETS = 32;

interface Pooled {
  readonly key: string;
  readonly agent: HttpAgent;
}

const pools = new WeakMap<object, Pooled>();

const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** What makes two connections interchangeable: the protocol and the TLS material (pure). */
export function agentKey(protocol: string, options: Partial<Record<(typeof TLS_FIELDS)[number], unknown>>): string {
  const text = (v: unknown): string => (v === undefined ? '' : Buffer.isBuffer(v) ? v.toString('base64') : String(v));
  return [protocol, ...TLS_FIELDS.map((f) => text(options[f]))].join('\u0000');
}

/**
 * Swaps the single-use agent client-node put in `options` for the kubeconfig's keep-alive pool (same TLS
 * options); a proxy agent or none is left alone.
 */
export function useKeepAlivePool(owner: object, protocol: string, options: RequestOptions): void {
  const created = options.agent;
  // Exactly node's agents: a proxy agent (hpagent, socks) is a subclass and carries the proxy.
  if (!created || (created.constructor !== HttpAgent && created.constructor !== HttpsAgent)) return;
  const tls = (created as unknown as { options: AgentOptions }).options;
  const key = agentKey(protocol, tls);
  let pooled = pools.get(owner);
  if (pooled?.key !== key) {
    pooled?.agent.destroy();
    const common = { keepAlive: true, maxFreeSockets: MAX_IDLE_SOCKETS };
    pooled = { key, agent: protocol === 'https:' ? new HttpsAgent({ ...tls, ...common }) : new HttpAgent(common) };
    pools.set(owner, pooled);
  }
  (created as HttpAgent).destroy();
  options.agent = pooled.agent;
}
