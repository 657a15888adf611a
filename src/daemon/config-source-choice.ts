/**
 * Which configuration source the real daemon runs on: the file or directory of --config, or with --kubernetes the
 * Kubernetes API (kubeconfig from --kubeconfig, KUBECONFIG or the pod's service account).
 */
import type { Log } from '../runtime/log';
import type { ConfigSource } from '../sources/config-source';
import { type ConfigParser, FileSource } from '../sources/file';
import { DeferredConfigSource } from '../sources/deferred-config-source';

export interface KubernetesModeOptions {
  readonly kubeconfig?: string;
  /** The namespace of the metallb.io objects. */
  readonly namespace: string;
  /** --lb-class. */
  readonly lbClass?: string;
}

export interface ConfigSourceChoice {
  readonly configFile?: string;
  readonly configParser?: ConfigParser;
  /** The first load's parser (FileSourceOptions.firstParse). */
  readonly firstConfigParser?: ConfigParser;
  readonly maxConfigBytes?: number;
  readonly kubernetes?: KubernetesModeOptions;
}

export function openConfigSource(choice: ConfigSourceChoice, log: Log): ConfigSource {
  const kubernetes = choice.kubernetes;
  if (kubernetes) {
    return new DeferredConfigSource(
      {
        origin: 'the Kubernetes API',
        loadingStep: `reading the configuration from the Kubernetes API (namespace ${kubernetes.namespace})`,
      },
      async () => {
        const [{ KubernetesSource }, { loadKubeConfig }] = await Promise.all([
          import('../sources/k8s/kubernetes-source'),
          import('../sources/k8s/kube-config'),
        ]);
        const { kubeConfig } = await loadKubeConfig(kubernetes.kubeconfig ? { path: kubernetes.kubeconfig } : {});
        const lbClass = kubernetes.lbClass ? { lbClass: kubernetes.lbClass } : {};
        return new KubernetesSource({ kubeConfig, namespace: kubernetes.namespace, log, ...lbClass });
      },
    );
  }
  if (choice.configFile === undefined) throw new Error('no configuration source: neither --config nor --kubernetes');
  return new FileSource(choice.configFile, {
    parse: choice.configParser,
    firstParse: choice.firstConfigParser,
    maxBytes: choice.maxConfigBytes,
  });
}
