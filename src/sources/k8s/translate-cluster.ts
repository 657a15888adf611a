/**
 * The Kubernetes API's objects to what the speaker runs on: the same validated Snapshot the file source builds
 * (model/parse parseApiObjects: every rule and message of the file mode) and, per LoadBalancer service, where it
 * can be served (service-endpoints.ts). Pure: the watches (resource-watch.ts) hold the objects, this only reads
 * them.
 *
 * What differs from a file, and why:
 * - Only type LoadBalancer Services of this load-balancer class are read: MetalLB's speaker handles no other, and a
 *   cluster's thousands of ClusterIP services must neither cost a parse nor, by one odd annotation, hold up the
 *   configuration of the load balancers.
 * - Nodes are read for their name, labels, annotations, conditions and addresses only: the election needs the
 *   labels (node selectors, node.kubernetes.io/exclude-from-external-load-balancers) and the NetworkUnavailable
 *   condition; the rest of a Node (images, capacity, kubelet info) is large and changes every few seconds.
 * - The assignment is each Service's status.loadBalancer.ingress, which the controller writes.
 * - Objects are read in namespace/name order (a file's order is its author's; the API has none), so two
 *   speakers reading the same objects report the same order-dependent findings (pool overlaps).
 */
import { createHash } from 'node:crypto';
import type { ServiceEndpoints } from '../../election';
import { type ParseOptions, type ParseResult, type PeerSecrets, parseApiObjects } from '../../model';
import { type ApiEndpointSlice, type ApiObject, objectKey } from './api-object';
import { peerSecretsOf } from './peer-secrets-of';
import { endpointsByService } from './service-endpoints';
import { WATCHED_KINDS, type WatchedKindName } from './watched-kinds';

/** Every watched kind's objects, as the API returned them. */
export type ClusterObjects = Readonly<Record<WatchedKindName, readonly ApiObject[]>>;

export interface ClusterTranslation {
  readonly result: ParseResult;
  /** "namespace/name" -> where the service can be served; one entry per LoadBalancer Service. */
  readonly endpoints: ReadonlyMap<string, ServiceEndpoints>;
}

/** What the parser will read and the endpoints, before parsing, with a digest that tells two of them apart. */
export interface PreparedCluster {
  readonly documents: readonly ApiObject[];
  readonly endpoints: ReadonlyMap<string, ServiceEndpoints>;
  /** The MetalLB namespace's Secrets, where BGPPeer passwordSecret references are looked up. */
  readonly peerSecrets: PeerSecrets;
  /**
   * sha256 over the documents (minus the API server's bookkeeping), the endpoints and the Secrets: equal digests, equal
   * translations. A Node's heartbeat or a pod moving between two nodes that both still serve changes nothing here,
   * so the source neither parses again nor tells anyone.
   */
  readonly digest: string;
}

export function emptyClusterObjects(): ClusterObjects {
  return Object.fromEntries(WATCHED_KINDS.map((k) => [k.name, []])) as unknown as ClusterObjects;
}

/**
 * `lbClass`: --lb-class. A Service is handled when its spec.loadBalancerClass is this one (unset: only Services
 * without a class), as MetalLB does: another implementation's Service keeps the ingress that implementation wrote,
 * which mlb must not announce.
 */
export function prepareCluster(objects: ClusterObjects, lbClass?: string): PreparedCluster {
  const documents: ApiObject[] = [];
  for (const kind of WATCHED_KINDS) {
    // Not configuration documents: read into the endpoints and the peer passwords below.
    if (kind.name === 'endpointslices' || kind.name === 'secrets') continue;
    for (const object of sortedByKey(objects[kind.name])) {
      const typed = { ...object, apiVersion: object.apiVersion ?? kind.apiVersion, kind: kind.kind };
      if (kind.name === 'services' && !handledService(typed, lbClass)) continue;
      documents.push(kind.name === 'nodes' ? nodeFields(typed) : typed);
    }
  }
  const serviceKeys = documents.filter((d) => d.kind === 'Service').map(objectKey);
  const endpoints = endpointsByService(objects.endpointslices as readonly ApiEndpointSlice[], serviceKeys);
  // Only the Secrets a peer names: another Secret of the namespace changing (a certificate rotated) changes nothing.
  const peerSecrets = peerSecretsOf(objects.secrets, referencedSecretNames(objects.bgppeers));
  return { documents, endpoints, peerSecrets, digest: digestOf(documents, endpoints, peerSecrets) };
}

export function translatePrepared(prepared: PreparedCluster, origin: string, options: ParseOptions = {}): ClusterTranslation {
  const peerSecrets = options.peerSecrets === 'unreadable' ? 'unreadable' : prepared.peerSecrets;
  const result = parseApiObjects(prepared.documents, origin, { ...options, peerSecrets });
  return { result, endpoints: prepared.endpoints };
}

export function translateCluster(
  objects: ClusterObjects,
  origin: string,
  options: ParseOptions = {},
  lbClass?: string,
): ClusterTranslation {
  return translatePrepared(prepareCluster(objects, lbClass), origin, options);
}

/** Fields the API server changes on every write, whatever the write was: not part of what an object says. */
const BOOKKEEPING = new Set(['resourceVersion', 'managedFields', 'generation']);

function digestOf(documents: readonly ApiObject[], endpoints: ReadonlyMap<string, ServiceEndpoints>, secrets: PeerSecrets): string {
  const hash = createHash('sha256');
  const replacer = (key: string, value: unknown): unknown => (BOOKKEEPING.has(key) ? undefined : value);
  for (const document of documents) hash.update(JSON.stringify(document, replacer)).update('\n');
  for (const [key, e] of endpoints) hash.update(`${key} ${[...e.servingNodes].join(',')} ${e.servingWithoutNode === true}\n`);
  // A changed password must reach the peer's session (which restarts on it), so the Secrets' contents count.
  for (const [name, secret] of [...secrets].sort(([a], [b]) => (a < b ? -1 : 1)))
    hash.update(JSON.stringify([name, secret.type, [...secret.data].sort()])).update('\n');
  return hash.digest('hex');
}

function referencedSecretNames(peers: readonly ApiObject[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const peer of peers) {
    const ref = (peer.spec as { passwordSecret?: { name?: unknown } } | undefined)?.passwordSecret;
    if (typeof ref?.name === 'string') names.add(ref.name);
  }
  return names;
}

function sortedByKey(objects: readonly ApiObject[]): ApiObject[] {
  return [...objects].sort((a, b) => {
    const ka = objectKey(a);
    const kb = objectKey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

function handledService(service: ApiObject, lbClass: string | undefined): boolean {
  const spec = service.spec as { type?: unknown; loadBalancerClass?: unknown } | undefined;
  if (spec?.type !== 'LoadBalancer') return false;
  const has = typeof spec.loadBalancerClass === 'string' ? spec.loadBalancerClass : '';
  return has === (lbClass ?? '');
}

interface ApiNodeStatus {
  readonly conditions?: readonly { readonly type?: unknown; readonly status?: unknown }[];
  readonly addresses?: unknown;
}

/** The fields of a Node the model reads (see the file comment); each condition's type and status only. */
function nodeFields(node: ApiObject): ApiObject {
  const { name, labels, annotations } = node.metadata ?? {};
  const status = (node.status ?? {}) as ApiNodeStatus;
  const conditions = status.conditions?.map((c) => ({ type: c.type, status: c.status }));
  return {
    apiVersion: node.apiVersion,
    kind: node.kind,
    metadata: { name, ...(labels && { labels }), ...(annotations && { annotations }) },
    status: { ...(conditions && { conditions }), ...(status.addresses !== undefined && { addresses: status.addresses }) },
  };
}
