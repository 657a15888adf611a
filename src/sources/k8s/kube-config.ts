/**
 * Where the Kubernetes API is and how to talk to it, in the order kubectl and MetalLB's binaries look: the path
 * given (--kubeconfig), else KUBECONFIG, else the pod's service account (in-cluster: KUBERNETES_SERVICE_HOST and
 * /var/run/secrets/kubernetes.io/serviceaccount). Adapter: files and environment.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { loadClientNode } from './api/client-node-module';

export interface KubeConfigChoice {
  /** --kubeconfig. */
  readonly path?: string;
  /** The environment to read KUBECONFIG from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** How the configuration was found, for logs and `mlb status`. */
export type KubeConfigOrigin = { readonly from: 'flag' | 'env'; readonly path: string } | { readonly from: 'in-cluster' };

export async function loadKubeConfig(choice: KubeConfigChoice = {}): Promise<{ kubeConfig: KubeConfig; origin: KubeConfigOrigin }> {
  const { KubeConfig } = await loadClientNode();
  const kubeConfig = new KubeConfig();
  if (choice.path) {
    kubeConfig.loadFromFile(choice.path);
    return { kubeConfig, origin: { from: 'flag', path: choice.path } };
  }
  const env = choice.env ?? process.env;
  const fromEnv = env.KUBECONFIG?.split(':').find((p) => p !== '');
  if (fromEnv) {
    kubeConfig.loadFromFile(fromEnv);
    return { kubeConfig, origin: { from: 'env', path: fromEnv } };
  }
  kubeConfig.loadFromCluster();
  return { kubeConfig, origin: { from: 'in-cluster' } };
}

/** The API server's address, for messages ("the Kubernetes API https://10.96.0.1:443"). */
export function apiServerOf(kubeConfig: KubeConfig): string {
  return kubeConfig.getCurrentCluster()?.server ?? 'the Kubernetes API';
}
