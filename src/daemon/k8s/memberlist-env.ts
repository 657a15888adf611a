/**
 * The speaker's memberlist settings in Kubernetes mode, from the environment MetalLB's DaemonSet sets
 * (speaker/main.go flags and internal/speakerlist/speakerlist.go): which pods are the other speakers
 * (METALLB_ML_LABELS, in the speaker's own namespace), where gossip binds (METALLB_ML_BIND_ADDR, the pod IP of a
 * host-network pod, and METALLB_ML_BIND_PORT), and where the memberlist Secret is mounted
 * (METALLB_ML_SECRET_KEY_PATH, file `secretkey`). And from the pods listed, the join targets. Pure.
 */
import type { HostPort } from '../../gossip/transport/address';

/** MetalLB's memberlist port (speaker/main.go default of METALLB_ML_BIND_PORT). */
const MEMBERLIST_DEFAULT_PORT = 7946;
/** The labels of MetalLB's speaker pods (config/manifests, kustomize): the default selector. */
const DEFAULT_ML_LABELS = 'app=metallb,component=speaker';
/** Where MetalLB's manifests mount the memberlist Secret. */
const DEFAULT_ML_SECRET_KEY_PATH = '/etc/ml_secret_key';
/** The key of the memberlist Secret that holds the secret. */
const SECRET_KEY_FILE = 'secretkey';

type Env = Readonly<Record<string, string | undefined>>;

export interface MemberlistEnv {
  /** Label selector of the speaker pods. */
  readonly labels: string;
  /** Gossip bind from METALLB_ML_BIND_ADDR, undefined when unset (--gossip-bind applies). */
  readonly bind: HostPort | undefined;
  readonly port: number;
  /** The secretkey file, and whether the environment named it (then it must be readable). */
  readonly keyFile: { readonly path: string; readonly required: boolean };
  /** METALLB_POD_NAME: the owner of this node's status objects. */
  readonly podName: string | undefined;
}

export function memberlistEnv(env: Env): MemberlistEnv {
  const parsedPort = Number(env.METALLB_ML_BIND_PORT);
  const port = Number.isInteger(parsedPort) && parsedPort > 0 && parsedPort < 65536 ? parsedPort : MEMBERLIST_DEFAULT_PORT;
  const dir = env.METALLB_ML_SECRET_KEY_PATH;
  return {
    labels: env.METALLB_ML_LABELS || DEFAULT_ML_LABELS,
    bind: env.METALLB_ML_BIND_ADDR ? { host: env.METALLB_ML_BIND_ADDR, port } : undefined,
    port,
    keyFile: { path: `${(dir || DEFAULT_ML_SECRET_KEY_PATH).replace(/\/+$/, '')}/${SECRET_KEY_FILE}`, required: Boolean(dir) },
    podName: env.METALLB_POD_NAME || undefined,
  };
}

/** What mlb reads of a listed Pod. */
export interface ListedPod {
  readonly status?: { readonly podIP?: string; readonly phase?: string } | undefined;
}

/**
 * Join targets: the pod IP of every listed speaker pod that has one (MetalLB's speakerlist takes status.podIP), on
 * the memberlist port, deduplicated and sorted so an unchanged list compares equal. A pod that has ended
 * (Succeeded/Failed) keeps its IP in its status but nobody listens there.
 */
export function joinTargets(pods: readonly ListedPod[], port: number): HostPort[] {
  const ips = new Set<string>();
  for (const pod of pods) {
    const ip = pod.status?.podIP;
    const phase = pod.status?.phase;
    if (ip && phase !== 'Succeeded' && phase !== 'Failed') ips.add(ip);
  }
  return [...ips].sort().map((host) => ({ host, port }));
}

/** The pod IPs of the pods that are Running: those a join can reach now (a Pending pod's may not listen yet). */
export function runningPodIPs(pods: readonly ListedPod[]): ReadonlySet<string> {
  const ips = new Set<string>();
  for (const pod of pods) if (pod.status?.podIP && pod.status.phase === 'Running') ips.add(pod.status.podIP);
  return ips;
}
