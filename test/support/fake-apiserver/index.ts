/**
 * A fake Kubernetes API server for mlb's Kubernetes-mode tests: real HTTP on 127.0.0.1 (port chosen by the OS) that
 * kubectl 1.32 and @kubernetes/client-node 1.4 informers accept. See README.md in this folder for what it
 * implements and what it leaves out.
 *
 *   const api = await startFakeApiServer({ rbac: rbacFromManifestText(kustomizeOutput) });
 *   const kubeconfig = api.kubeconfigPath(tmpDir, 'system:serviceaccount:metallb-system:controller');
 *   ... api.faults.dropWatches(); expect(api.audit.forbidden()).toEqual([]); await api.close();
 */
import { FieldOwnership } from './apply';
import { AuditLog } from './audit';
import { ADMIN_SUBJECT, writeKubeconfig } from './credentials';
import { Faults } from './faults';
import { HttpShell } from './http-shell';
import type { KubeObject } from './kube-object';
import type { RbacPolicy } from './rbac';
import { DEFAULT_RESOURCE_TYPES, ResourceCatalog, type ResourceType } from './resource-catalog';
import { parseServiceCIDRs } from './service-defaults';
import { ObjectStore } from './store';
import { WatchHub } from './watch-hub';

export { rbacFromManifestText, addRbacObjects, emptyPolicy, type RbacPolicy } from './rbac';
export { tokenFor, ADMIN_SUBJECT } from './credentials';
export type { AuditEntry, AuditLog } from './audit';
export type { Faults } from './faults';
export type { ObjectStore } from './store';
export type { KubeObject } from './kube-object';
export { rawClient, type RawClient, type RawWatch, type WatchEvent } from './raw-client';
export { kubectlAvailable, kubectlFor, type Kubectl } from './kubectl';
export { servedTypes, type ResourceType, type ServedResource } from './resource-catalog';

/** The service CIDRs of a default dual-stack cluster (kubeadm's IPv4 default, a ULA for IPv6), IPv4 primary. */
export const DEFAULT_SERVICE_CIDRS = ['10.96.0.0/16', 'fd00:10:96::/112'];
/** Namespaces every cluster has from the start. */
const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
/** Idle bookmarking watches get a BOOKMARK this often: short, so watchdog tests need not wait a real minute. */
const DEFAULT_BOOKMARK_INTERVAL_MS = 1_000;

export interface FakeApiServerOptions {
  /** RBAC rules to enforce (rbacFromManifestText). Without it every request is allowed. */
  rbac?: RbacPolicy;
  /** Service CIDRs, primary family first; one entry makes a single-stack cluster. */
  serviceCIDRs?: string[];
  /** Default `ipMode: VIP` on Service load-balancer ingress (Kubernetes >= 1.30). Default true. */
  defaultIPMode?: boolean;
  bookmarkIntervalMs?: number;
  /** Changes kept for watch replay before the oldest are compacted away. */
  historyLimit?: number;
  /** How a watch from a compacted resourceVersion fails: HTTP 410 (default) or a 200 with an ERROR event. */
  expiredWatch?: 'http' | 'event';
  /** Objects present from the start (stored as given, without defaulting), e.g. Nodes and the speaker Pods. */
  objects?: KubeObject[];
  /**
   * The resource types served instead of DEFAULT_RESOURCE_TYPES, e.g. exactly the kinds an install's manifests and
   * CRDs define, so that kubectl meets "no matches for kind" for anything else as it would on that cluster.
   */
  resourceTypes?: readonly ResourceType[];
}

export interface FakeApiServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Writes a kubeconfig for `subject` (default: the cluster admin) into `dir` and returns its path. */
  kubeconfigPath(dir: string, subject?: string): string;
  store: ObjectStore;
  faults: Faults;
  audit: AuditLog;
  catalog: ResourceCatalog;
  /** Looks up a served resource type by group and plural (e.g. `('', 'services')`, `('metallb.io', 'servicel2statuses')`). */
  resourceType(group: string, plural: string): ResourceType;
  close(): Promise<void>;
}

function seed(store: ObjectStore, catalog: ResourceCatalog, objects: KubeObject[]): void {
  const namespaces = catalog.find('', 'v1', 'namespaces');
  for (const name of namespaces ? INITIAL_NAMESPACES : []) {
    store.create(namespaces!, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }
  for (const object of objects) {
    const type = catalog.findByKind(object.apiVersion ?? '', object.kind ?? '');
    if (!type) throw new Error(`fake apiserver: no resource type for ${object.apiVersion} ${object.kind}`);
    const namespace = type.namespaced ? (object.metadata.namespace ?? 'default') : undefined;
    store.create(type, { ...object, apiVersion: object.apiVersion, kind: type.kind, metadata: { ...object.metadata, namespace } });
  }
}

export async function startFakeApiServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const catalog = new ResourceCatalog(options.resourceTypes ?? DEFAULT_RESOURCE_TYPES);
  const store = new ObjectStore(catalog, options.historyLimit !== undefined ? { historyLimit: options.historyLimit } : {});
  seed(store, catalog, options.objects ?? []);
  const hub = new WatchHub(store, {
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS,
    expiredWatch: options.expiredWatch ?? 'http',
  });
  const audit = new AuditLog();
  const context = {
    store,
    hub,
    ownership: new FieldOwnership(),
    services: {
      serviceCIDRs: parseServiceCIDRs(options.serviceCIDRs ?? DEFAULT_SERVICE_CIDRS),
      defaultIPMode: options.defaultIPMode ?? true,
    },
    random: Math.random,
  };
  let faults: Faults | undefined;
  const shell = new HttpShell({ catalog, context, audit, ...(options.rbac ? { rbac: options.rbac } : {}), faults: () => faults! });
  faults = new Faults(hub, store, shell);
  const url = await shell.listen();
  return {
    url,
    kubeconfigPath: (dir, subject = ADMIN_SUBJECT) => writeKubeconfig(dir, url, subject),
    store,
    faults,
    audit,
    catalog,
    resourceType(group, plural) {
      const type = catalog.types.find((candidate) => candidate.group === group && candidate.plural === plural);
      if (!type) throw new Error(`fake apiserver: no resource ${plural} in group "${group}"`);
      return type;
    },
    close: async () => {
      await faults.heal();
      faults.delayResponses(0);
      hub.dropAll();
      await shell.close();
    },
  };
}
