/**
 * One read of a cluster for the operator commands (`mlb validate|explain|status --kubeconfig`): every object the
 * speaker watches (watched-kinds.ts) plus what MetalLB's components write about themselves: ServiceL2Status and
 * ServiceBGPStatus (who announces), ConfigurationState (is the configuration valid), the speaker Pods (which
 * nodes run a speaker) and the Events of metallb-controller and metallb-speaker. A list each, all at once, no
 * watch: the commands print what the cluster says now. Adapter: network.
 */
import { apiServerOf, loadKubeConfig } from '../../sources/k8s/kube-config';
import { listObjects, type ListQuery } from '../../sources/k8s/api/api-list';
import type { ApiObject } from '../../sources/k8s/api-object';
import type { ClusterObjects } from '../../sources/k8s/translate-cluster';
import { WATCHED_KINDS, kindPath } from '../../sources/k8s/watched-kinds';
import { CommandError } from '../exit-codes';

/** The speaker Pods' labels in MetalLB's manifests (METALLB_ML_LABELS' default). */
export const SPEAKER_POD_SELECTOR = 'app=metallb,component=speaker';
/** The group and version of MetalLB's status kinds (ServiceL2Status, ServiceBGPStatus, ConfigurationState). */
const METALLB_GROUP_VERSION = 'metallb.io/v1beta1';
/** Every list gives up after this long: a command that hangs on a dead API server tells the user nothing. */
const LIST_TIMEOUT_MS = 20_000;

export interface ClusterRead {
  /** The API server's address, for every line that says where the facts came from. */
  readonly server: string;
  readonly namespace: string;
  /** --lb-class: the Services handled are those of this spec.loadBalancerClass (none: those without one). */
  readonly lbClass?: string;
  readonly objects: ClusterObjects;
  readonly l2Statuses: readonly ApiObject[];
  readonly bgpStatuses: readonly ApiObject[];
  readonly configurationStates: readonly ApiObject[];
  readonly speakerPods: readonly ApiObject[];
  /** Events of every namespace; filtered to MetalLB's components by the commands. */
  readonly events: readonly ApiObject[];
  /** Resources the server does not serve (a MetalLB older than v0.14.4 has no ServiceL2Status), named for notes. */
  readonly missing: readonly string[];
  /** The reader may not list Secrets (403): BGPPeer passwordSecret references are not checked. */
  readonly secretsUnreadable: boolean;
}

export interface ClusterChoice {
  /** --kubeconfig; absent: KUBECONFIG, else the pod's service account. */
  readonly kubeconfig?: string;
  readonly namespace: string;
  readonly lbClass?: string;
}

const metallbPath = (namespace: string, plural: string): string =>
  `/apis/${METALLB_GROUP_VERSION}/namespaces/${encodeURIComponent(namespace)}/${plural}`;

export async function readCluster(choice: ClusterChoice): Promise<ClusterRead> {
  const { kubeConfig } = await loadClusterConfig(choice.kubeconfig);
  const server = apiServerOf(kubeConfig);
  const missing: string[] = [];
  const list = async (path: string, query: ListQuery = {}, optional = false): Promise<ApiObject[]> => {
    try {
      return (await listObjects(kubeConfig, path, query, AbortSignal.timeout(LIST_TIMEOUT_MS))).items;
    } catch (error) {
      if (optional && statusCodeOf(error) === 404) {
        missing.push(path.slice(path.lastIndexOf('/') + 1));
        return [];
      }
      throw unreachable(server, error);
    }
  };
  let secretsUnreadable = false;
  const listKind = async (kind: (typeof WATCHED_KINDS)[number]): Promise<ApiObject[]> => {
    if (kind.name !== 'secrets') return list(kindPath(kind, choice.namespace));
    try {
      return (await listObjects(kubeConfig, kindPath(kind, choice.namespace), {}, AbortSignal.timeout(LIST_TIMEOUT_MS))).items;
    } catch (error) {
      // Many operators may read everything but Secrets (the built-in `view` role): the BGP peers' passwords are
      // then not checked, and the rest of the answer is whole.
      if (statusCodeOf(error) !== 403) throw unreachable(server, error);
      secretsUnreadable = true;
      return [];
    }
  };
  const watched = Promise.all(WATCHED_KINDS.map(async (kind) => [kind.name, await listKind(kind)] as const));
  const [kinds, l2Statuses, bgpStatuses, configurationStates, speakerPods, events] = await Promise.all([
    watched,
    list(metallbPath(choice.namespace, 'servicel2statuses'), {}, true),
    list(metallbPath(choice.namespace, 'servicebgpstatuses'), {}, true),
    list(metallbPath(choice.namespace, 'configurationstates'), {}, true),
    list(`/api/v1/namespaces/${encodeURIComponent(choice.namespace)}/pods`, { labelSelector: SPEAKER_POD_SELECTOR }, true),
    list('/api/v1/events', {}, true),
  ]);
  return {
    server,
    namespace: choice.namespace,
    ...(choice.lbClass ? { lbClass: choice.lbClass } : {}),
    objects: Object.fromEntries(kinds) as unknown as ClusterObjects,
    l2Statuses,
    bgpStatuses,
    configurationStates,
    speakerPods,
    events,
    missing,
    secretsUnreadable,
  };
}

async function loadClusterConfig(path: string | undefined): ReturnType<typeof loadKubeConfig> {
  try {
    return await loadKubeConfig(path ? { path } : {});
  } catch (error) {
    const where = path ? `--kubeconfig ${path}` : 'KUBECONFIG or the pod service account';
    throw new CommandError(`cannot load the kubeconfig (${where}): ${(error as Error).message}`, 'kubeconfigUnreadable');
  }
}

function unreachable(server: string, error: unknown): CommandError {
  const reason = error instanceof Error ? error.message : String(error);
  return new CommandError(`cannot read the cluster from the Kubernetes API ${server}: ${reason}`, 'clusterUnreachable');
}

/** The HTTP status of a failed list (api-list.ts ApiRequestError carries it as statusCode). */
function statusCodeOf(error: unknown): number | undefined {
  const code = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}
