/** The flags of `mlb daemon --kubernetes`: where the API is and which namespace holds the metallb.io objects. */
import type { KubernetesModeOptions } from '../daemon/config-source-choice';
import { metallbNamespace } from '../sources/k8s/kubernetes-mode';
import { UsageError } from './exit-codes';

export interface KubernetesArgs {
  kubernetes?: boolean;
  kubeconfig?: string;
  namespace?: string;
  'lb-class'?: string;
}

export const kubernetesOptions = {
  kubernetes: {
    type: 'boolean',
    describe:
      'Read the configuration from the Kubernetes API (MetalLB CRs, Services, EndpointSlices, Nodes) instead of --config; the node name comes from METALLB_NODE_NAME',
  },
  kubeconfig: { type: 'string', describe: 'With --kubernetes: the kubeconfig file (default: KUBECONFIG, else the pod service account)' },
  namespace: {
    type: 'string',
    describe:
      "With --kubernetes: the namespace of the metallb.io objects (default: METALLB_NAMESPACE, else the pod's, else metallb-system)",
  },
  'lb-class': {
    type: 'string',
    describe: 'With --kubernetes: announce only Services of this spec.loadBalancerClass (default: only Services without one), as MetalLB',
  },
} as const;

/** With --kubernetes the configuration is the cluster's: a --config as well is a mistake, said rather than ignored. */
export function checkKubernetesArgs(args: KubernetesArgs & { config?: string }): void {
  if (args.kubernetes && args.config !== undefined) {
    throw new UsageError('--config and --kubernetes both name the configuration: give one (--kubernetes reads it from the cluster)');
  }
  if (!args.kubernetes && (args.kubeconfig !== undefined || args['lb-class'] !== undefined)) {
    throw new UsageError('--kubeconfig and --lb-class go with --kubernetes');
  }
}

export function kubernetesModeOptions(args: KubernetesArgs): KubernetesModeOptions {
  return {
    namespace: metallbNamespace(args.namespace),
    ...(args.kubeconfig ? { kubeconfig: args.kubeconfig } : {}),
    ...(args['lb-class'] ? { lbClass: args['lb-class'] } : {}),
  };
}
