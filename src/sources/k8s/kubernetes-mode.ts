/**
 * The settings of `mlb daemon --kubernetes`, from flags and the environment as MetalLB's speaker takes them
 * (its DaemonSet sets METALLB_NODE_NAME from spec.nodeName and METALLB_NAMESPACE from the pod's namespace).
 * Adapter: environment and the service account's namespace file.
 */
import { readFileSync } from 'node:fs';
// The file itself, not the model's index: `mlb status` reads this for its options and must not load the parser.
import { DEFAULT_METALLB_NAMESPACE } from '../../model/well-known';

/** Where a pod's service account says which namespace it runs in. */
const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

type Env = Readonly<Record<string, string | undefined>>;

/** --namespace, else METALLB_NAMESPACE, else the pod's own namespace, else metallb-system. */
export function metallbNamespace(flag: string | undefined, env: Env = process.env, namespaceFile = SERVICE_ACCOUNT_NAMESPACE_FILE): string {
  if (flag) return flag;
  if (env.METALLB_NAMESPACE) return env.METALLB_NAMESPACE;
  try {
    const own = readFileSync(namespaceFile, 'utf8').trim();
    if (own) return own;
  } catch {
    // not in a pod
  }
  return DEFAULT_METALLB_NAMESPACE;
}

/**
 * The node name in Kubernetes mode: METALLB_NODE_NAME (the DaemonSet's spec.nodeName) over --node-name, since it
 * must equal the Node object's name and the EndpointSlices' nodeName, which the host name need not be.
 */
export function kubernetesNodeName(flag: string, env: Env = process.env): string {
  return env.METALLB_NODE_NAME || flag;
}
